// alias_reshapes on splits and slices that cut their input into contiguous chunks
// (passes/contiguous_chunks.h): a channel split at batch 1 leaves the chain and its outputs
// join the input's alias group at element offsets; the cases that must stay copies (batch > 1
// on the channel dim, an offset that is not a multiple of 256 bytes, a graph output, an input
// written twice, a step-2 slice) stay copies; graph_check rejects offsets that break the
// rules; and a simulated run through the planned pools, each member at its offset, gives the
// same outputs as a buffer per value, for hand-made and random graphs. (The yolo fixtures run
// the pass on the GPU against PyTorch, tests/programs.)
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
#include "wgx/error.h"

namespace wgx::graph {
namespace {

using Builder = test::GraphBuilder;
using test::expect_rejected;
using test::expect_same_results;

int32_t pool(const Graph& g, int32_t id) { return test::pool_of(g, id); }
size_t run(Graph& g) { return test::alias_and_plan(g); }

const std::string kSplit = "aten.split_with_sizes_copy.default";

// x -> relu -> y; split y along `dim` into `sizes`; relu of every piece; the pieces' relus
// added up into the output. Returns the piece ids.
struct SplitGraph {
    Builder b;
    int32_t y = -1;
    std::vector<int32_t> pieces;
};
SplitGraph split_graph(std::vector<int64_t> dims, int64_t dim, std::vector<int64_t> sizes,
                       DType dtype = DType::f32) {
    SplitGraph s;
    Builder& b = s.b;
    const int32_t x = b.tensor(dims, dtype);
    s.y = b.tensor(dims, dtype);
    b.relu(x, s.y);
    std::vector<int32_t> items;
    for (int64_t size : sizes) {
        std::vector<int64_t> piece = dims;
        piece[size_t(dim)] = size;
        s.pieces.push_back(b.tensor(piece, dtype));
    }
    b.call(kSplit, {s.y, b.add(IntList{sizes}), b.add(Int{dim}), b.add(ValueList{s.pieces})});
    int32_t sum = -1;
    for (int32_t piece : s.pieces) {
        const int32_t r = b.tensor(std::get<Tensor>(b.g.values[size_t(piece)]).dims, dtype);
        b.relu(piece, r);
        if (sum < 0) {
            sum = r;
        } else {
            const int32_t next = b.tensor(std::get<Tensor>(b.g.values[size_t(r)]).dims, dtype);
            b.add_op(sum, r, next);
            sum = next;
        }
    }
    b.g.input_ids = {x};
    b.g.output_ids = {sum};
    return s;
}

bool has_call(const Graph& g, const std::string& name) {
    const auto names = test::call_names(g);
    return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(AliasSplits, AlignedChannelSplitAtBatchOneBecomesViews) {
    // [1, 8, 16, 16] float32 in two: the second half starts 4 * 256 elements (4096 bytes) in.
    SplitGraph s = split_graph({1, 8, 16, 16}, 1, {4, 4});
    const Graph before = s.b.g;
    EXPECT_EQ(run(s.b.g), 1u);
    EXPECT_FALSE(has_call(s.b.g, kSplit));
    ASSERT_EQ(s.b.g.alias_groups.size(), 1u);
    EXPECT_EQ(s.b.g.alias_groups[0], (std::vector<int32_t>{s.y, s.pieces[0], s.pieces[1]}));
    EXPECT_EQ(alias_offset(s.b.g, s.y), 0u);
    EXPECT_EQ(alias_offset(s.b.g, s.pieces[0]), 0u);
    EXPECT_EQ(alias_offset(s.b.g, s.pieces[1]), 1024u);
    EXPECT_GE(pool(s.b.g, s.y), 0);
    EXPECT_EQ(pool(s.b.g, s.pieces[1]), pool(s.b.g, s.y));
    EXPECT_GE(pool_sizes(s.b.g).at(pool(s.b.g, s.y)), 8u * 256 * 4);
    expect_same_results(before, s.b.g);
}

TEST(AliasSplits, UnevenSplitsAndLeadingDimsOfOne) {
    // Three pieces along dim 2 of [1, 1, 12, 64]: offsets 0, 3 * 64 and 7 * 64 elements.
    SplitGraph s = split_graph({1, 1, 12, 64}, 2, {3, 4, 5});
    const Graph before = s.b.g;
    EXPECT_EQ(run(s.b.g), 1u);
    EXPECT_EQ(alias_offset(s.b.g, s.pieces[1]), 192u);
    EXPECT_EQ(alias_offset(s.b.g, s.pieces[2]), 448u);
    expect_same_results(before, s.b.g);
    // Along dim 0 nothing precedes: a batch split is contiguous too.
    SplitGraph batch = split_graph({2, 4, 64}, 0, {1, 1});
    const Graph batch_before = batch.b.g;
    EXPECT_EQ(run(batch.b.g), 1u);
    EXPECT_EQ(alias_offset(batch.b.g, batch.pieces[1]), 256u);
    expect_same_results(batch_before, batch.b.g);
}

TEST(AliasSplits, ChannelSplitAtBatchTwoStaysACopy) {
    SplitGraph s = split_graph({2, 8, 16, 16}, 1, {4, 4});
    const Graph before = s.b.g;
    EXPECT_EQ(run(s.b.g), 0u);
    EXPECT_TRUE(has_call(s.b.g, kSplit));
    EXPECT_TRUE(s.b.g.alias_offsets.empty());
    expect_same_results(before, s.b.g);
}

TEST(AliasSplits, MisalignedOffsetStaysACopy) {
    // [1, 8, 3, 3] float32: the second half starts at 36 elements, 144 bytes.
    SplitGraph s = split_graph({1, 8, 3, 3}, 1, {4, 4});
    EXPECT_EQ(run(s.b.g), 0u);
    EXPECT_TRUE(has_call(s.b.g, kSplit));
    // One piece aligned, the next not: the whole split stays (a split left in the chain writes
    // every output).
    SplitGraph mixed = split_graph({1, 3, 64}, 1, {1, 1, 1});  // 256 and 512 bytes: aligned
    EXPECT_EQ(run(mixed.b.g), 1u);
    SplitGraph partly = split_graph({1, 12, 16}, 1, {4, 6, 2});  // 256 bytes, then 640
    EXPECT_EQ(run(partly.b.g), 0u);
    // The rule is on GPU bytes: 64 float16 elements are 128 bytes.
    SplitGraph half = split_graph({1, 2, 64}, 1, {1, 1}, DType::f16);
    EXPECT_EQ(run(half.b.g), 0u);
    SplitGraph half_aligned = split_graph({1, 2, 128}, 1, {1, 1}, DType::f16);
    EXPECT_EQ(run(half_aligned.b.g), 1u);
}

TEST(AliasSplits, GraphOutputPieceStaysACopy) {
    SplitGraph s = split_graph({1, 8, 16, 16}, 1, {4, 4});
    s.b.g.output_ids.push_back(s.pieces[0]);
    const Graph before = s.b.g;
    EXPECT_EQ(run(s.b.g), 0u);
    expect_same_results(before, s.b.g);
    SplitGraph of_input = split_graph({1, 8, 16, 16}, 1, {4, 4});
    of_input.b.g.input_ids = {of_input.y};  // the split reads a graph input
    of_input.b.g.chain.erase(of_input.b.g.chain.begin());
    EXPECT_EQ(run(of_input.b.g), 0u);
}

TEST(AliasSplits, InputWrittenTwiceStaysACopy) {
    SplitGraph s = split_graph({1, 8, 16, 16}, 1, {4, 4});
    // y written again after the split (an in-place update): the pieces must keep the old bytes.
    const int32_t x = s.b.g.input_ids[0];
    s.b.g.chain.insert(s.b.g.chain.begin() + 2, OpCall{"aten.relu.default", {x, s.y}, 99});
    const Graph before = s.b.g;
    EXPECT_EQ(run(s.b.g), 0u);
    EXPECT_TRUE(has_call(s.b.g, kSplit));
    expect_same_results(before, s.b.g);
}

TEST(AliasSplits, SplitCopyAndSlices) {
    {
        Builder b;  // split_copy.Tensor by 3 of 8 channels: pieces of 3, 3, 2
        const int32_t x = b.tensor({1, 8, 64}), y = b.tensor({1, 8, 64});
        const int32_t p0 = b.tensor({1, 3, 64}), p1 = b.tensor({1, 3, 64}),
                      p2 = b.tensor({1, 2, 64});
        const int32_t out = b.tensor({1, 3, 64});
        b.relu(x, y);
        b.call("aten.split_copy.Tensor",
               {y, b.add(Int{3}), b.add(Int{-2}), b.add(ValueList{{p0, p1, p2}})});
        b.call("aten.add.Tensor", {p2, p1, out});
        b.g.input_ids = {x};
        b.g.output_ids = {out};
        const Graph before = b.g;
        EXPECT_EQ(run(b.g), 1u);
        EXPECT_EQ(alias_offset(b.g, p1), 192u);
        EXPECT_EQ(alias_offset(b.g, p2), 384u);
        expect_same_results(before, b.g);
    }
    for (int64_t step : {1, 2}) {
        Builder b;  // slice_copy.Tensor(y, 1, -4, None, step)
        const int32_t x = b.tensor({1, 8, 64}), y = b.tensor({1, 8, 64});
        const int32_t s = b.tensor({1, step == 1 ? 4 : 2, 64}),
                      out = b.tensor({1, step == 1 ? 4 : 2, 64});
        b.relu(x, y);
        b.call("aten.slice_copy.Tensor",
               {y, b.add(Int{1}), b.add(Int{-4}), b.add(Null{}), b.add(Int{step}), s});
        b.relu(s, out);
        b.g.input_ids = {x};
        b.g.output_ids = {out};
        const Graph before = b.g;
        EXPECT_EQ(run(b.g), step == 1 ? 1u : 0u) << step;
        if (step == 1) EXPECT_EQ(alias_offset(b.g, s), 256u);
        expect_same_results(before, b.g);
    }
}

TEST(AliasSplits, ViewsAndSplitsOfSplitsComposeTheirOffsets) {
    Builder b;
    const int32_t x = b.tensor({1, 8, 64}), y = b.tensor({1, 8, 64}), v = b.tensor({1, 8, 8, 8});
    const int32_t a = b.tensor({1, 4, 8, 8}), c = b.tensor({1, 4, 8, 8});
    const int32_t c0 = b.tensor({1, 1, 8, 8}), c1 = b.tensor({1, 3, 8, 8});
    const int32_t flat = b.tensor({1, 192}), out1 = b.tensor({1, 192}),
                  out2 = b.tensor({1, 4, 8, 8});
    b.relu(x, y);
    b.view(y, v);
    b.call(kSplit, {v, b.add(IntList{{4, 4}}), b.add(Int{1}), b.add(ValueList{{a, c}})});
    b.call(kSplit, {c, b.add(IntList{{1, 3}}), b.add(Int{1}), b.add(ValueList{{c0, c1}})});
    b.view(c1, flat);
    b.relu(flat, out1);
    b.add_op(a, c0, out2);
    b.g.input_ids = {x};
    b.g.output_ids = {out1, out2};
    const Graph before = b.g;
    EXPECT_EQ(run(b.g), 4u);
    ASSERT_EQ(b.g.alias_groups.size(), 1u);
    EXPECT_EQ(alias_offset(b.g, c), 256u);
    EXPECT_EQ(alias_offset(b.g, c0), 256u);
    EXPECT_EQ(alias_offset(b.g, c1), 320u);
    EXPECT_EQ(alias_offset(b.g, flat), 320u);
    expect_same_results(before, b.g);

    // A second run keeps the groups and their offsets.
    Graph again = before;
    EXPECT_EQ(alias_reshapes(again), 4u);
    EXPECT_EQ(alias_reshapes(again), 0u);
    EXPECT_EQ(again.alias_offsets, b.g.alias_offsets);
}

// --- graph_check's rules for offsets.

Graph offset_group() {
    SplitGraph s = split_graph({1, 8, 64}, 1, {4, 4});
    EXPECT_EQ(alias_reshapes(s.b.g), 1u);
    return s.b.g;
}

TEST(AliasOffsetsCheck, RejectsOffsetsThatBreakTheRules) {
    {
        Graph g = offset_group();
        EXPECT_NO_THROW(check_graph(g, "test"));
    }
    {
        Graph g = offset_group();
        g.alias_offsets.begin()->second = 96;  // 384 bytes
        expect_rejected(g, "not a multiple of 256");
    }
    {
        Graph g = offset_group();
        g.alias_offsets.begin()->second = 512;  // the 4 x 64 piece would end at 768 of 512
        expect_rejected(g, "reaches past the end");
    }
    {
        Graph g = offset_group();
        g.alias_offsets[0] = 64;  // the graph input, in no group
        expect_rejected(g, "in no alias group");
    }
    {
        Graph g = offset_group();
        for (int32_t id : g.alias_groups[0]) g.alias_offsets[id] = 64;  // the first member too
        expect_rejected(g, "does not start at offset 0");
    }
}

// Random graphs of [B, C, W] tensors: splits and slices along any dim, views, hashing ops,
// now and then a value written twice. Through the pass and the planner they must give the same
// results; some splits become views and some stay.
TEST(AliasSplits, RandomGraphsGiveTheSameResults) {
    std::mt19937 rng(20261201);
    size_t aliased = 0, kept = 0;
    for (int trial = 0; trial < 300; ++trial) {
        Builder b;
        const DType dtype = rng() % 4 ? DType::f32 : DType::f16;
        auto random_dims = [&] {
            return std::vector<int64_t>{rng() % 4 ? 1 : 2, 1 + int64_t(rng() % 8),
                                        rng() % 2 ? 64 : 8 * (1 + int64_t(rng() % 4))};
        };
        std::vector<int32_t> written;
        for (int i = 0, n = 1 + int(rng() % 2); i < n; ++i) {
            written.push_back(b.tensor(random_dims(), dtype));
            b.g.input_ids.push_back(written.back());
        }
        std::vector<int32_t> relu_outs;
        for (int op = 0, ops = 2 + int(rng() % 25); op < ops; ++op) {
            const int32_t src = written[rng() % written.size()];
            const std::vector<int64_t> dims = b.dims(src);
            const unsigned kind = rng() % 10;
            if (kind < 4) {
                const int64_t dim = rng() % 3 ? 1 : int64_t(rng() % dims.size());
                std::vector<int64_t> sizes;
                for (int64_t left = dims[size_t(dim)]; left > 0;) {
                    sizes.push_back(1 + int64_t(rng() % uint64_t(left)));
                    left -= sizes.back();
                }
                std::vector<int32_t> pieces;
                for (int64_t size : sizes) {
                    std::vector<int64_t> piece = dims;
                    piece[size_t(dim)] = size;
                    pieces.push_back(b.tensor(piece, dtype));
                }
                b.call(kSplit,
                       {src, b.add(IntList{sizes}), b.add(Int{dim}), b.add(ValueList{pieces})});
                written.insert(written.end(), pieces.begin(), pieces.end());
            } else if (kind < 5) {
                const int64_t size = dims[1], start = int64_t(rng() % uint64_t(size));
                const int64_t step = rng() % 3 ? 1 : 2;
                std::vector<int64_t> piece = dims;
                piece[1] = (size - start + step - 1) / step;
                const int32_t out = b.tensor(piece, dtype);
                b.call("aten.slice_copy.Tensor", {src, b.add(Int{1}), b.add(Int{start}),
                                                  b.add(Null{}), b.add(Int{step}), out});
                written.push_back(out);
            } else if (kind < 6) {
                const int32_t out = b.tensor({1, int64_t(test::numel_of(b.g, src))}, dtype);
                b.view(src, out);
                written.push_back(out);
            } else if (kind < 9 || relu_outs.empty()) {
                const int32_t out = b.tensor(random_dims(), dtype);
                b.add_op(src, written[rng() % written.size()], out);
                written.push_back(out);
                relu_outs.push_back(out);
            } else {
                // A value written a second time.
                b.relu(src, relu_outs[rng() % relu_outs.size()]);
            }
        }
        test::add_random_outputs(b.g, written, rng);
        if (b.g.output_ids.empty()) continue;
        aliased += test::passes_keep_results(b.g, rng, run);
        for (const auto& call : b.g.chain) kept += call.name == kSplit;
        if (HasFailure()) {
            ADD_FAILURE() << "trial " << trial;
            break;
        }
    }
    // The generator makes both kinds (a guard against a test that checks nothing).
    EXPECT_GT(aliased, 150u);
    EXPECT_GT(kept, 50u);
}

}  // namespace
}  // namespace wgx::graph
