// fuse_dynamic_quant: a per-row int8 choose_qparams_affine read only by the 8da4w linear layers
// of its input folds into them (wgx.linear_dq8ca_q4gsw); other forms and other readers keep it.
// (The fused op's numbers are tested on the GPU against the pair, and the quantized LLM
// fixtures run fused against PyTorch.)
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "graph/graph_check.h"
#include "graph/passes/fuse_dynamic_quant.h"
#include "graph/schema/fused_ops.h"

namespace wgx::graph {
namespace {

struct Layers {
    std::string mapping = "ASYMMETRIC";
    int64_t qmin = -128;
    bool scale_is_output = false;  // the scale is also a graph output
    bool other_input = false;      // the second layer reads another input with these qparams
};

struct Built {
    Graph g;
    int32_t x = -1, y = -1;
    std::vector<int32_t> outs;
};

// x [1, 3, 64] -> choose_qparams_affine -> two linear_dq8ca_q4gsw of x (N 16 and 8).
Built build(const Layers& l) {
    Built b;
    Graph& g = b.g;
    auto add = [&](Value v) {
        g.values.push_back(std::move(v));
        return int32_t(g.values.size() - 1);
    };
    auto tensor = [&](DType t, std::vector<int64_t> dims) {
        return add(Tensor{t, std::move(dims), -1, -1, false, ""});
    };
    b.x = tensor(DType::f32, {1, 3, 64});
    b.y = tensor(DType::f32, {1, 3, 64});
    const int32_t scale = tensor(DType::f32, {1, 3}), zp = tensor(DType::i8, {1, 3});
    g.chain.push_back({"torchao.choose_qparams_affine.default",
                       {b.x, add(String{l.mapping}), add(IntList{{1, 1, 64}}), add(Null{}),
                        add(Int{l.qmin}), add(Int{127}), add(Null{}), add(Int{6}), add(Int{1}),
                        add(Bool{false}), add(ValueList{{scale, zp}})},
                       0});
    const int32_t group = add(Int{32}), none = add(Null{});
    for (int64_t n : {16, 8}) {
        const int32_t w = tensor(DType::u8, {n, 32}), sums = tensor(DType::i32, {2, n});
        const int32_t ws = tensor(DType::f32, {2, n}), out = tensor(DType::f32, {1, 3, n});
        const int32_t in = l.other_input && n == 8 ? b.y : b.x;
        g.chain.push_back({"et_vk.linear_dq8ca_q4gsw.default",
                           {in, scale, zp, w, sums, ws, group, none, out},
                           uint32_t(g.chain.size())});
        b.outs.push_back(out);
    }
    g.input_ids = {b.x, b.y};
    g.output_ids = b.outs;
    if (l.scale_is_output) g.output_ids.push_back(scale);
    return b;
}

TEST(FuseDynamicQuant, FoldsIntoEveryLayerOfTheInput) {
    Built b = build({});
    EXPECT_EQ(fuse_dynamic_quant(b.g), 1u);
    using S = schema::LinearDq8caOwnQparams;
    ASSERT_EQ(b.g.chain.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        const OpCall& op = b.g.chain[i];
        EXPECT_EQ(op.name, S::name);
        ASSERT_EQ(op.args.size(), S::count);
        EXPECT_EQ(op.args[S::input], b.x);
        EXPECT_EQ(std::get<Double>(b.g.values[size_t(op.args[S::eps])]).value,
                  double(std::numeric_limits<float>::min()));
        EXPECT_TRUE(std::holds_alternative<Null>(b.g.values[size_t(op.args[S::bias])]));
        EXPECT_TRUE(std::holds_alternative<Null>(b.g.values[size_t(op.args[S::weight_sums])]));
        EXPECT_EQ(op.args[S::out], b.outs[i]);
    }
    check_graph(b.g, "fused");
}

TEST(FuseDynamicQuant, OtherFormsAndReadersStay) {
    const std::vector<std::pair<const char*, Layers>> misses = {
        {"symmetric", {"SYMMETRIC"}},
        {"another range", {"ASYMMETRIC", -127}},
        {"scale read elsewhere", {"ASYMMETRIC", -128, true}},
        {"a layer of another input", {"ASYMMETRIC", -128, false, true}},
    };
    for (const auto& [what, l] : misses) {
        Built b = build(l);
        EXPECT_EQ(fuse_dynamic_quant(b.g), 0u) << what;
        ASSERT_EQ(b.g.chain.size(), 3u) << what;
        EXPECT_EQ(b.g.chain[0].name, "torchao.choose_qparams_affine.default") << what;
    }
}

}  // namespace
}  // namespace wgx::graph
