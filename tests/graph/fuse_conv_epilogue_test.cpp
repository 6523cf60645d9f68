// fuse_conv_epilogue: which convolution + add (+ activation) patterns become one
// wgx.conv_add_clamp call, which are left alone, and what happens to the memory plan; and
// fuse_conv_activation: convolution + silu / hardswish into one wgx.conv_activation call.
// (That the fused calls compute the same numbers is tested on the GPU: tests/unit
// conv_ops_test ConvAddClamp and ConvActivation, and every model fixture runs fused against
// PyTorch.)
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/passes/fuse_all.h"
#include "graph/passes/fuse_conv_epilogue.h"
#include "graph_compare.h"

namespace wgx::graph {
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
        g.constants = {{std::span(*bytes).first(4 * 81), "w"},
                       {std::span(*bytes).last(4 * 3), "b"}};
        g.chain = {{"aten.convolution.default",
                    {x, w, b, stride, pad, dil, transposed, out_pad, groups, t},
                    7},
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
        {"t + t",
         [](Graph& g) {
             g.chain[1].args = {Block::t, Block::t, Block::alpha, Block::u};
         }},
        {"broadcast residual",
         [](Graph& g) {
             std::get<Tensor>(g.values[Block::r]).dims = {1, 3, 1, 1};
         }},
        {"integer residual",
         [](Graph& g) { std::get<Tensor>(g.values[Block::r]).dtype = DType::i32; }},
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

// A convolution and its activation: t = conv(x); y = silu(t). Value ids are fixed so tests can
// edit the graph before running the pass.
struct ActivatedConv {
    enum : int32_t { x, w, b, stride, pad, dil, transposed, out_pad, groups, t, y };
    Graph g;
    explicit ActivatedConv(const char* activation = "aten.silu.default", DType dtype = DType::f32) {
        auto act = [&](int32_t pool) { return Tensor{dtype, {1, 3, 4, 4}, -1, pool, false, ""}; };
        g.values = {act(0),
                    Tensor{dtype, {3, 3, 3, 3}, 0, -1, false, ""},
                    Tensor{dtype, {3}, 1, -1, false, ""},
                    IntList{{1, 1}},
                    IntList{{1, 1}},
                    IntList{{1, 1}},
                    Bool{false},
                    IntList{{0, 0}},
                    Int{1},
                    act(1),
                    act(2)};
        const size_t size = dtype == DType::f16 ? 2 : 4;
        auto bytes = std::make_shared<const std::vector<uint8_t>>(size * (81 + 3), uint8_t{0});
        g.storage.push_back(bytes);
        g.constants = {{std::span(*bytes).first(size * 81), "w"},
                       {std::span(*bytes).last(size * 3), "b"}};
        g.chain = {{"aten.convolution.default",
                    {x, w, b, stride, pad, dil, transposed, out_pad, groups, t},
                    7},
                   {activation, {t, y}, 8}};
        g.input_ids = {x};
        g.output_ids = {y};
    }
};

// The fused call: the convolution's nine arguments, the activation's name, y.
void expect_conv_activation(const Graph& g, const OpCall& f, const std::string& activation) {
    EXPECT_EQ(f.name, "wgx.conv_activation.default");
    EXPECT_EQ(f.debug_handle, 7u);
    ASSERT_EQ(f.args.size(), 11u);
    for (int32_t i = 0; i < 9; ++i) EXPECT_EQ(f.args[i], i);
    EXPECT_EQ(std::get<String>(g.values[f.args[9]]).value, activation);
    EXPECT_EQ(f.args[10], ActivatedConv::y);
}

TEST(FuseConvActivation, SiluAndHardswishBecomeOneCall) {
    for (auto [op_name, activation] :
         {std::pair{"aten.silu.default", "silu"}, {"aten.hardswish.default", "hardswish"}}) {
        for (DType dtype : {DType::f32, DType::f16}) {
            ActivatedConv c(op_name, dtype);
            Graph& g = c.g;
            EXPECT_EQ(fuse_conv_activation(g), 1u) << op_name;
            ASSERT_EQ(g.chain.size(), 1u) << op_name;
            expect_conv_activation(g, g.chain[0], activation);
            EXPECT_EQ(tensor(g, ActivatedConv::x).mem_obj_id, -1);  // moved: planned anew
            EXPECT_EQ(tensor(g, ActivatedConv::y).mem_obj_id, 2);
            check_graph(g, "fused");
            assign_memory_pools(g);
            test::expect_pools_disjoint(g);
        }
    }
}

// Unlike the add's fusion, every convolution path applies the activation: grouped (depthwise)
// and transposed convolutions fuse too.
TEST(FuseConvActivation, DepthwiseAndTransposedFuse) {
    ActivatedConv depthwise;
    depthwise.g.values[ActivatedConv::groups] = Int{3};
    std::get<Tensor>(depthwise.g.values[ActivatedConv::w]).dims = {3, 1, 3, 3};
    EXPECT_EQ(fuse_conv_activation(depthwise.g), 1u);
    ActivatedConv transposed;
    transposed.g.values[ActivatedConv::transposed] = Bool{true};
    EXPECT_EQ(fuse_conv_activation(transposed.g), 1u);
}

// Each edit makes the pattern unsafe or not this one: nothing changes.
TEST(FuseConvActivation, LeavesOtherPatternsAlone) {
    struct Case {
        std::string what;
        void (*edit)(Graph&);
    };
    const Case cases[] = {
        {"conv output also a graph output",
         [](Graph& g) { g.output_ids.push_back(ActivatedConv::t); }},
        {"conv output read twice",
         [](Graph& g) {
             g.values.push_back(g.values[ActivatedConv::y]);
             g.chain.push_back(
                 {"aten.relu.default", {ActivatedConv::t, int32_t(g.values.size() - 1)}, 9});
             g.output_ids.push_back(int32_t(g.values.size() - 1));
         }},
        {"another activation", [](Graph& g) { g.chain[1].name = "aten.sigmoid.default"; }},
        {"activation of another shape",
         [](Graph& g) {
             std::get<Tensor>(g.values[ActivatedConv::y]).dims = {1, 3, 16};
         }},
        {"activation of another dtype",
         [](Graph& g) { std::get<Tensor>(g.values[ActivatedConv::y]).dtype = DType::f16; }},
        {"integer convolution",
         [](Graph& g) {
             std::get<Tensor>(g.values[ActivatedConv::t]).dtype = DType::i32;
             std::get<Tensor>(g.values[ActivatedConv::y]).dtype = DType::i32;
         }},
        {"input written twice",
         [](Graph& g) {
             g.values.push_back(g.values[ActivatedConv::x]);
             const int32_t r = int32_t(g.values.size() - 1);
             g.input_ids = {r};
             g.chain.insert(g.chain.begin(), {"aten.relu.default", {r, ActivatedConv::x}, 0});
             g.chain.insert(g.chain.begin(), {"aten.relu.default", {r, ActivatedConv::x}, 0});
         }},
    };
    for (const Case& c : cases) {
        ActivatedConv blk;
        c.edit(blk.g);
        const size_t before = blk.g.chain.size();
        EXPECT_EQ(fuse_conv_activation(blk.g), 0u) << c.what;
        EXPECT_EQ(blk.g.chain.size(), before) << c.what;
        EXPECT_EQ(blk.g.chain[before - (c.what == "conv output read twice" ? 3 : 2)].name,
                  "aten.convolution.default")
            << c.what;
        EXPECT_EQ(tensor(blk.g, ActivatedConv::x).mem_obj_id, 0) << c.what;  // plan untouched
    }
}

// A convolution + add + relu block is fuse_conv_epilogue's; this pass leaves its result alone.
TEST(FuseConvActivation, LeavesTheResidualFusionAlone) {
    Block blk;
    EXPECT_EQ(fuse_conv_epilogue(blk.g), 1u);
    EXPECT_EQ(fuse_conv_activation(blk.g), 0u);
    ASSERT_EQ(blk.g.chain.size(), 1u);
    EXPECT_EQ(blk.g.chain[0].name, "wgx.conv_add_clamp.default");
}

// All passes in their order: a SiLU as exporters decompose it, t * sigmoid(t), becomes
// aten.silu (fuse_activations) and then part of the convolution.
TEST(FuseConvActivation, DecomposedSiluAfterAllPasses) {
    ActivatedConv c;
    Graph& g = c.g;
    g.values.push_back(g.values[ActivatedConv::y]);
    const int32_t s = int32_t(g.values.size() - 1);
    g.chain[1] = {"aten.sigmoid.default", {ActivatedConv::t, s}, 8};
    g.chain.push_back({"aten.mul.Tensor", {ActivatedConv::t, s, ActivatedConv::y}, 9});
    run_fusion_passes(g);
    ASSERT_EQ(g.chain.size(), 1u);
    expect_conv_activation(g, g.chain[0], "silu");
    check_graph(g, "fused");
}

}  // namespace
}  // namespace wgx::graph
