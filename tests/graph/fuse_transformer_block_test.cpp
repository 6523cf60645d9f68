// fuse_silu_mul, fuse_gated_linear and fuse_residual_norm: a SwiGLU gate (silu(a) * b), that
// gate with the two 4-bit layers before it, and a residual add with the RMS norm after it each
// become one call; other forms and other readers keep the calls. (The
// fused ops' numbers are tested on the GPU against float64 in llm_ops_test.cpp, and the LLM
// fixtures run fused against PyTorch.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/graph_check.h"
#include "graph/passes/fuse_gated_linear.h"
#include "graph/passes/fuse_residual_norm.h"
#include "graph/passes/fuse_silu_mul.h"
#include "graph/schema/fused_ops.h"

namespace wgx::graph {
namespace {

struct Builder {
    Graph g;
    int32_t add(Value v) {
        g.values.push_back(std::move(v));
        return int32_t(g.values.size() - 1);
    }
    int32_t tensor(std::vector<int64_t> dims, DType t = DType::f32) {
        return add(Tensor{t, std::move(dims), -1, -1, false, ""});
    }
    void call(std::string name, std::vector<int32_t> args) {
        g.chain.push_back({std::move(name), std::move(args), uint32_t(g.chain.size())});
    }
};

std::vector<std::string> names(const Graph& g) {
    std::vector<std::string> n;
    for (const OpCall& op : g.chain) n.push_back(op.name);
    return n;
}

// The gated unit: s = silu(a); y = mul(s, b) (or mul(b, s)), shapes as given.
struct Gate {
    bool silu_first = true;
    std::vector<int64_t> b_dims = {1, 3, 40};
    bool s_is_output = false;  // silu's output also leaves the graph
};

struct BuiltGate {
    Builder b;
    int32_t a = -1, bb = -1, y = -1;
};

BuiltGate gate(const Gate& c) {
    BuiltGate r;
    Builder& b = r.b;
    r.a = b.tensor({1, 3, 40});
    r.bb = b.tensor(c.b_dims);
    const int32_t s = b.tensor({1, 3, 40});
    r.y = b.tensor({1, 3, 40});
    b.call("aten.silu.default", {r.a, s});
    b.call("aten.mul.Tensor", c.silu_first ? std::vector{s, r.bb, r.y} : std::vector{r.bb, s, r.y});
    b.g.input_ids = {r.a, r.bb};
    b.g.output_ids = {r.y};
    if (c.s_is_output) b.g.output_ids.push_back(s);
    return r;
}

TEST(FuseSiluMul, GateBecomesOneCall) {
    for (bool silu_first : {true, false}) {
        BuiltGate r = gate({silu_first});
        EXPECT_EQ(fuse_silu_mul(r.b.g), 1u);
        using S = schema::SiluMul;
        ASSERT_EQ(names(r.b.g), std::vector<std::string>{std::string(S::name)});
        const OpCall& op = r.b.g.chain[0];
        EXPECT_EQ(op.args[S::self], r.a);
        EXPECT_EQ(op.args[S::other], r.bb);
        EXPECT_EQ(op.args[S::out], r.y);
        check_graph(r.b.g, "fused");
    }
}

TEST(FuseSiluMul, OtherFormsStay) {
    for (const auto& [what, c] : std::vector<std::pair<const char*, Gate>>{
             {"a broadcast operand", {true, {1, 1, 40}}},
             {"silu's output read elsewhere", {true, {1, 3, 40}, true}}}) {
        BuiltGate r = gate(c);
        EXPECT_EQ(fuse_silu_mul(r.b.g), 0u) << what;
        EXPECT_EQ(names(r.b.g), (std::vector<std::string>{"aten.silu.default", "aten.mul.Tensor"}))
            << what;
    }
}

// Two 4-bit layers of x (et_vk.linear_q4gsw, each through a view that keeps its dims, as the
// exporter writes them), then wgx.silu_mul of their outputs.
struct Pair {
    bool bias = false;           // the up layer has a bias
    bool other_input = false;    // the up layer reads another tensor
    bool up_read_twice = false;  // the up layer's output also leaves the graph
};

struct BuiltPair {
    Builder b;
    int32_t x = -1, gw = -1, gs = -1, uw = -1, us = -1, group = -1, y = -1;
};

BuiltPair pair(const Pair& c) {
    BuiltPair r;
    Builder& b = r.b;
    r.x = b.tensor({1, 3, 64});
    const int32_t x2 = b.tensor({1, 3, 64});
    r.gw = b.tensor({40, 32}, DType::u8);
    r.gs = b.tensor({2, 40});
    r.uw = b.tensor({40, 32}, DType::u8);
    r.us = b.tensor({2, 40});
    r.group = b.add(Int{32});
    const int32_t bias = b.tensor({40}), shape = b.add(IntList{{1, 3, 40}});
    std::vector<int32_t> viewed;
    for (int layer = 0; layer < 2; ++layer) {
        const int32_t out = b.tensor({1, 3, 40}), view = b.tensor({1, 3, 40});
        const bool up = layer == 1;
        std::vector<int32_t> args = {up && c.other_input ? x2 : r.x, up ? r.uw : r.gw,
                                     up ? r.us : r.gs, r.group};
        if (up && c.bias) args.push_back(bias);
        args.push_back(out);
        b.call("et_vk.linear_q4gsw.default", args);
        b.call("aten.view_copy.default", {out, shape, view});
        viewed.push_back(view);
    }
    r.y = b.tensor({1, 3, 40});
    b.call(std::string(schema::SiluMul::name), {viewed[0], viewed[1], r.y});
    b.g.input_ids = {r.x, x2};
    b.g.output_ids = {r.y};
    if (c.up_read_twice) b.g.output_ids.push_back(viewed[1]);
    return r;
}

TEST(FuseGatedLinear, PairAndGateBecomeOneCall) {
    BuiltPair r = pair({});
    EXPECT_EQ(fuse_gated_linear(r.b.g), 1u);
    using S = schema::GatedLinearQ4gsw;
    ASSERT_EQ(names(r.b.g), std::vector<std::string>{std::string(S::name)});
    const OpCall& op = r.b.g.chain[0];
    EXPECT_EQ(op.args[S::input], r.x);
    EXPECT_TRUE(std::holds_alternative<Null>(r.b.g.values[size_t(op.args[S::eps])]));
    EXPECT_EQ(op.args[S::gate_weights], r.gw);
    EXPECT_EQ(op.args[S::gate_scales], r.gs);
    EXPECT_EQ(op.args[S::up_weights], r.uw);
    EXPECT_EQ(op.args[S::up_scales], r.us);
    EXPECT_EQ(op.args[S::group_size], r.group);
    EXPECT_EQ(op.args[S::out], r.y);
    check_graph(r.b.g, "fused");
}

TEST(FuseGatedLinear, OtherFormsStay) {
    for (const auto& [what, c] : std::vector<std::pair<const char*, Pair>>{
             {"a bias", {true}},
             {"another input", {false, true}},
             {"an output read elsewhere", {false, false, true}}}) {
        BuiltPair r = pair(c);
        EXPECT_EQ(fuse_gated_linear(r.b.g), 0u) << what;
        EXPECT_EQ(r.b.g.chain.size(), 5u) << what;
    }
}

// A residual add and its norm: h = add(a, b, alpha); [something]; n = rms_norm(h).
struct Residual {
    double alpha = 1.0;
    bool between = false;  // a call between the add and the norm
    bool norm_reads_other = false;
};

struct BuiltResidual {
    Builder b;
    int32_t a = -1, bb = -1, h = -1, w = -1, eps = -1, n = -1;
};

BuiltResidual residual(const Residual& c) {
    BuiltResidual r;
    Builder& b = r.b;
    r.a = b.tensor({1, 2, 64});
    r.bb = b.tensor({1, 2, 64});
    r.h = b.tensor({1, 2, 64});
    r.w = b.tensor({64});
    r.eps = b.add(Double{1e-5});
    r.n = b.tensor({1, 2, 64});
    const int32_t other = b.tensor({1, 2, 64});
    b.call("aten.add.Tensor", {r.a, r.bb, b.add(Double{c.alpha}), r.h});
    if (c.between) b.call("aten.relu.default", {r.a, other});
    b.call("et_vk.rms_norm.default", {c.norm_reads_other ? r.a : r.h, r.w, r.eps, r.n});
    b.g.input_ids = {r.a, r.bb};
    b.g.output_ids = {r.h, r.n};
    if (c.between) b.g.output_ids.push_back(other);
    return r;
}

TEST(FuseResidualNorm, AddAndNormBecomeOneCallStoringBoth) {
    BuiltResidual r = residual({});
    EXPECT_EQ(fuse_residual_norm(r.b.g), 1u);
    using S = schema::AddRmsNorm;
    ASSERT_EQ(names(r.b.g), std::vector<std::string>{std::string(S::name)});
    const OpCall& op = r.b.g.chain[0];
    EXPECT_EQ(op.args[S::self], r.a);
    EXPECT_EQ(op.args[S::other], r.bb);
    EXPECT_EQ(op.args[S::weight], r.w);
    EXPECT_EQ(op.args[S::eps], r.eps);
    const auto& outs = std::get<ValueList>(r.b.g.values[size_t(op.args[S::out])]);
    EXPECT_EQ(outs.items, (std::vector<int32_t>{r.h, r.n}));
    check_graph(r.b.g, "fused");
}

TEST(FuseResidualNorm, OtherFormsStay) {
    for (const auto& [what, c] : std::vector<std::pair<const char*, Residual>>{
             {"alpha 2", {2.0}},
             {"a call in between", {1.0, true}},
             {"a norm of another tensor", {1.0, false, true}}}) {
        BuiltResidual r = residual(c);
        EXPECT_EQ(fuse_residual_norm(r.b.g), 0u) << what;
        EXPECT_EQ(r.b.g.chain.front().name, "aten.add.Tensor") << what;
    }
}

}  // namespace
}  // namespace wgx::graph
