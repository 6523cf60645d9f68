// llama.gated_delta_rule (src/ops/llm/gated_delta_rule.cpp) against a float64 reference written
// here, on random inputs (never all zeros) with outputs poisoned with NaN first: batch 1 and 2,
// odd head counts and head sizes (K != V, 1-wide), sequences of 1 (a decode step) to 37, scalar
// [B, H, T] and channelwise [B, H, T, K] decay, a random initial state. Inputs are scaled as a
// DeltaNet layer gives them: unit-norm keys, queries over sqrt(K), decay in (0, 1], beta in
// (0, 1). Tolerance: max_rel_error <= 2e-5 (float32 dot products of K terms, and a state that
// accumulates T updates; measured worst 1.3e-7 on lavapipe). Bad shapes and dtypes name the
// argument.
#include <algorithm>
#include <cmath>

#include "test_util.h"

namespace wgx::test {
namespace {

struct DeltaCase {
    int64_t B, H, T, K, V;
    bool channelwise = false;
};

std::string describe(const DeltaCase& c) {
    return "B" + std::to_string(c.B) + " H" + std::to_string(c.H) + " T" + std::to_string(c.T) +
           " K" + std::to_string(c.K) + " V" + std::to_string(c.V) +
           (c.channelwise ? " channelwise" : "");
}

// Unit rows of length `d` (scaled by `scale`), as the layer's l2-normalised keys and queries.
std::vector<float> unit_rows(size_t n, int64_t d, uint32_t seed, double scale) {
    std::vector<float> v = random_floats(n, seed);
    for (size_t r = 0; r < n; r += size_t(d)) {
        double ss = 0;
        for (int64_t i = 0; i < d; ++i) ss += double(v[r + i]) * v[r + i];
        for (int64_t i = 0; i < d; ++i) v[r + i] = float(v[r + i] / std::sqrt(ss) * scale);
    }
    return v;
}

// Values in (lo, hi), from a normal draw squashed by a sigmoid (never an end point).
std::vector<float> in_range(size_t n, uint32_t seed, double lo, double hi) {
    std::vector<float> v = random_floats(n, seed);
    for (float& x : v) x = float(lo + (hi - lo) / (1.0 + std::exp(-2.0 * x)));
    return v;
}

struct DeltaRef {
    std::vector<double> out, state;
};

// The recurrence in float64, written from its definition: per (b, h) a state S [K, V];
// S = decay * S; S += k^T (beta * (v - k S)); out = q S.
DeltaRef reference(const DeltaCase& c, const std::vector<float>& q, const std::vector<float>& k,
                   const std::vector<float>& v, const std::vector<float>& decay,
                   const std::vector<float>& beta, const std::vector<float>& initial) {
    const int64_t K = c.K, V = c.V, T = c.T;
    DeltaRef r;
    r.out.assign(size_t(c.B * c.H * T * V), 0.0);
    r.state.assign(initial.begin(), initial.end());
    for (int64_t bh = 0; bh < c.B * c.H; ++bh) {
        double* S = r.state.data() + bh * K * V;
        for (int64_t t = 0; t < T; ++t) {
            const int64_t row = bh * T + t;
            const float* qt = q.data() + row * K;
            const float* kt = k.data() + row * K;
            for (int64_t i = 0; i < K; ++i) {
                const double f = c.channelwise ? decay[size_t(row * K + i)] : decay[size_t(row)];
                for (int64_t j = 0; j < V; ++j) S[i * V + j] *= f;
            }
            for (int64_t j = 0; j < V; ++j) {
                double recalled = 0;
                for (int64_t i = 0; i < K; ++i) recalled += double(kt[i]) * S[i * V + j];
                const double delta = (v[size_t(row * V + j)] - recalled) * beta[size_t(row)];
                for (int64_t i = 0; i < K; ++i) S[i * V + j] += double(kt[i]) * delta;
            }
            for (int64_t j = 0; j < V; ++j) {
                double o = 0;
                for (int64_t i = 0; i < K; ++i) o += double(qt[i]) * S[i * V + j];
                r.out[size_t(row * V + j)] = o;
            }
        }
    }
    return r;
}

TEST(DeltaNetOps, GatedDeltaRuleMatchesFloat64Reference) {
    const std::vector<DeltaCase> cases = {
        {1, 4, 1, 16, 24},         // one decode step
        {1, 4, 8, 16, 24},         // the fixture's layer, a prompt
        {2, 3, 37, 7, 5},          // odd everything, batch 2
        {1, 1, 5, 1, 1},           // 1-wide heads
        {1, 5, 13, 32, 17, true},  // channelwise decay
        {2, 2, 3, 9, 130},         // more value columns than one workgroup
    };
    uint32_t seed = 900;
    for (const DeltaCase& c : cases) {
        const Shape qs{c.B, c.H, c.T, c.K}, vs{c.B, c.H, c.T, c.V}, hs{c.B, c.H, c.T};
        const Shape ss{c.B, c.H, c.K, c.V};
        const Shape ds = c.channelwise ? qs : hs;
        auto q = unit_rows(size_t(numel(qs)), c.K, seed++, 1.0 / std::sqrt(double(c.K)));
        auto k = unit_rows(size_t(numel(qs)), c.K, seed++, 1.0);
        auto v = random_floats(size_t(numel(vs)), seed++);
        auto decay = in_range(size_t(numel(ds)), seed++, 0.05, 1.0);
        auto beta = in_range(size_t(numel(hs)), seed++, 0.0, 1.0);
        auto initial = random_floats(size_t(numel(ss)), seed++);
        Tensor out = ctx().tensor(DType::f32, vs), state = ctx().tensor(DType::f32, ss);
        poison(out);
        poison(state);
        ctx().reset();
        ctx().record(
            op("llama.gated_delta_rule.default"),
            {ctx().tensor(DType::f32, qs).set_data(q), ctx().tensor(DType::f32, qs).set_data(k),
             ctx().tensor(DType::f32, vs).set_data(v), ctx().tensor(DType::f32, ds).set_data(decay),
             ctx().tensor(DType::f32, hs).set_data(beta),
             ctx().tensor(DType::f32, ss).set_data(initial), Arg::TensorList{out, state}});
        ctx().submit();
        const DeltaRef want = reference(c, q, k, v, decay, beta, initial);
        const double e_out = max_rel_error(out.get_data<float>(), want.out);
        const double e_state = max_rel_error(state.get_data<float>(), want.state);
        EXPECT_LE(e_out, 2e-5) << describe(c);
        EXPECT_LE(e_state, 2e-5) << describe(c);
        std::printf("[gated_delta_rule] %s: out %.2e, final state %.2e\n", describe(c).c_str(),
                    e_out, e_state);
    }
    ctx().reset();
}

// Steps of one token, each starting from the last one's final state, end where one call over
// the whole sequence does: the state carries everything (a prompt then decode steps).
TEST(DeltaNetOps, StepsChainThroughTheFinalState) {
    const DeltaCase whole{1, 3, 6, 8, 10};
    const Shape qs{1, 3, 6, 8}, vs{1, 3, 6, 10}, hs{1, 3, 6}, ss{1, 3, 8, 10};
    auto q = unit_rows(size_t(numel(qs)), 8, 1, 0.35);
    auto k = unit_rows(size_t(numel(qs)), 8, 2, 1.0);
    auto v = random_floats(size_t(numel(vs)), 3);
    auto decay = in_range(size_t(numel(hs)), 4, 0.3, 1.0);
    auto beta = in_range(size_t(numel(hs)), 5, 0.0, 1.0);
    auto initial = random_floats(size_t(numel(ss)), 6);
    const DeltaRef want = reference(whole, q, k, v, decay, beta, initial);
    // Token t of every head: rows h * T + t of the [1, H, T, *] inputs.
    auto token = [](const std::vector<float>& x, int64_t t, int64_t width) {
        std::vector<float> r;
        for (int64_t h = 0; h < 3; ++h) {
            const auto from = x.begin() + (h * 6 + t) * width;
            r.insert(r.end(), from, from + width);
        }
        return r;
    };
    std::vector<float> state = initial;
    for (int64_t t = 0; t < 6; ++t) {
        Tensor out = ctx().tensor(DType::f32, {1, 3, 1, 10}), next = ctx().tensor(DType::f32, ss);
        poison(out);
        ctx().reset();
        ctx().record(op("llama.gated_delta_rule.default"),
                     {ctx().tensor(DType::f32, {1, 3, 1, 8}).set_data(token(q, t, 8)),
                      ctx().tensor(DType::f32, {1, 3, 1, 8}).set_data(token(k, t, 8)),
                      ctx().tensor(DType::f32, {1, 3, 1, 10}).set_data(token(v, t, 10)),
                      ctx().tensor(DType::f32, {1, 3, 1}).set_data(token(decay, t, 1)),
                      ctx().tensor(DType::f32, {1, 3, 1}).set_data(token(beta, t, 1)),
                      ctx().tensor(DType::f32, ss).set_data(state), Arg::TensorList{out, next}});
        ctx().submit();
        const std::vector<float> got = out.get_data<float>();
        std::vector<double> want_t;
        for (int64_t h = 0; h < 3; ++h) {
            const auto from = want.out.begin() + (h * 6 + t) * 10;
            want_t.insert(want_t.end(), from, from + 10);
        }
        EXPECT_LE(max_rel_error(got, want_t), 2e-5) << "step " << t;
        state = next.get_data<float>();
    }
    EXPECT_LE(max_rel_error(state, want.state), 2e-5);
    ctx().reset();
}

void expect_invalid(std::vector<Arg> args, std::initializer_list<std::string> parts) {
    ctx().reset();
    try {
        ctx().record(op("llama.gated_delta_rule.default"), args);
        ADD_FAILURE() << "accepted";
    } catch (const InvalidArgument& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("gated_delta_rule"), std::string::npos) << msg;
        for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg;
    }
    ctx().reset();
}

TEST(DeltaNetOps, BadShapesAndDtypesNameTheArgument) {
    auto f = [](Shape s) { return ctx().tensor(DType::f32, s); };
    const Shape qs{1, 2, 3, 4}, vs{1, 2, 3, 5}, hs{1, 2, 3}, ss{1, 2, 4, 5};
    auto args = [&](Tensor q, Tensor k, Tensor v, Tensor d, Tensor b, Tensor s0, Tensor o,
                    Tensor s1) -> std::vector<Arg> {
        return {q, k, v, d, b, s0, Arg::TensorList{o, s1}};
    };
    expect_invalid(args(f(qs), f({1, 2, 3, 3}), f(vs), f(hs), f(hs), f(ss), f(vs), f(ss)),
                   {"key", "[1, 2, 3, 4]"});
    expect_invalid(args(f(qs), f(qs), f(vs), f({1, 2, 4}), f(hs), f(ss), f(vs), f(ss)), {"decay"});
    expect_invalid(args(f(qs), f(qs), f(vs), f(hs), f(hs), f({1, 2, 5, 4}), f(vs), f(ss)),
                   {"initial_state", "[1, 2, 4, 5]"});
    expect_invalid(args(f(qs), f(qs), f(vs), f(hs), f(hs), f(ss), f(vs), f({1, 2, 4, 4})),
                   {"final_state"});
    expect_invalid(args(f({2, 3, 4}), f(qs), f(vs), f(hs), f(hs), f(ss), f(vs), f(ss)), {"4-D"});
    expect_invalid(
        args(f(qs), f(qs), ctx().tensor(DType::i32, vs), f(hs), f(hs), f(ss), f(vs), f(ss)),
        {"value", "float32"});
    expect_invalid({f(qs), f(qs), f(vs), f(hs), f(hs), f(ss), Arg::TensorList{f(vs)}}, {"outs"});
}

}  // namespace
}  // namespace wgx::test
