// compose_permutes: chains of permute_copy become one permute of the first input (or, when
// the composed permutation moves only size-1 dims, one view_copy that alias_reshapes then
// aliases); chains whose tensors in between are read elsewhere, are graph outputs, or whose
// input is written twice are left alone. Results are checked with copy_interpreter.h, which
// gathers permutes as the op does, before the passes (a buffer per value) and after passes
// and planner (pooled).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "copy_interpreter.h"
#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/passes/alias_reshapes.h"
#include "graph/passes/compose_permutes.h"
#include "graph_compare.h"

namespace wgx::graph {
namespace {

using test::call_names;
using test::expect_same_results;
using test::GraphBuilder;

// compose_permutes, then alias_reshapes and the planner as the program runs them, with the
// checks every result must pass. Returns the calls compose_permutes removed.
size_t run(Graph& g) {
    const size_t n = compose_permutes(g);
    check_graph(g, "test");
    test::alias_and_plan(g);
    return n;
}

const std::vector<int64_t>& int_list(const Graph& g, int32_t id) {
    return std::get<IntList>(g.values[size_t(id)]).items;
}

TEST(ComposePermutes, VitsThreePermutesBecomeOne) {
    // [1, 3, 26, 16] by [2, 0, 1, 3], [1, 2, 0, 3], [2, 0, 1, 3]: the first two cancel.
    GraphBuilder b;
    const int32_t x = b.tensor({1, 3, 26, 16}), a = b.tensor({1, 3, 26, 16}),
                  p1 = b.tensor({26, 1, 3, 16}), p2 = b.tensor({1, 3, 26, 16}),
                  p3 = b.tensor({26, 1, 3, 16}), out = b.tensor({26, 1, 3, 16});
    b.relu(x, a);
    b.permute(a, {2, 0, 1, 3}, p1);
    b.permute(p1, {1, 2, 0, 3}, p2);
    b.permute(p2, {2, 0, 1, 3}, p3);
    b.relu(p3, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    const Graph before = b.g;
    EXPECT_EQ(run(b.g), 2u);
    ASSERT_EQ(call_names(b.g),
              (std::vector<std::string>{"aten.relu.default", "aten.permute_copy.default",
                                        "aten.relu.default"}));
    const OpCall& p = b.g.chain[1];
    EXPECT_EQ(p.args[0], a);
    EXPECT_EQ(int_list(b.g, p.args[1]), (std::vector<int64_t>{2, 0, 1, 3}));
    EXPECT_EQ(p.args[2], p3);
    EXPECT_EQ(p.debug_handle, 3u);  // the last call's
    expect_same_results(before, b.g);
}

TEST(ComposePermutes, IdentityBecomesAnAliasedView) {
    GraphBuilder b;
    const int32_t x = b.tensor({2, 3, 4}), a = b.tensor({2, 3, 4}), p1 = b.tensor({4, 2, 3}),
                  p2 = b.tensor({2, 3, 4}), out = b.tensor({2, 3, 4});
    b.relu(x, a);
    b.permute(a, {2, 0, 1}, p1);
    b.permute(p1, {1, 2, 0}, p2);
    b.relu(p2, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    const Graph before = b.g;
    Graph composed = b.g;
    EXPECT_EQ(compose_permutes(composed), 1u);
    EXPECT_EQ(call_names(composed),
              (std::vector<std::string>{"aten.relu.default", "aten.view_copy.default",
                                        "aten.relu.default"}));
    EXPECT_EQ(int_list(composed, composed.chain[1].args[1]), (std::vector<int64_t>{2, 3, 4}));
    EXPECT_EQ(run(b.g), 1u);
    EXPECT_EQ(call_names(b.g),
              (std::vector<std::string>{"aten.relu.default", "aten.relu.default"}));
    ASSERT_EQ(b.g.alias_groups.size(), 1u);
    EXPECT_EQ(b.g.alias_groups[0], (std::vector<int32_t>{a, p2}));
    expect_same_results(before, b.g);
}

TEST(ComposePermutes, SizeOneMovesBecomeAView) {
    // [1, 4, 6] -> [4, 6, 1] -> [4, 1, 6]: only the size-1 dim moved.
    GraphBuilder b;
    const int32_t x = b.tensor({1, 4, 6}), a = b.tensor({1, 4, 6}), p1 = b.tensor({4, 6, 1}),
                  p2 = b.tensor({4, 1, 6}), out = b.tensor({4, 1, 6});
    b.relu(x, a);
    b.permute(a, {1, 2, 0}, p1);
    b.permute(p1, {0, 2, 1}, p2);
    b.relu(p2, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    const Graph before = b.g;
    EXPECT_EQ(run(b.g), 1u);
    EXPECT_EQ(b.g.chain.size(), 2u);
    expect_same_results(before, b.g);
}

TEST(ComposePermutes, IdentityOnTheBoundaryStaysOneCopy) {
    // Input and output are graph boundary values: the view stays a copy, one call instead of two.
    GraphBuilder b;
    const int32_t x = b.tensor({2, 5}), p1 = b.tensor({5, 2}), out = b.tensor({2, 5});
    b.permute(x, {1, 0}, p1);
    b.permute(p1, {1, 0}, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    const Graph before = b.g;
    EXPECT_EQ(run(b.g), 1u);
    EXPECT_EQ(call_names(b.g), (std::vector<std::string>{"aten.view_copy.default"}));
    expect_same_results(before, b.g);
}

TEST(ComposePermutes, SharedOrVisibleIntermediatesStay) {
    auto chain = [](bool extra_reader, bool intermediate_out) {
        GraphBuilder b;
        const int32_t x = b.tensor({2, 3, 4}), a = b.tensor({2, 3, 4}), p1 = b.tensor({3, 4, 2}),
                      p2 = b.tensor({4, 2, 3}), out = b.tensor({4, 2, 3});
        b.relu(x, a);
        b.permute(a, {1, 2, 0}, p1);
        b.permute(p1, {1, 2, 0}, p2);
        b.relu(p2, out);
        b.g.input_ids = {x};
        b.g.output_ids = {out};
        if (extra_reader) {
            const int32_t other = b.tensor({3, 4, 2});
            b.relu(p1, other);
            b.g.output_ids.push_back(other);
        }
        if (intermediate_out) b.g.output_ids.push_back(p1);
        return b.g;
    };
    for (auto [extra, visible] : std::vector<std::pair<bool, bool>>{{true, false}, {false, true}}) {
        Graph g = chain(extra, visible);
        const Graph before = g;
        EXPECT_EQ(compose_permutes(g), 0u) << extra << visible;
        test::expect_same_graph(before, g);
    }
    Graph g = chain(false, false);
    const Graph before = g;
    EXPECT_EQ(run(g), 1u);
    expect_same_results(before, g);
}

TEST(ComposePermutes, InputWrittenTwiceStays) {
    // `a` is updated in place between the two permutes: the second reads the old values
    // through p1, so x cannot be read at the chain's end.
    GraphBuilder b;
    const int32_t x = b.tensor({2, 3}), a = b.tensor({2, 3}), p1 = b.tensor({3, 2}),
                  p2 = b.tensor({2, 3}), out = b.tensor({2, 3});
    b.relu(x, a);
    b.permute(a, {1, 0}, p1);
    b.call("aten.copy_.default", {a, x, a});
    b.permute(p1, {1, 0}, p2);
    b.add_op(p2, a, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    EXPECT_EQ(compose_permutes(b.g), 0u);
}

TEST(ComposePermutes, PermuteOfAnotherValueStays) {
    // The second permute reads a value computed from the first one's output, not that output:
    // no chain.
    GraphBuilder b;
    const int32_t x = b.tensor({2, 3}), p1 = b.tensor({3, 2}), y = b.tensor({3, 2}),
                  out = b.tensor({2, 3});
    b.permute(x, {1, 0}, p1);
    b.add_op(p1, x, y);
    b.permute(y, {1, 0}, out);
    b.g.input_ids = {x};
    b.g.output_ids = {out};
    EXPECT_EQ(compose_permutes(b.g), 0u);
}

// Random chains of permutes over random shapes, with other ops reading some intermediates.
TEST(ComposePermutes, RandomChainsGiveTheSameResults) {
    std::mt19937 rng(20260523);
    size_t removed = 0;
    for (int trial = 0; trial < 300; ++trial) {
        GraphBuilder b;
        const size_t rank = 1 + rng() % 4;
        std::vector<int64_t> dims;
        for (size_t d = 0; d < rank; ++d) dims.push_back(1 + int64_t(rng() % 3));
        const int32_t x = b.tensor(dims), a = b.tensor(dims);
        b.relu(x, a);
        b.g.input_ids = {x};
        int32_t cur = a;
        std::vector<int32_t> extra_outputs;
        for (int step = 0, n = 1 + int(rng() % 5); step < n; ++step) {
            std::vector<int64_t> perm(rank);
            for (size_t d = 0; d < rank; ++d) perm[d] = int64_t(d);
            std::shuffle(perm.begin(), perm.end(), rng);
            std::vector<int64_t> shape;
            for (int64_t d : perm) shape.push_back(b.dims(cur)[size_t(d)]);
            const int32_t next = b.tensor(shape);
            b.permute(cur, perm, next);
            if (rng() % 5 == 0) {  // someone else reads it too
                const int32_t other = b.tensor(shape);
                b.relu(next, other);
                extra_outputs.push_back(other);
            }
            cur = next;
        }
        const int32_t out = b.tensor(b.dims(cur));
        b.relu(cur, out);
        b.g.output_ids = {out};
        b.g.output_ids.insert(b.g.output_ids.end(), extra_outputs.begin(), extra_outputs.end());
        removed += test::passes_keep_results(b.g, rng, run);
        size_t permutes = 0;
        for (const auto& call : b.g.chain) permutes += call.name == "aten.permute_copy.default";
        if (extra_outputs.empty()) EXPECT_LE(permutes, 1u) << "trial " << trial;
        if (HasFailure()) {
            ADD_FAILURE() << "trial " << trial;
            break;
        }
    }
    EXPECT_GT(removed, 200u);
}

}  // namespace
}  // namespace wgx::graph
