// fuse_linear_epilogue: which linear + gelu / permute / mul / add chains (with reshapes in
// between) become one wgx.linear_epilogue call, with which arguments; which are left alone; and
// that the rewritten graph still checks and plans. (That the fused call computes the same
// numbers is tested on the GPU: tests/unit linear_epilogue_test against float64 and
// program_linear_epilogue_test fused against unfused, and the ViT and ConvNeXt model fixtures
// run fused against PyTorch.)
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "copy_interpreter.h"
#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/passes/fuse_linear_epilogue.h"
#include "graph_compare.h"

namespace wgx::graph {
namespace {

using test::call_names;
using test::GraphBuilder;

constexpr const char* kFused = "wgx.linear_epilogue.default";

// The fused call's arguments, by name.
struct Fused {
    int32_t x, w, b, scale, residual, out;
    std::string activation;
    bool channels_first;
};

Fused fused_args(const Graph& g, const OpCall& op) {
    EXPECT_EQ(op.name, kFused);
    EXPECT_EQ(op.args.size(), 8u);
    auto id_or_none = [&](int32_t id) {
        return std::holds_alternative<Null>(g.values[size_t(id)]) ? -1 : id;
    };
    return Fused{op.args[0],
                 op.args[1],
                 id_or_none(op.args[2]),
                 id_or_none(op.args[4]),
                 id_or_none(op.args[5]),
                 op.args[7],
                 std::get<String>(g.values[size_t(op.args[3])]).value,
                 std::get<Bool>(g.values[size_t(op.args[6])]).value};
}

// Checks and plans the rewritten graph as a program does after its passes.
void expect_valid(Graph& g) {
    check_graph(g, "fused");
    assign_memory_pools(g);
    check_graph(g, "planned");
    test::expect_pools_disjoint(g);
}

struct Builder : GraphBuilder {
    // A float32 constant (zeros: the pass never reads constant bytes).
    int32_t constant(std::vector<int64_t> dims) {
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        auto bytes = std::make_shared<const std::vector<uint8_t>>(size_t(4 * n), uint8_t{0});
        g.storage.push_back(bytes);
        g.constants.push_back({std::span(*bytes), ""});
        return add(
            Tensor{DType::f32, std::move(dims), int32_t(g.constants.size() - 1), -1, false, ""});
    }
    void linear(int32_t x, int32_t w, int32_t b, int32_t out) {
        call("aten.linear.default", {x, w, b, out});
    }
    void gelu(int32_t x, const char* approximate, int32_t out) {
        call("aten.gelu.default", {x, add(String{approximate}), out});
    }
    void mul(int32_t a, int32_t b, int32_t out) { call("aten.mul.Tensor", {a, b, out}); }
    void add_alpha(int32_t a, int32_t b, double alpha, int32_t out) {
        call("aten.add.Tensor", {a, b, add(Double{alpha}), out});
    }
};

// ViT's attention output: t = linear(a); v = view(t, [1, 26, 48]); y = add(r, v).
struct VitResidual {
    Builder b;
    int32_t a, w, bias, t, v, r, y;
    VitResidual() {
        a = b.tensor({26, 48});
        w = b.constant({48, 48});
        bias = b.constant({48});
        t = b.tensor({26, 48});
        v = b.tensor({1, 26, 48});
        r = b.tensor({1, 26, 48});
        y = b.tensor({1, 26, 48});
        b.linear(a, w, bias, t);
        b.view(t, v);
        b.add_alpha(r, v, 1.0, y);
        b.g.input_ids = {a, r};
        b.g.output_ids = {y};
    }
};

TEST(FuseLinearEpilogue, VitResidualThroughAView) {
    VitResidual vit;
    Graph& g = vit.b.g;
    EXPECT_EQ(fuse_linear_epilogue(g), 1u);
    ASSERT_EQ(call_names(g), std::vector<std::string>{kFused});
    const Fused f = fused_args(g, g.chain[0]);
    EXPECT_EQ(f.x, vit.a);
    EXPECT_EQ(f.w, vit.w);
    EXPECT_EQ(f.b, vit.bias);
    EXPECT_EQ(f.activation, "none");
    EXPECT_EQ(f.scale, -1);
    EXPECT_EQ(f.residual, vit.r);
    EXPECT_FALSE(f.channels_first);
    EXPECT_EQ(f.out, vit.y);
    EXPECT_EQ(g.chain[0].debug_handle, 0u);  // the linear layer's
    expect_valid(g);
}

// linear -> silu / hardswish (a MobileNetV3 classifier's first layer): one call with that
// activation.
TEST(FuseLinearEpilogue, SiluAndHardswishFollowingALinear) {
    for (const char* act : {"silu", "hardswish"}) {
        Builder b;
        const int32_t x = b.tensor({1, 96}), w = b.constant({40, 96}), bias = b.constant({40}),
                      h = b.tensor({1, 40}), y = b.tensor({1, 40});
        b.linear(x, w, bias, h);
        b.call(std::string("aten.") + act + ".default", {h, y});
        b.g.input_ids = {x};
        b.g.output_ids = {y};
        Graph& g = b.g;
        EXPECT_EQ(fuse_linear_epilogue(g), 1u) << act;
        ASSERT_EQ(call_names(g), (std::vector<std::string>{kFused})) << act;
        const Fused f = fused_args(g, g.chain[0]);
        EXPECT_EQ(f.activation, act);
        EXPECT_EQ(f.x, x);
        EXPECT_EQ(f.out, y);
        expect_valid(g);
    }
}

// linear -> gelu (each approximate spelling) -> linear -> add: two fused calls; the first's
// output feeds the second.
TEST(FuseLinearEpilogue, MlpBlockBecomesTwoCalls) {
    for (const char* approximate : {"none", "tanh"}) {
        Builder b;
        const int32_t x = b.tensor({26, 48}), w1 = b.constant({96, 48}), b1 = b.constant({96}),
                      h = b.tensor({26, 96}), hg = b.tensor({26, 96}), w2 = b.constant({48, 96}),
                      t = b.tensor({26, 48}), v = b.tensor({1, 26, 48}), r = b.tensor({1, 26, 48}),
                      y = b.tensor({1, 26, 48});
        b.linear(x, w1, b1, h);
        b.gelu(h, approximate, hg);
        b.call("aten.linear.default", {hg, w2, t});  // no bias argument at all
        b.view(t, v);
        b.add_op(r, v, y);
        b.g.input_ids = {x, r};
        b.g.output_ids = {y};
        Graph& g = b.g;
        EXPECT_EQ(fuse_linear_epilogue(g), 2u) << approximate;
        ASSERT_EQ(call_names(g), (std::vector<std::string>{kFused, kFused})) << approximate;
        const Fused first = fused_args(g, g.chain[0]), second = fused_args(g, g.chain[1]);
        EXPECT_EQ(first.activation, std::string(approximate) == "none" ? "gelu" : "gelu_tanh");
        EXPECT_EQ(first.out, hg);
        EXPECT_EQ(first.residual, -1);
        EXPECT_EQ(second.x, hg);
        EXPECT_EQ(second.b, -1);
        EXPECT_EQ(second.activation, "none");
        EXPECT_EQ(second.residual, r);
        EXPECT_EQ(second.out, y);
        expect_valid(g);
    }
}

// ConvNeXt's block tail: t = linear(h) [400, 16]; v = view(t, [1, 20, 20, 16]);
// p = permute(v, [0, 3, 1, 2]); s = mul(gamma [16, 1, 1], p); y = add(s, r).
struct ConvNextTail {
    Builder b;
    int32_t h, w, bias, t, v, p, gamma, s, r, y;
    ConvNextTail() {
        h = b.tensor({400, 64});
        w = b.constant({16, 64});
        bias = b.constant({16});
        t = b.tensor({400, 16});
        v = b.tensor({1, 20, 20, 16});
        p = b.tensor({1, 16, 20, 20});
        gamma = b.constant({16, 1, 1});
        s = b.tensor({1, 16, 20, 20});
        r = b.tensor({1, 16, 20, 20});
        y = b.tensor({1, 16, 20, 20});
        b.linear(h, w, bias, t);
        b.view(t, v);
        b.permute(v, {0, 3, 1, 2}, p);
        b.mul(gamma, p, s);
        b.add_alpha(s, r, 1.0, y);
        b.g.input_ids = {h, r};
        b.g.output_ids = {y};
    }
};

TEST(FuseLinearEpilogue, ConvNextLayerScaleAndResidualChannelsFirst) {
    ConvNextTail cn;
    Graph& g = cn.b.g;
    EXPECT_EQ(fuse_linear_epilogue(g), 1u);
    ASSERT_EQ(call_names(g), std::vector<std::string>{kFused});
    const Fused f = fused_args(g, g.chain[0]);
    EXPECT_EQ(f.x, cn.h);
    EXPECT_EQ(f.scale, cn.gamma);
    EXPECT_EQ(f.residual, cn.r);
    EXPECT_TRUE(f.channels_first);
    EXPECT_EQ(f.out, cn.y);
    expect_valid(g);
}

// Each step may be absent: the chain ends at the last step taken, and the reshapes after it
// stay (they read the fused call's output).
TEST(FuseLinearEpilogue, PartialChainsAndTrailingReshapes) {
    {
        ConvNextTail cn;  // no mul, no add: the permute alone is taken
        Graph& g = cn.b.g;
        g.chain.resize(3);
        g.output_ids = {cn.p};
        EXPECT_EQ(fuse_linear_epilogue(g), 1u);
        ASSERT_EQ(call_names(g), std::vector<std::string>{kFused});
        const Fused f = fused_args(g, g.chain[0]);
        EXPECT_TRUE(f.channels_first);
        EXPECT_EQ(f.scale, -1);
        EXPECT_EQ(f.out, cn.p);
        expect_valid(g);
    }
    {
        ConvNextTail cn;  // no add: the view and permute and mul are taken
        Graph& g = cn.b.g;
        g.chain.resize(4);
        g.output_ids = {cn.s};
        EXPECT_EQ(fuse_linear_epilogue(g), 1u);
        const Fused f = fused_args(g, g.chain[0]);
        EXPECT_EQ(f.scale, cn.gamma);
        EXPECT_EQ(f.residual, -1);
        EXPECT_EQ(f.out, cn.s);
    }
    {
        VitResidual vit;  // no add: only a view follows, nothing to fuse
        Graph& g = vit.b.g;
        g.chain.resize(2);
        g.output_ids = {vit.v};
        EXPECT_EQ(fuse_linear_epilogue(g), 0u);
        EXPECT_EQ(g.chain.size(), 2u);
    }
    {
        Builder b;  // linear -> gelu -> view: the view stays after the fused call
        const int32_t x = b.tensor({5, 8}), w = b.constant({6, 8}), t = b.tensor({5, 6}),
                      u = b.tensor({5, 6}), v = b.tensor({30});
        b.call("aten.linear.default", {x, w, t});
        b.call("aten.gelu.default", {t, u});  // approximate omitted: "none"
        b.view(u, v);
        b.g.input_ids = {x};
        b.g.output_ids = {v};
        EXPECT_EQ(fuse_linear_epilogue(b.g), 1u);
        ASSERT_EQ(call_names(b.g), (std::vector<std::string>{kFused, "aten.view_copy.default"}));
        EXPECT_EQ(fused_args(b.g, b.g.chain[0]).activation, "gelu");
        EXPECT_EQ(fused_args(b.g, b.g.chain[0]).out, u);
        expect_valid(b.g);
    }
    {
        Builder b;  // linear -> add -> gelu: the add is taken, the gelu (after it) is not
        const int32_t x = b.tensor({5, 8}), w = b.constant({6, 8}), t = b.tensor({5, 6}),
                      r = b.tensor({5, 6}), u = b.tensor({5, 6}), y = b.tensor({5, 6});
        b.call("aten.linear.default", {x, w, t});
        b.add_op(t, r, u);
        b.call("aten.gelu.default", {u, y});
        b.g.input_ids = {x, r};
        b.g.output_ids = {y};
        EXPECT_EQ(fuse_linear_epilogue(b.g), 1u);
        ASSERT_EQ(call_names(b.g), (std::vector<std::string>{kFused, "aten.gelu.default"}));
        EXPECT_EQ(fused_args(b.g, b.g.chain[0]).activation, "none");
        EXPECT_EQ(fused_args(b.g, b.g.chain[0]).residual, r);
    }
}

// Each edit makes the chain unsafe or not the epilogue's: the linear layer stays as it is.
TEST(FuseLinearEpilogue, LeavesOtherPatternsAlone) {
    struct Case {
        std::string what;
        void (*edit)(ConvNextTail&);
    };
    const Case cases[] = {
        {"linear output also a graph output",
         [](ConvNextTail& c) { c.b.g.output_ids.push_back(c.t); }},
        {"linear output read twice",
         [](ConvNextTail& c) {
             c.b.relu(c.t, c.b.tensor({400, 16}));
         }},
        {"view output read twice",
         [](ConvNextTail& c) {
             c.b.relu(c.v, c.b.tensor({1, 20, 20, 16}));
         }},
        {"another permute",
         [](ConvNextTail& c) {
             c.b.g.values[size_t(c.b.g.chain[2].args[1])] = IntList{{0, 3, 2, 1}};
         }},
        {"integer input",
         [](ConvNextTail& c) { std::get<Tensor>(c.b.g.values[size_t(c.h)]).dtype = DType::i32; }},
        {"dynamic shape",
         [](ConvNextTail& c) { std::get<Tensor>(c.b.g.values[size_t(c.t)]).dynamic_bound = true; }},
        {"input written twice",
         [](ConvNextTail& c) {
             const int32_t z = c.b.tensor({400, 64});
             c.b.g.chain.insert(c.b.g.chain.begin(), {"aten.relu.default", {z, c.h}, 0});
             c.b.g.chain.insert(c.b.g.chain.begin(), {"aten.relu.default", {z, c.h}, 0});
             c.b.g.input_ids = {z, c.r};
         }},
        {"gelu with an unknown approximation",
         [](ConvNextTail& c) {
             c.b.g.chain.resize(1);
             const int32_t u = c.b.tensor({400, 16});
             c.b.gelu(c.t, "erf", u);
             c.b.g.output_ids = {u};
         }},
    };
    for (const Case& c : cases) {
        ConvNextTail cn;
        c.edit(cn);
        const std::vector<std::string> before = call_names(cn.b.g);
        EXPECT_EQ(fuse_linear_epilogue(cn.b.g), 0u) << c.what;
        EXPECT_EQ(call_names(cn.b.g), before) << c.what;
    }
}

// The mul and the add are taken only when they are exactly a per-feature scale and a residual
// of the output's shape: otherwise the chain ends before them (the permute is still taken).
TEST(FuseLinearEpilogue, MulAndAddMustMatchTheEpilogue) {
    struct Case {
        std::string what;
        void (*edit)(ConvNextTail&);
        size_t calls_left;  // the fused call and what stays
    };
    const Case cases[] = {
        {"gamma along the wrong axis",
         [](ConvNextTail& c) {
             std::get<Tensor>(c.b.g.values[size_t(c.gamma)]).dims = {1, 1, 16};
         },
         3},
        {"gamma of [16, 20, 1] broadcasts over more than features",
         [](ConvNextTail& c) {
             std::get<Tensor>(c.b.g.values[size_t(c.gamma)]).dims = {16, 20, 1};
         },
         3},
        {"gamma a tensor written twice",
         [](ConvNextTail& c) {
             const int32_t z = c.b.tensor({16, 1, 1});
             std::get<Tensor>(c.b.g.values[size_t(c.gamma)]).constant_id = -1;
             c.b.g.chain.insert(c.b.g.chain.begin(), {"aten.relu.default", {z, c.gamma}, 0});
             c.b.g.chain.insert(c.b.g.chain.begin(), {"aten.relu.default", {z, c.gamma}, 0});
             c.b.g.input_ids = {c.h, c.r, z};
         },
         5},
        {"alpha 2",
         [](ConvNextTail& c) { c.b.g.values[size_t(c.b.g.chain[4].args[2])] = Double{2}; }, 2},
        {"s + s", [](ConvNextTail& c) { c.b.g.chain[4].args[1] = c.s; }, 2},
        {"broadcast residual",
         [](ConvNextTail& c) {
             std::get<Tensor>(c.b.g.values[size_t(c.r)]).dims = {1, 16, 1, 1};
         },
         2},
    };
    for (const Case& c : cases) {
        ConvNextTail cn;
        c.edit(cn);
        EXPECT_EQ(fuse_linear_epilogue(cn.b.g), 1u) << c.what;
        EXPECT_EQ(cn.b.g.chain.size(), c.calls_left) << c.what;
        for (const OpCall& op : cn.b.g.chain) {
            if (op.name == kFused) EXPECT_TRUE(fused_args(cn.b.g, op).channels_first) << c.what;
        }
    }
}

// A gamma whose size matches the features but that runs along another axis of the same size
// (x [1, 16, 16, 16] with the features last, gamma [16, 1, 1] along dim 1) is not a layer scale.
TEST(FuseLinearEpilogue, ScaleAxisMustCarryTheFeatures) {
    for (bool features_last_gamma : {false, true}) {
        Builder b;
        const int32_t x = b.tensor({256, 16}), w = b.constant({16, 16}), t = b.tensor({256, 16}),
                      v = b.tensor({1, 16, 16, 16}),
                      gamma = b.constant(features_last_gamma ? std::vector<int64_t>{16}
                                                             : std::vector<int64_t>{16, 1, 1}),
                      s = b.tensor({1, 16, 16, 16});
        b.call("aten.linear.default", {x, w, t});
        b.view(t, v);
        b.mul(v, gamma, s);
        b.g.input_ids = {x};
        b.g.output_ids = {s};
        EXPECT_EQ(fuse_linear_epilogue(b.g), features_last_gamma ? 1u : 0u);
        EXPECT_EQ(b.g.chain.size(), features_last_gamma ? 1u : 3u);
        if (features_last_gamma) EXPECT_EQ(fused_args(b.g, b.g.chain[0]).scale, gamma);
    }
}

}  // namespace
}  // namespace wgx::graph
