// alias_reshapes: contiguous reshapes leave the chain and share their input's storage (alias
// groups); the cases that must stay copies stay copies; graph_check rejects groups that break
// the rules; and a simulated run through the planned pools gives the same outputs as a buffer
// per value, for hand-made and random graphs. (Every model fixture also runs on the GPU with
// the pass against PyTorch, tests/programs.)
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "copy_interpreter.h"
#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/passes/alias_reshapes.h"
#include "graph_compare.h"
#include "wgx/error.h"

namespace wgx::graph {
namespace {

using Builder = test::GraphBuilder;
using test::expect_rejected;
using test::expect_same_results;
using test::numel_of;

std::vector<std::string> names(const Graph& g) { return test::call_names(g); }
int32_t pool(const Graph& g, int32_t id) { return test::pool_of(g, id); }

size_t run(Graph& g) { return test::alias_and_plan(g); }

TEST(AliasReshapes, ViewInAChainLeavesIt) {
    Builder b;
    const int32_t x = b.tensor({2, 6}), a = b.tensor({2, 6}), v = b.tensor({3, 4}),
                  out = b.tensor({3, 4});
    b.relu(x, a);
    b.view(a, v);
    b.relu(v, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    const Graph before = b.g;
    EXPECT_EQ(run(b.g), 1u);
    EXPECT_EQ(names(b.g), (std::vector<std::string>{"aten.relu.default", "aten.relu.default"}));
    ASSERT_EQ(b.g.alias_groups.size(), 1u);
    EXPECT_EQ(b.g.alias_groups[0], (std::vector<int32_t>{a, v}));
    EXPECT_GE(pool(b.g, a), 0);
    EXPECT_EQ(pool(b.g, a), pool(b.g, v));
    expect_same_results(before, b.g);
}

TEST(AliasReshapes, ViewOfAViewJoinsOneGroup) {
    Builder b;
    const int32_t x = b.tensor({24}), a = b.tensor({24}), v = b.tensor({4, 6}),
                  u = b.tensor({1, 4, 6}), s = b.tensor({4, 6}), w = b.tensor({4, 6}),
                  out = b.tensor({4, 6});
    b.relu(x, a);
    b.view(a, v);
    b.call("aten.unsqueeze_copy.default", {v, b.add(Int{0}), u});
    b.call("aten.squeeze_copy.dims", {u, b.add(IntList{{0}}), s});
    b.call("aten.alias_copy.default", {s, w});
    b.relu(w, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    const Graph before = b.g;
    EXPECT_EQ(run(b.g), 4u);
    EXPECT_EQ(b.g.chain.size(), 2u);
    ASSERT_EQ(b.g.alias_groups.size(), 1u);
    EXPECT_EQ(b.g.alias_groups[0], (std::vector<int32_t>{a, v, u, s, w}));
    for (int32_t id : {v, u, s, w}) EXPECT_EQ(pool(b.g, id), pool(b.g, a));
    expect_same_results(before, b.g);
}

TEST(AliasReshapes, InputStillReadLaterKeepsItsStorageAlive) {
    // a -> v (view); t = relu(v); e = a + t: `a` is read after its view's reader, and `t`,
    // alive at the same time, must not share the group's pool.
    Builder b;
    const int32_t x = b.tensor({2, 8}), a = b.tensor({2, 8}), v = b.tensor({16}),
                  t = b.tensor({16}), t2 = b.tensor({2, 8}), out = b.tensor({2, 8});
    b.relu(x, a);
    b.view(a, v);
    b.relu(v, t);
    b.view(t, t2);
    b.add_op(a, t2, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    const Graph before = b.g;
    EXPECT_EQ(run(b.g), 2u);
    ASSERT_EQ(b.g.alias_groups.size(), 2u);
    EXPECT_NE(pool(b.g, a), pool(b.g, t));
    EXPECT_EQ(pool(b.g, t), pool(b.g, t2));
    expect_same_results(before, b.g);
}

TEST(AliasReshapes, ViewOfAGraphInputStaysACopy) {
    Builder b;
    const int32_t x = b.tensor({2, 6}), v = b.tensor({12}), out = b.tensor({12});
    b.view(x, v);
    b.relu(v, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    EXPECT_EQ(run(b.g), 0u);
    EXPECT_EQ(b.g.chain.size(), 2u);
    EXPECT_TRUE(b.g.alias_groups.empty());
}

TEST(AliasReshapes, ViewThatIsAGraphOutputStaysACopy) {
    Builder b;
    const int32_t x = b.tensor({2, 6}), a = b.tensor({2, 6}), out = b.tensor({12});
    b.relu(x, a);
    b.view(a, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    EXPECT_EQ(run(b.g), 0u);
    EXPECT_EQ(b.g.chain.size(), 2u);
    EXPECT_TRUE(b.g.alias_groups.empty());
}

TEST(AliasReshapes, ViewOfAConstantStaysACopy) {
    Builder b;
    std::vector<uint8_t> bytes(48, 1);
    b.g.constants.push_back({std::span<const uint8_t>(bytes), "w"});
    const int32_t x = b.tensor({12}), c = b.add(Tensor{DType::f32, {2, 6}, 0, -1, false, ""}),
                  v = b.tensor({12}), out = b.tensor({12});
    b.view(c, v);
    b.add_op(x, v, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    EXPECT_EQ(run(b.g), 0u);
    EXPECT_TRUE(b.g.alias_groups.empty());
}

TEST(AliasReshapes, ValueWrittenTwiceStaysACopy) {
    // A mutable buffer: `a` is written, viewed, then written again in place.
    Builder b;
    const int32_t x = b.tensor({12}), a = b.tensor({12}), v = b.tensor({3, 4}),
                  out = b.tensor({3, 4});
    b.relu(x, a);
    b.view(a, v);
    b.call("aten.copy_.default", {a, x, a});
    b.add_op(v, v, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    EXPECT_EQ(alias_reshapes(b.g), 0u);
    // And the view's output written again by another op.
    Builder c;
    const int32_t y = c.tensor({12}), p = c.tensor({12}), w = c.tensor({3, 4}),
                  res = c.tensor({3, 4});
    c.relu(y, p);
    c.view(p, w);
    c.relu(y, w);
    c.add_op(w, w, res);
    c.g.input_ids = {y};
    c.g.output_ids = {res};
    EXPECT_EQ(alias_reshapes(c.g), 0u);
}

TEST(AliasReshapes, DifferentBytesOrOrderStayCopies) {
    Builder b;
    const int32_t x = b.tensor({2, 6}), a = b.tensor({2, 6}), wrong = b.tensor({13}),
                  half = b.tensor({12}, DType::f16), p = b.tensor({6, 2}), out = b.tensor({6, 2});
    b.relu(x, a);
    b.view(a, wrong);                                                     // element count differs
    b.call("aten.alias_copy.default", {a, half});                         // dtype differs
    b.call("aten.permute_copy.default", {a, b.add(IntList{{1, 0}}), p});  // not a reshape
    b.add_op(p, p, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    EXPECT_EQ(alias_reshapes(b.g), 0u);
}

TEST(AliasReshapes, OutputReadBeforeTheReshapeStaysACopy) {
    Builder b;
    const int32_t x = b.tensor({12}), a = b.tensor({12}), v = b.tensor({12}), t = b.tensor({12}),
                  out = b.tensor({12});
    b.relu(x, a);
    b.relu(v, t);  // reads v before the view writes it
    b.view(a, v);
    b.add_op(t, v, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    EXPECT_EQ(alias_reshapes(b.g), 0u);
}

TEST(AliasReshapes, RunningTwiceKeepsTheGroups) {
    Builder b;
    const int32_t x = b.tensor({12}), a = b.tensor({12}), v = b.tensor({3, 4}),
                  t = b.tensor({3, 4}), w = b.tensor({12}), out = b.tensor({12});
    b.relu(x, a);
    b.view(a, v);
    b.relu(v, t);
    b.view(t, w);
    b.relu(w, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    const Graph before = b.g;
    EXPECT_EQ(run(b.g), 2u);
    EXPECT_EQ(alias_reshapes(b.g), 0u);
    EXPECT_EQ(b.g.alias_groups.size(), 2u);
    assign_memory_pools(b.g);
    expect_same_results(before, b.g);
}

// --- graph_check's rules for alias groups.

Graph valid_group() {
    Builder b;
    const int32_t x = b.tensor({12}), a = b.tensor({12}), v = b.tensor({3, 4}),
                  out = b.tensor({3, 4});
    b.relu(x, a);
    b.relu(v, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    b.g.alias_groups = {{a, v}};
    return b.g;
}

TEST(AliasGroupsCheck, AcceptsAValidGroup) {
    Graph g = valid_group();
    EXPECT_NO_THROW(check_graph(g, "test"));
    assign_memory_pools(g);
    EXPECT_NO_THROW(check_graph(g, "test"));
}

TEST(AliasGroupsCheck, RejectsBrokenGroups) {
    {
        Graph g = valid_group();
        g.alias_groups[0].push_back(0);  // the graph input
        expect_rejected(g, "graph input or output");
    }
    {
        Graph g = valid_group();
        g.alias_groups[0].push_back(99);
        expect_rejected(g, "out of range");
    }
    {
        Graph g = valid_group();
        std::get<Tensor>(g.values[2]).dims = {3, 5};
        expect_rejected(g, "reaches past the end");
    }
    {
        Graph g = valid_group();
        std::get<Tensor>(g.values[2]).dtype = DType::i32;
        expect_rejected(g, "same bytes");
    }
    {
        Graph g = valid_group();
        g.alias_groups.push_back({2});
        expect_rejected(g, "also in alias group 0");
    }
    {
        Graph g = valid_group();
        std::get<Tensor>(g.values[1]).mem_obj_id = 3;
        expect_rejected(g, "memory pool");
    }
    {
        Graph g = valid_group();
        g.chain.push_back({"aten.relu.default", {0, 2}, 9});  // the view written as well
        g.chain.push_back({"aten.relu.default", {0, 2}, 10});
        expect_rejected(g, "written more than once");
    }
    {
        // One dispatch reading one member and writing another: one buffer bound both ways.
        Graph g = valid_group();
        g.chain[0] = {"aten.relu.default", {2, 1}, 0};
        expect_rejected(g, "reads and writes alias group 0");
    }
}

// --- Random functional graphs: values written once, each read after it is written; some ops
// are reshapes (possibly of reshapes, of inputs, or outputs). The file's own plan is imitated
// by planning once before the pass, as VkGraph files come with pool ids.
TEST(AliasReshapes, RandomGraphsGiveTheSameResults) {
    std::mt19937 rng(20261130);
    size_t aliased = 0;
    for (int trial = 0; trial < 300; ++trial) {
        Builder b;
        std::vector<int32_t> written;
        const int inputs = 1 + int(rng() % 2);
        for (int i = 0; i < inputs; ++i) {
            written.push_back(b.tensor({1 + int64_t(rng() % 3), 4}));
            b.g.input_ids.push_back(written.back());
        }
        const int ops = 2 + int(rng() % 30);
        for (int op = 0; op < ops; ++op) {
            const int32_t src = written[rng() % written.size()];
            const int64_t n = int64_t(numel_of(b.g, src));
            if (rng() % 2) {
                const int32_t out = (rng() % 2) ? b.tensor({n}) : b.tensor({n / 4, 4});
                if (rng() % 3) {
                    b.view(src, out);
                } else {
                    const int32_t dim = b.add(Int{0}), mid = b.tensor({1, n});
                    b.call("aten.unsqueeze_copy.default", {src, dim, mid});
                    b.call("aten.squeeze_copy.dims", {mid, b.add(IntList{{0}}), out});
                }
                written.push_back(out);
            } else {
                const int32_t other = written[rng() % written.size()];
                const int32_t out = b.tensor({1 + int64_t(rng() % 3), 4});
                b.add_op(src, other, out);
                written.push_back(out);
            }
        }
        test::add_random_outputs(b.g, written, rng);
        if (b.g.output_ids.empty()) continue;
        aliased += test::passes_keep_results(b.g, rng, run);
        if (HasFailure()) {
            ADD_FAILURE() << "trial " << trial;
            break;
        }
    }
    EXPECT_GT(aliased, 300u);  // the generator does make aliases
}

}  // namespace
}  // namespace wgx::graph
