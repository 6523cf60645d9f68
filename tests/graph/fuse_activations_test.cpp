// fuse_activations: decomposed SiLU, hardsigmoid and hardswish chains become one op, with the
// exporters' wrapped scalar constants; near misses are left alone. (The ops' numbers are
// tested on the GPU by the unit tests, and every model fixture runs fused against PyTorch.)
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/passes/fuse_activations.h"
#include "graph_compare.h"
#include "model_fixtures.h"

namespace wgx::graph {
namespace {

// A graph builder: float32 [1, 4, 3, 3] activations, scalar constants, calls.
struct Builder {
    Graph g;
    std::shared_ptr<std::vector<uint8_t>> bytes = std::make_shared<std::vector<uint8_t>>();
    std::vector<std::pair<size_t, size_t>> spans;  // constant byte ranges (bytes may grow)

    int32_t add(Value v) {
        g.values.push_back(std::move(v));
        return int32_t(g.values.size() - 1);
    }
    int32_t activation(int32_t pool = -1) {
        return add(Tensor{DType::f32, {1, 4, 3, 3}, -1, pool, false, ""});
    }
    // A 0-dim int64 constant (as exporters store `3` and `6`).
    int32_t constant(int64_t v) {
        const size_t at = bytes->size();
        bytes->resize(at + 8);
        std::memcpy(bytes->data() + at, &v, 8);
        spans.emplace_back(at, 8);
        return add(Tensor{DType::i64, {}, int32_t(spans.size() - 1), -1, false, ""});
    }
    // The constant wrapped as the exporters do: _to_dim_order_copy to float32, then clone.
    int32_t wrapped(int64_t v) {
        const int32_t c = constant(v);
        const int32_t none = add(Null{}), no = add(Bool{false}), order = add(IntList{{}});
        const int32_t f = add(Tensor{DType::f32, {}, -1, -1, false, ""});
        call("dim_order_ops._to_dim_order_copy.default", {c, none, none, none, none, no, order, f});
        const int32_t k = add(Tensor{DType::f32, {}, -1, -1, false, ""});
        call("aten.clone.default", {f, none, k});
        return k;
    }
    void call(std::string name, std::vector<int32_t> args) {
        g.chain.push_back({std::move(name), std::move(args), uint32_t(g.chain.size())});
    }
    Graph& finish(std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
        g.storage.push_back(bytes);
        for (auto [at, n] : spans) g.constants.push_back({std::span(*bytes).subspan(at, n), "c"});
        g.input_ids = std::move(inputs);
        g.output_ids = std::move(outputs);
        return g;
    }
};

std::vector<std::string> names(const Graph& g) {
    std::vector<std::string> out;
    for (const OpCall& op : g.chain) out.push_back(op.name);
    return out;
}

using Names = std::vector<std::string>;

void expect_valid(Graph& g) {
    check_graph(g, "fused");
    assign_memory_pools(g);
    test::expect_pools_disjoint(g);
}

TEST(FuseActivations, SiluEitherOrder) {
    for (bool sigmoid_first : {true, false}) {
        Builder b;
        const int32_t x = b.activation(), s = b.activation(), y = b.activation();
        b.call("aten.sigmoid.default", {x, s});
        b.call("aten.mul.Tensor", sigmoid_first ? std::vector{s, x, y} : std::vector{x, s, y});
        Graph& g = b.finish({x}, {y});
        EXPECT_EQ(fuse_activations(g), 1u);
        EXPECT_EQ(names(g), Names{"aten.silu.default"});
        EXPECT_EQ(g.chain[0].args, (std::vector<int32_t>{x, y}));
        expect_valid(g);
    }
}

// MobileNetV3's gate: hardsigmoid(x) = div(clamp(clamp(x + 3, 0, none), none, 6), 6) with
// wrapped constants, then multiplied into another tensor (so it stays a hardsigmoid).
TEST(FuseActivations, HardsigmoidWithWrappedConstants) {
    Builder b;
    const int32_t x = b.activation(5), feature = b.activation(6);
    const int32_t three = b.wrapped(3), six = b.wrapped(6);
    const int32_t one = b.add(Int{1}), zero = b.add(Double{0.0}), none = b.add(Null{}),
                  six_int = b.add(Int{6});
    const int32_t u1 = b.activation(), u2 = b.activation(), u3 = b.activation(), h = b.activation(),
                  y = b.activation();
    b.call("aten.add.Tensor", {x, three, one, u1});
    b.call("aten.clamp.default", {u1, zero, none, u2});
    b.call("aten.clamp.default", {u2, none, six_int, u3});
    b.call("aten.div.Tensor", {u3, six, h});
    b.call("aten.mul.Tensor", {h, feature, y});
    Graph& g = b.finish({x, feature}, {y});
    EXPECT_EQ(fuse_activations(g), 1u);
    // The gate becomes one call; the wrapped constants' copies went with the calls that read
    // them.
    EXPECT_EQ(names(g), Names{"wgx.mul_hardsigmoid.default"});
    EXPECT_EQ(g.chain[0].args, (std::vector<int32_t>{feature, x, y}));
    EXPECT_EQ(std::get<Tensor>(g.values[x]).mem_obj_id, -1);  // read later: re-planned
    expect_valid(g);
}

// Without the multiplication the hardsigmoid stands alone.
TEST(FuseActivations, HardsigmoidAlone) {
    Builder b;
    const int32_t x = b.activation();
    const int32_t three = b.wrapped(3), six = b.wrapped(6);
    const int32_t zero = b.add(Int{0}), six_int = b.add(Int{6});
    const int32_t u1 = b.activation(), u2 = b.activation(), h = b.activation();
    b.call("aten.add.Tensor", {x, three, u1});
    b.call("aten.hardtanh.default", {u1, zero, six_int, u2});
    b.call("aten.div.Tensor", {u2, six, h});
    Graph& g = b.finish({x}, {h});
    EXPECT_EQ(fuse_activations(g), 1u);
    EXPECT_EQ(names(g), Names{"aten.hardsigmoid.default"});
    EXPECT_EQ(g.chain[0].args, (std::vector<int32_t>{x, h}));
    expect_valid(g);
}

// EfficientNet's gate: y * sigmoid(s), s a [1, C, 1, 1] squeeze broadcast into y.
TEST(FuseActivations, SigmoidGate) {
    Builder b;
    const int32_t y = b.activation();
    const int32_t s = b.add(Tensor{DType::f32, {1, 4, 1, 1}, -1, -1, false, ""});
    const int32_t g1 = b.add(Tensor{DType::f32, {1, 4, 1, 1}, -1, -1, false, ""});
    const int32_t out = b.activation();
    b.call("aten.sigmoid.default", {s, g1});
    b.call("aten.mul.Tensor", {y, g1, out});
    Graph& g = b.finish({y, s}, {out});
    EXPECT_EQ(fuse_activations(g), 1u);
    EXPECT_EQ(names(g), Names{"wgx.mul_sigmoid.default"});
    EXPECT_EQ(g.chain[0].args, (std::vector<int32_t>{y, s, out}));
    expect_valid(g);
}

TEST(FuseActivations, HardswishFromHardtanhAndMultiplyBySixth) {
    Builder b;
    const int32_t x = b.activation();
    const int32_t three = b.constant(3);
    const int32_t sixth = b.add(Tensor{DType::f32, {}, 1, -1, false, ""});
    b.spans.emplace_back(b.bytes->size(), 4);
    const float v = 1.0f / 6.0f;
    b.bytes->resize(b.bytes->size() + 4);
    std::memcpy(b.bytes->data() + b.bytes->size() - 4, &v, 4);
    const int32_t zero = b.add(Int{0}), six = b.add(Int{6});
    const int32_t u1 = b.activation(), u2 = b.activation(), h = b.activation(), y = b.activation();
    b.call("aten.add.Tensor", {three, x, u1});
    b.call("aten.hardtanh.default", {u1, zero, six, u2});
    b.call("aten.mul.Tensor", {u2, sixth, h});
    b.call("aten.mul.Tensor", {x, h, y});
    Graph& g = b.finish({x}, {y});
    EXPECT_EQ(fuse_activations(g), 1u);
    EXPECT_EQ(names(g), Names{"aten.hardswish.default"});
    EXPECT_EQ(g.chain[0].args, (std::vector<int32_t>{x, y}));
    expect_valid(g);
}

// PyTorch's own decomposition: x * clamp(x + 3, 0, 6), then / 6.
TEST(FuseActivations, HardswishMultipliedBeforeTheDivision) {
    Builder b;
    const int32_t x = b.activation(2);
    const int32_t three = b.wrapped(3), six = b.wrapped(6);
    const int32_t one = b.add(Int{1}), zero = b.add(Int{0}), none = b.add(Null{}),
                  six_int = b.add(Int{6});
    const int32_t u1 = b.activation(), u2 = b.activation(), u3 = b.activation(), w = b.activation(),
                  y = b.activation();
    b.call("aten.add.Tensor", {x, three, one, u1});
    b.call("aten.clamp.default", {u1, zero, none, u2});
    b.call("aten.clamp.default", {u2, none, six_int, u3});
    b.call("aten.mul.Tensor", {x, u3, w});
    b.call("aten.div.Tensor", {w, six, y});
    Graph& g = b.finish({x}, {y});
    EXPECT_EQ(fuse_activations(g), 1u);
    EXPECT_EQ(names(g), Names{"aten.hardswish.default"});
    EXPECT_EQ(g.chain[0].args, (std::vector<int32_t>{x, y}));
    expect_valid(g);
}

// Each near miss stays as it was.
TEST(FuseActivations, LeavesNearMissesAlone) {
    struct Case {
        std::string what;
        int64_t addend = 3, divisor = 6;
        double lo = 0.0, hi = 6.0;
        bool sum_is_output = false;
    };
    for (const Case& c : {Case{"x + 2", 2}, Case{"/ 5", 3, 5}, Case{"clamp to [0, 5]", 3, 6, 0, 5},
                          Case{"clamp to [-1, 6]", 3, 6, -1, 6},
                          Case{"intermediate is an output", 3, 6, 0, 6, true}}) {
        Builder b;
        const int32_t x = b.activation();
        const int32_t a = b.constant(c.addend), d = b.constant(c.divisor);
        const int32_t lo = b.add(Double{c.lo}), hi = b.add(Double{c.hi});
        const int32_t u1 = b.activation(), u2 = b.activation(), h = b.activation();
        b.call("aten.add.Tensor", {x, a, u1});
        b.call("aten.clamp.default", {u1, lo, hi, u2});
        b.call("aten.div.Tensor", {u2, d, h});
        Graph& g = b.finish({x}, c.sum_is_output ? std::vector{h, u1} : std::vector{h});
        EXPECT_EQ(fuse_activations(g), 0u) << c.what;
        EXPECT_EQ(g.chain.size(), 3u) << c.what;
    }
    // A sigmoid read twice, and a gate whose product broadcasts the other operand (the gate is
    // the larger tensor): no rewrite.
    Builder b;
    const int32_t x = b.activation(), z = b.activation(), s = b.activation(), y = b.activation(),
                  y2 = b.activation();
    const int32_t small = b.add(Tensor{DType::f32, {1, 4, 1, 1}, -1, -1, false, ""});
    b.call("aten.sigmoid.default", {x, s});
    b.call("aten.mul.Tensor", {z, s, y});
    b.call("aten.relu.default", {s, y2});
    const int32_t s2 = b.activation(), y3 = b.activation();
    b.call("aten.sigmoid.default", {z, s2});
    b.call("aten.mul.Tensor", {small, s2, y3});
    Graph& g = b.finish({x, z, small}, {y, y2, y3});
    EXPECT_EQ(fuse_activations(g), 0u);
    EXPECT_EQ(g.chain.size(), 5u);
}

// The ExecuTorch 1.2 export of MobileNetV3 (tests/models/mobilenet_v3_large_et12, the form the
// H200 machine's exporter writes): after the pass no piece of a decomposed activation is left,
// and the program tests run that fused graph against PyTorch.
TEST(FuseActivations, ExecuTorch12MobileNetV3) {
    // Prepacks folded as Program does first: the scalars are prepacked constants.
    Graph g = test::load_model_fixture("mobilenet_v3_large_et12");
    ASSERT_GT(test::op_counts(g)["aten.clamp.default"], 0);
    EXPECT_GT(fuse_activations(g), 0u);
    auto after = test::op_counts(g);
    for (const char* gone :
         {"aten.clamp.default", "aten.div.Tensor", "dim_order_ops._to_dim_order_copy.default"}) {
        EXPECT_EQ(after[gone], 0) << gone;
    }
    // The scalars' clones went; the model's one other clone stays.
    EXPECT_EQ(after["aten.clone.default"], 1);
    EXPECT_GT(after["aten.hardswish.default"], 0);
    EXPECT_GT(after["wgx.mul_hardsigmoid.default"], 0);
    expect_valid(g);
}

}  // namespace
}  // namespace wgx::graph
