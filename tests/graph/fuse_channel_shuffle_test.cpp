// fuse_channel_shuffle: which cat -> view -> permute -> view -> split patterns become one
// wgx.channel_shuffle call, which are left alone, and what happens to the memory plan.
// (That the fused call gives the numbers of the unfused graph is tested on the GPU: tests/unit
// channel_shuffle_test ProgramChannelShuffle runs such a graph both ways, and the shufflenet
// model fixture runs the fused graph against PyTorch.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/passes/fuse_channel_shuffle.h"
#include "graph_compare.h"
#include "model_fixtures.h"

namespace wgx::graph {
namespace {

constexpr std::string_view kFused = "wgx.channel_shuffle.default";

Tensor f32(std::vector<int64_t> dims, int32_t pool = -1) {
    return Tensor{DType::f32, std::move(dims), -1, pool, false, ""};
}

// One ShuffleNetV2 block's tail, as ExecuTorch exports it, over inputs a, b of [1, 4, 3, 5]:
//   x = cat([a, b], 1); xc = clone(x); v = view(xc, [1, 2, 4, 3, 5]);
//   p = permute(v, [0, 2, 1, 3, 4]); q = view(p, [1, 8, 3, 5]); qc = clone(q);
//   (y0, y1) = split_with_sizes(qc, [4, 4], 1)
// Value ids are fixed so tests can edit the graph before running the pass.
struct Block {
    enum : int32_t {
        a,
        b,
        one,
        none,
        split5,
        whole,
        perm,
        sizes,
        ab,
        x,
        xc,
        v,
        p,
        q,
        qc,
        y0,
        y1,
        ys
    };
    Graph g;
    Block() {
        g.values = {f32({1, 4, 3, 5}, 0),
                    f32({1, 4, 3, 5}, 1),
                    Int{1},
                    Null{},
                    IntList{{1, 2, 4, 3, 5}},
                    IntList{{1, 8, 3, 5}},
                    IntList{{0, 2, 1, 3, 4}},
                    IntList{{4, 4}},
                    ValueList{{a, b}},
                    f32({1, 8, 3, 5}, 2),
                    f32({1, 8, 3, 5}, 3),
                    f32({1, 2, 4, 3, 5}, 2),
                    f32({1, 4, 2, 3, 5}, 3),
                    f32({1, 8, 3, 5}, 2),
                    f32({1, 8, 3, 5}, 3),
                    f32({1, 4, 3, 5}, 4),
                    f32({1, 4, 3, 5}, 5),
                    ValueList{{y0, y1}}};
        g.chain = {{"aten.cat.default", {ab, one, x}, 10},
                   {"aten.clone.default", {x, none, xc}, 11},
                   {"aten.view_copy.default", {xc, split5, v}, 12},
                   {"aten.permute_copy.default", {v, perm, p}, 13},
                   {"aten.view_copy.default", {p, whole, q}, 14},
                   {"aten.clone.default", {q, none, qc}, 15},
                   {"aten.split_with_sizes_copy.default", {qc, sizes, one, ys}, 16}};
        g.input_ids = {a, b};
        g.output_ids = {y0, y1};
    }
    int32_t add(Value value) {
        g.values.push_back(std::move(value));
        return int32_t(g.values.size() - 1);
    }
};

const Tensor& tensor(const Graph& g, int32_t id) { return std::get<Tensor>(g.values[id]); }

void expect_valid(Graph& g) {
    check_graph(g, "fused");
    assign_memory_pools(g);
    test::expect_pools_disjoint(g);
}

TEST(FuseChannelShuffle, BlockWithSplitBecomesOneCall) {
    Block blk;
    Graph& g = blk.g;
    EXPECT_EQ(fuse_channel_shuffle(g), 1u);
    ASSERT_EQ(g.chain.size(), 1u);
    const OpCall& f = g.chain[0];
    EXPECT_EQ(f.name, kFused);
    EXPECT_EQ(f.debug_handle, 10u);
    ASSERT_EQ(f.args.size(), 5u);
    EXPECT_EQ(f.args[0], Block::ab);
    EXPECT_EQ(std::get<Int>(g.values[f.args[1]]).value, 1);  // dim
    EXPECT_EQ(std::get<Int>(g.values[f.args[2]]).value, 2);  // groups
    EXPECT_EQ(std::get<IntList>(g.values[f.args[3]]).items, (std::vector<int64_t>{4, 4}));
    EXPECT_EQ(f.args[4], Block::ys);
    // The moved call's inputs leave the file's pools; the planner gives them new ones.
    EXPECT_EQ(tensor(g, Block::a).mem_obj_id, -1);
    EXPECT_EQ(tensor(g, Block::b).mem_obj_id, -1);
    expect_valid(g);
}

// The last block of a ShuffleNet stage: no clones, no split; the shuffled tensor is the output.
TEST(FuseChannelShuffle, WithoutSplitOrClones) {
    Block blk;
    Graph& g = blk.g;
    g.chain = {{"aten.cat.default", {Block::ab, Block::one, Block::x}, 10},
               {"aten.view_copy.default", {Block::x, Block::split5, Block::v}, 12},
               {"aten.permute_copy.default", {Block::v, Block::perm, Block::p}, 13},
               {"aten.view_copy.default", {Block::p, Block::whole, Block::q}, 14}};
    g.output_ids = {Block::q};
    EXPECT_EQ(fuse_channel_shuffle(g), 1u);
    ASSERT_EQ(g.chain.size(), 1u);
    EXPECT_EQ(g.chain[0].name, kFused);
    EXPECT_TRUE(std::holds_alternative<Null>(g.values[g.chain[0].args[3]]));
    EXPECT_EQ(g.chain[0].args[4], Block::q);
    expect_valid(g);
}

// The portable export's form: the copy sits after the permute (`.contiguous()`), two of them
// here, and none after the cat or the second view.
TEST(FuseChannelShuffle, CopiesAfterThePermute) {
    Block blk;
    Graph& g = blk.g;
    const int32_t pc = blk.add(f32({1, 4, 2, 3, 5})), pcc = blk.add(f32({1, 4, 2, 3, 5}));
    const int32_t no = blk.add(Bool{false});
    g.chain = {{"aten.cat.default", {Block::ab, Block::one, Block::x}, 10},
               {"aten.view_copy.default", {Block::x, Block::split5, Block::v}, 12},
               {"aten.permute_copy.default", {Block::v, Block::perm, Block::p}, 13},
               {"dim_order_ops._clone_dim_order.default", {Block::p, no, Block::none, pc}, 14},
               {"aten.clone.default", {pc, Block::none, pcc}, 15},
               {"aten.view_copy.default", {pcc, Block::whole, Block::q}, 16},
               {"aten.split_with_sizes_copy.default",
                {Block::q, Block::sizes, Block::one, Block::ys},
                17}};
    EXPECT_EQ(fuse_channel_shuffle(g), 1u);
    ASSERT_EQ(g.chain.size(), 1u);
    EXPECT_EQ(g.chain[0].name, kFused);
    EXPECT_EQ(g.chain[0].args[4], Block::ys);
    expect_valid(g);
}

// A split the op cannot take (along another dim) stays, reading the fused call's output.
TEST(FuseChannelShuffle, SplitAlongAnotherDimStays) {
    Block blk;
    Graph& g = blk.g;
    const int32_t two = blk.add(Int{2}), pieces = blk.add(IntList{{1, 2}});
    const int32_t s0 = blk.add(f32({1, 8, 1, 5})), s1 = blk.add(f32({1, 8, 2, 5}));
    const int32_t ss = blk.add(ValueList{{s0, s1}});
    g.chain.back().args = {Block::qc, pieces, two, ss};
    g.output_ids = {s0, s1};
    EXPECT_EQ(fuse_channel_shuffle(g), 1u);
    ASSERT_EQ(g.chain.size(), 2u);
    EXPECT_EQ(g.chain[0].name, kFused);
    EXPECT_EQ(g.chain[0].args[4], Block::qc);
    EXPECT_EQ(g.chain[1].name, "aten.split_with_sizes_copy.default");
    expect_valid(g);
}

// split_copy.Tensor (one piece size, the last piece shorter), three groups on the last dim,
// negative dims in the permute and the cat, and _clone_dim_order as the clone.
TEST(FuseChannelShuffle, SplitCopyGroupsOfThreeOnTheLastDim) {
    Graph g;
    auto add = [&](Value value) {
        g.values.push_back(std::move(value));
        return int32_t(g.values.size() - 1);
    };
    const int32_t a = add(f32({2, 3, 4})), b = add(f32({2, 3, 5}));
    const int32_t ab = add(ValueList{{a, b}}), minus1 = add(Int{-1});
    const int32_t x = add(f32({2, 3, 9}));
    const int32_t no = add(Bool{false}), order = add(IntList{{0, 1, 2}}), xc = add(f32({2, 3, 9}));
    const int32_t v = add(f32({2, 3, 3, 3})), p = add(f32({2, 3, 3, 3}));
    const int32_t q = add(f32({2, 3, 9}));
    const int32_t four = add(Int{4});
    const int32_t y0 = add(f32({2, 3, 4})), y1 = add(f32({2, 3, 4})), y2 = add(f32({2, 3, 1}));
    const int32_t ys = add(ValueList{{y0, y1, y2}});
    g.chain = {{"aten.cat.default", {ab, minus1, x}, 1},
               {"dim_order_ops._clone_dim_order.default", {x, no, order, xc}, 2},
               {"aten.view_copy.default", {xc, add(IntList{{2, 3, 3, 3}}), v}, 3},
               {"aten.permute_copy.default", {v, add(IntList{{0, 1, -1, -2}}), p}, 4},
               {"aten._unsafe_view.default", {p, add(IntList{{2, 3, 9}}), q}, 5},
               {"aten.split_copy.Tensor", {q, four, minus1, ys}, 6}};
    g.input_ids = {a, b};
    g.output_ids = {y0, y1, y2};
    EXPECT_EQ(fuse_channel_shuffle(g), 1u);
    ASSERT_EQ(g.chain.size(), 1u);
    const OpCall& f = g.chain[0];
    EXPECT_EQ(f.name, kFused);
    EXPECT_EQ(std::get<Int>(g.values[f.args[1]]).value, 2);
    EXPECT_EQ(std::get<Int>(g.values[f.args[2]]).value, 3);
    EXPECT_EQ(std::get<IntList>(g.values[f.args[3]]).items, (std::vector<int64_t>{4, 4, 1}));
    EXPECT_EQ(f.args[4], ys);
    expect_valid(g);
}

// Each edit makes the pattern unsafe or not a shuffle: nothing changes.
TEST(FuseChannelShuffle, LeavesOtherPatternsAlone) {
    struct Case {
        std::string what;
        void (*edit)(Block&);
    };
    const Case cases[] = {
        {"cat output also a graph output", [](Block& b) { b.g.output_ids.push_back(Block::x); }},
        {"permute output also a graph output",
         [](Block& b) { b.g.output_ids.push_back(Block::p); }},
        {"view read twice",
         [](Block& b) {
             const int32_t r = b.add(f32({1, 2, 4, 3, 5}));
             b.g.chain.push_back({"aten.relu.default", {Block::v, r}, 20});
             b.g.output_ids.push_back(r);
         }},
        {"permute that is no swap of the split dims",
         [](Block& b) {
             b.g.values[Block::perm] = IntList{{0, 1, 2, 4, 3}};
         }},
        {"first view splits another dim",
         [](Block& b) {
             b.g.values[Block::split5] = IntList{{1, 8, 3, 5, 1}};
             b.g.values[Block::v] = f32({1, 8, 3, 5, 1});
         }},
        {"second view not back to the cat's shape",
         [](Block& b) {
             b.g.values[Block::whole] = IntList{{1, 8, 15}};
             b.g.values[Block::q] = f32({1, 8, 15});
             b.g.values[Block::qc] = f32({1, 8, 15});
             b.g.chain.pop_back();
             b.g.output_ids = {Block::qc};
         }},
        {"cat input written twice",
         [](Block& b) {
             b.g.chain.insert(b.g.chain.begin(), {"aten.relu.default", {Block::b, Block::a}, 0});
             b.g.chain.insert(b.g.chain.begin(), {"aten.relu.default", {Block::b, Block::a}, 0});
             b.g.input_ids = {Block::b};
         }},
        {"not a cat", [](Block& b) { b.g.chain[0].name = "aten.stack.default"; }},
        {"dynamic-bound shape",
         [](Block& b) { std::get<Tensor>(b.g.values[Block::x]).dynamic_bound = true; }},
    };
    for (const Case& c : cases) {
        Block blk;
        c.edit(blk);
        const size_t before = blk.g.chain.size();
        EXPECT_EQ(fuse_channel_shuffle(blk.g), 0u) << c.what;
        EXPECT_EQ(blk.g.chain.size(), before) << c.what;
        EXPECT_EQ(tensor(blk.g, Block::b).mem_obj_id, 1) << c.what;  // plan untouched
    }
}

// The exported ShuffleNetV2 (tests/models/shufflenet_v2_x1_0): every block's shuffle becomes
// one call, with no cat, permute, split or clone left; the program tests run that fused graph
// against PyTorch.
TEST(FuseChannelShuffle, ShuffleNetV2) {
    Graph g = test::load_model_fixture("shufflenet_v2_x1_0");
    const int cats = test::op_counts(g)["aten.cat.default"];
    ASSERT_GT(cats, 0);
    EXPECT_EQ(fuse_channel_shuffle(g), size_t(cats));
    auto after = test::op_counts(g);
    for (const char* gone :
         {"aten.cat.default", "aten.permute_copy.default", "aten.split_with_sizes_copy.default",
          "aten.clone.default", "aten.view_copy.default"}) {
        EXPECT_EQ(after[gone], 0) << gone;
    }
    EXPECT_EQ(after[std::string(kFused)], cats);
    expect_valid(g);
}

}  // namespace
}  // namespace wgx::graph
