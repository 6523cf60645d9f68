// fuse_conv_epilogue: which convolution + add (+ activation) patterns become one
// wgx.conv_add_clamp call, which are left alone, and what happens to the memory plan.
// (That the fused call computes the same numbers is tested on the GPU: tests/unit
// conv_ops_test ConvAddClamp, and every model fixture runs fused against PyTorch.)
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "graph_compare.h"
#include "program/graph_check.h"
#include "program/memory_plan.h"
#include "program/passes/fuse_conv_epilogue.h"

namespace wgx::program {
namespace {

Tensor activation(int64_t c, int32_t pool = -1) {
    return Tensor{DType::f32, {1, c, 4, 4}, -1, pool, false, ""};
}

// A residual block's tail: t = conv(x); u = add(t, r); y = relu(u), with r a second input.
// Value ids are fixed so tests can edit the graph before running the pass.
struct Block {
    enum : int32_t { x, w, b, stride, pad, dil, transposed, out_pad, groups, t, r, alpha, u, y };
    Graph g;
    Block() {
        g.values = {activation(3, 0),
                    Tensor{DType::f32, {3, 3, 3, 3}, 0, -1, false, ""},
                    Tensor{DType::f32, {3}, 1, -1, false, ""},
                    IntList{{1, 1}},
                    IntList{{1, 1}},
                    IntList{{1, 1}},
                    Bool{false},
                    IntList{{0, 0}},
                    Int{1},
                    activation(3, 1),
                    activation(3, 2),
                    Int{1},
                    activation(3, 1),
                    activation(3, 3)};
        auto bytes = std::make_shared<const std::vector<uint8_t>>(4 * (81 + 3), uint8_t{0});
        g.storage.push_back(bytes);
        g.constants = {{std::span(*bytes).first(4 * 81), "w"}, {std::span(*bytes).last(4 * 3), "b"}};
        g.chain = {{"aten.convolution.default",
                    {x, w, b, stride, pad, dil, transposed, out_pad, groups, t}, 7},
                   {"aten.add.Tensor", {t, r, alpha, u}, 8},
                   {"aten.relu.default", {u, y}, 9}};
        g.input_ids = {x, r};
        g.output_ids = {y};
    }
};

const Tensor& tensor(const Graph& g, int32_t id) { return std::get<Tensor>(g.values[id]); }

TEST(FuseConvEpilogue, ResidualBlockBecomesOneCall) {
    Block blk;
    Graph& g = blk.g;
    EXPECT_EQ(fuse_conv_epilogue(g), 1u);
    ASSERT_EQ(g.chain.size(), 1u);
    const OpCall& f = g.chain[0];
    EXPECT_EQ(f.name, "wgx.conv_add_clamp.default");
    EXPECT_EQ(f.debug_handle, 7u);
    ASSERT_EQ(f.args.size(), 13u);
    for (int32_t i = 0; i < 9; ++i) EXPECT_EQ(f.args[i], i);
    EXPECT_EQ(f.args[9], Block::r);
    EXPECT_EQ(std::get<Double>(g.values[f.args[10]]).value, 0.0);  // relu: lower bound 0
    EXPECT_TRUE(std::holds_alternative<Null>(g.values[f.args[11]]));
    EXPECT_EQ(f.args[12], Block::y);
    // The moved call's inputs leave the file's pools; the planner gives them new ones.
    EXPECT_EQ(tensor(g, Block::x).mem_obj_id, -1);
    EXPECT_EQ(tensor(g, Block::r).mem_obj_id, -1);
    EXPECT_EQ(tensor(g, Block::w).mem_obj_id, -1);  // constants never had one
    check_graph(g, "fused");
    assign_memory_pools(g);
    test::expect_pools_disjoint(g);
}

TEST(FuseConvEpilogue, OperandOrderAlphaAndNoActivation) {
    Block blk;
    Graph& g = blk.g;
    g.chain[1].args = {Block::r, Block::t, Block::u};  // r + t, alpha absent
    g.chain.pop_back();                                // no relu: u is the output
    g.output_ids = {Block::u};
    EXPECT_EQ(fuse_conv_epilogue(g), 1u);
    ASSERT_EQ(g.chain.size(), 1u);
    EXPECT_EQ(g.chain[0].args[9], Block::r);
    EXPECT_TRUE(std::holds_alternative<Null>(g.values[g.chain[0].args[10]]));
    EXPECT_TRUE(std::holds_alternative<Null>(g.values[g.chain[0].args[11]]));
    EXPECT_EQ(g.chain[0].args[12], Block::u);
}

TEST(FuseConvEpilogue, HardtanhAndClampBounds) {
    for (const char* name : {"aten.hardtanh.default", "aten.clamp.default"}) {
        Block blk;
        Graph& g = blk.g;
        g.values.push_back(Double{0.0});
        g.values.push_back(Double{6.0});
        const int32_t lo = int32_t(g.values.size() - 2), hi = lo + 1;
        g.chain[2] = {name, {Block::u, lo, hi, Block::y}, 9};
        EXPECT_EQ(fuse_conv_epilogue(g), 1u) << name;
        ASSERT_EQ(g.chain.size(), 1u) << name;
        EXPECT_EQ(std::get<Double>(g.values[g.chain[0].args[10]]).value, 0.0) << name;
        EXPECT_EQ(std::get<Double>(g.values[g.chain[0].args[11]]).value, 6.0) << name;
    }
}

TEST(FuseConvEpilogue, SumReadTwiceKeepsTheActivationSeparate) {
    Block blk;
    Graph& g = blk.g;
    g.values.push_back(activation(3));
    const int32_t z = int32_t(g.values.size() - 1);
    g.chain.push_back({"aten.relu.default", {Block::u, z}, 10});  // a second reader of u
    g.output_ids = {Block::y, z};
    EXPECT_EQ(fuse_conv_epilogue(g), 1u);
    ASSERT_EQ(g.chain.size(), 3u);
    EXPECT_EQ(g.chain[0].name, "wgx.conv_add_clamp.default");
    EXPECT_EQ(g.chain[0].args[12], Block::u);
    EXPECT_EQ(g.chain[1].name, "aten.relu.default");
}

// Each edit makes the pattern unsafe or not the GEMM's: nothing changes.
TEST(FuseConvEpilogue, LeavesOtherPatternsAlone) {
    struct Case {
        std::string what;
        void (*edit)(Graph&);
    };
    const Case cases[] = {
        {"conv output also a graph output", [](Graph& g) { g.output_ids.push_back(Block::t); }},
        {"conv output read twice",
         [](Graph& g) {
             g.values.push_back(activation(3));
             g.chain.push_back({"aten.relu.default", {Block::t, int32_t(g.values.size() - 1)}, 0});
         }},
        {"grouped", [](Graph& g) { g.values[Block::groups] = Int{3}; }},
        {"transposed", [](Graph& g) { g.values[Block::transposed] = Bool{true}; }},
        {"alpha 2", [](Graph& g) { g.values[Block::alpha] = Int{2}; }},
        {"t + t", [](Graph& g) { g.chain[1].args = {Block::t, Block::t, Block::alpha, Block::u}; }},
        {"broadcast residual",
         [](Graph& g) { std::get<Tensor>(g.values[Block::r]).dims = {1, 3, 1, 1}; }},
        {"integer residual", [](Graph& g) { std::get<Tensor>(g.values[Block::r]).dtype = DType::i32; }},
        {"input written twice",
         [](Graph& g) {
             g.chain.insert(g.chain.begin(), {"aten.relu.default", {Block::r, Block::x}, 0});
             g.chain.insert(g.chain.begin(), {"aten.relu.default", {Block::r, Block::x}, 0});
         }},
        {"not an add", [](Graph& g) { g.chain[1].name = "aten.mul.Tensor"; }},
    };
    for (const Case& c : cases) {
        Block blk;
        c.edit(blk.g);
        const size_t before = blk.g.chain.size();
        EXPECT_EQ(fuse_conv_epilogue(blk.g), 0u) << c.what;
        EXPECT_EQ(blk.g.chain.size(), before) << c.what;
        EXPECT_EQ(tensor(blk.g, Block::x).mem_obj_id, 0) << c.what;  // plan untouched
    }
}

// Two convolutions feeding one add (a ResNet downsample block): the first fuses, taking the
// second's output as its residual; the second stays a plain convolution before it.
TEST(FuseConvEpilogue, TwoConvolutionsIntoOneAdd) {
    Block blk;
    Graph& g = blk.g;
    g.values.push_back(activation(3, 4));
    const int32_t t2 = int32_t(g.values.size() - 1);
    g.chain.insert(g.chain.begin() + 1,
                   {"aten.convolution.default",
                    {Block::x, Block::w, Block::b, Block::stride, Block::pad, Block::dil,
                     Block::transposed, Block::out_pad, Block::groups, t2},
                    5});
    g.chain[2].args = {Block::t, t2, Block::alpha, Block::u};
    g.input_ids = {Block::x};
    EXPECT_EQ(fuse_conv_epilogue(g), 1u);
    ASSERT_EQ(g.chain.size(), 2u);
    EXPECT_EQ(g.chain[0].name, "aten.convolution.default");
    EXPECT_EQ(g.chain[0].args.back(), t2);
    EXPECT_EQ(g.chain[1].name, "wgx.conv_add_clamp.default");
    EXPECT_EQ(g.chain[1].args[9], t2);
    check_graph(g, "fused");
    assign_memory_pools(g);
    test::expect_pools_disjoint(g);
}

}  // namespace
}  // namespace wgx::program
