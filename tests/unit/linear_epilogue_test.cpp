// wgx.linear_epilogue (what passes/fuse_linear_epilogue makes of linear + gelu / mul / permute /
// add) against a float64 reference written here: out = act(x @ w^T + b) * scale + residual,
// row-major or channels-first, with and without each step; sizes 1, odd and prime (partial
// tiles, scalar access), multiples of 4 (vec4 access), few rows (the gemv kernel) and
// channels-first batches. Tolerance: max_rel_error <= 1e-5 (float32 accumulation, K <= 200).
// Float16 tensors (inputs rounded to float16 on the host, the reference on the rounded values):
// f16_error_ratio <= 1. The split-K path of the same epilogue is tested in gemm_kernel_test
// (GemmKernel.ActivationAndScaleEpilogues): only a GPU adapter splits K by default.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "f16_accumulation_check.h"
#include "test_util.h"

namespace wgx::test {
namespace {

constexpr std::string_view kOp = "wgx.linear_epilogue.default";

struct Case {
    Shape input;  // [..., K]
    int64_t N;    // output features
    bool bias;
    std::string act;  // "none", "gelu", "gelu_tanh", "silu", "hardswish"
    Shape scale;      // empty: none
    bool residual;
    Shape out;  // empty: input's leading dims with N
    bool channels_first = false;
};

std::string describe(const Case& c) {
    return fmt::format("input {} N {}{} {} scale {}{} out {}{}", shape_string(c.input), c.N,
                       c.bias ? " bias" : "", c.act, shape_string(c.scale),
                       c.residual ? " residual" : "", shape_string(c.out),
                       c.channels_first ? " channels_first" : "");
}

double activate(double v, const std::string& act) {
    if (act == "gelu") return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    if (act == "gelu_tanh") {
        return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
    }
    if (act == "silu") return v / (1.0 + std::exp(-v));
    if (act == "hardswish") return v * std::clamp(v + 3.0, 0.0, 6.0) / 6.0;
    return v;
}

// The reference and, for float16's bound, each element's magnitude (see f16_error_ratio).
struct Reference {
    std::vector<double> want, magnitude;
};

Reference reference(const Case& c, const Shape& out_shape, const std::vector<float>& x,
                    const std::vector<float>& w, const std::vector<float>& b,
                    const std::vector<float>& scale, const std::vector<float>& residual) {
    const int64_t K = c.input.back(), M = numel(c.input) / K, N = c.N;
    // Channels-first: out is [B, N, P] with B * P = M.
    const int64_t P = c.channels_first ? M / out_shape[0] : 1;
    Reference r{std::vector<double>(M * N), std::vector<double>(M * N)};
    for (int64_t m = 0; m < M; ++m) {
        for (int64_t n = 0; n < N; ++n) {
            double s = 0, mag = 0;
            for (int64_t k = 0; k < K; ++k) {
                s += double(x[m * K + k]) * w[n * K + k];
                mag += std::abs(double(x[m * K + k]) * w[n * K + k]);
            }
            if (c.bias) s += b[n], mag += std::abs(b[n]);
            if (c.act != "none") s = activate(s, c.act), mag *= 1.13;  // |gelu'| <= 1.13
            if (!c.scale.empty()) s *= scale[n], mag *= std::abs(scale[n]);
            const int64_t at = c.channels_first ? ((m / P) * N + n) * P + m % P : m * N + n;
            if (c.residual) s += residual[at], mag += std::abs(residual[at]);
            r.want[at] = s;
            r.magnitude[at] = mag;
        }
    }
    return r;
}

Shape out_shape_of(const Case& c) {
    if (!c.out.empty()) return c.out;
    Shape s = c.input;
    s.back() = c.N;
    return s;
}

std::vector<Case> cases() {
    return {
        // Row-major output: each step alone, then together; odd sizes take the scalar paths.
        {{7, 13}, 17, true, "gelu", {}, false, {}},
        {{7, 13}, 17, true, "gelu_tanh", {}, false, {}},
        {{7, 13}, 17, true, "silu", {}, false, {}},
        {{9, 31}, 23, true, "hardswish", {}, false, {}},
        {{1, 96}, 40, true, "hardswish", {}, false, {}},  // one row: the gemv path
        {{3, 200}, 41, false, "silu", {41}, true, {}},
        {{2, 5, 31}, 37, false, "gelu", {}, false, {}},
        {{33, 29}, 23, true, "none", {}, true, {1, 33, 23}},  // out reshaped, as ViT's add
        {{33, 29}, 23, true, "none", {23}, false, {}},
        {{40, 64}, 36, true, "gelu", {36}, true, {}},  // vec4
        {{65, 129}, 33, false, "gelu_tanh", {1, 33}, true, {65, 33}},
        {{1, 1}, 1, true, "gelu", {1}, true, {}},
        // Few rows (the gemv kernel).
        {{3, 200}, 41, true, "gelu", {41}, true, {}},
        {{1, 48}, 10, false, "gelu_tanh", {}, true, {}},
        // Channels-first: [B, H, W, K] rows -> out [B, N, H, W], as ConvNeXt's block ends.
        {{1, 5, 5, 32}, 16, true, "none", {16, 1, 1}, true, {1, 16, 5, 5}, true},
        {{2, 3, 7, 19}, 13, true, "gelu", {13, 1, 1}, true, {2, 13, 3, 7}, true},
        {{2, 21, 24}, 12, false, "gelu_tanh", {}, false, {2, 12, 21}, true},
        {{3, 2, 2, 11}, 4, true, "none", {4}, true, {3, 4, 2, 2}, true},  // N <= 4: gemv
        {{1, 2, 2, 48}, 48, true, "none", {48, 1, 1}, true, {1, 48, 2, 2}, true},
    };
}

Tensor f32_tensor(const Shape& s, const std::vector<float>& v) {
    return ctx().tensor(DType::f32, s).set_data(v);
}

std::vector<float> inputs_f32(int64_t n, uint32_t seed) { return random_floats(n, seed); }

// Runs case `c` on tensors of `dtype`; returns the result and the reference.
std::pair<std::vector<float>, Reference> execute(const Case& c, uint32_t seed, DType dtype) {
    const bool f16 = dtype == DType::f16;
    auto input = [&](int64_t n, uint32_t s) { return f16 ? f16_random(n, s) : inputs_f32(n, s); };
    auto tensor = [&](const Shape& s, const std::vector<float>& v) {
        return f16 ? half_tensor(s, v) : f32_tensor(s, v);
    };
    const int64_t K = c.input.back();
    const Shape out_shape = out_shape_of(c);
    auto x = input(numel(c.input), seed);
    auto w = input(c.N * K, seed + 1);
    auto b = input(c.N, seed + 2);
    auto scale = input(c.scale.empty() ? 0 : numel(c.scale), seed + 3);
    auto residual = input(c.residual ? numel(out_shape) : 0, seed + 4);
    Tensor out;
    if (f16) {
        out = half_output(out_shape);
    } else {
        out = ctx().tensor(DType::f32, out_shape);
        poison(out);
    }
    ctx().reset();
    ctx().record(op(kOp),
                 {tensor(c.input, x), tensor({c.N, K}, w), c.bias ? Arg(tensor({c.N}, b)) : Arg(),
                  c.act, c.scale.empty() ? Arg() : Arg(tensor(c.scale, scale)),
                  c.residual ? Arg(tensor(out_shape, residual)) : Arg(), c.channels_first, out});
    ctx().submit();
    std::vector<float> got = f16 ? read_half(out) : out.get_data<float>();
    ctx().reset();
    return {got, reference(c, out_shape, x, w, b, scale, residual)};
}

TEST(LinearEpilogue, MatchesFloat64) {
    uint32_t seed = 10;
    for (const Case& c : cases()) {
        auto [got, ref] = execute(c, seed, DType::f32);
        seed += 5;
        EXPECT_LE(max_rel_error(got, ref.want), 1e-5) << describe(c);
    }
}

TEST(LinearEpilogue, Float16MatchesFloat64) {
    WGX_SKIP_WITHOUT_F16();
    uint32_t seed = 500;
    for (const Case& c : cases()) {
        auto [got, ref] = execute(c, seed, DType::f16);
        seed += 5;
        EXPECT_LE(f16_error_ratio(got, ref.want, ref.magnitude, c.input.back() + 3), 1.0)
            << "f16 " << describe(c);
    }
}

// Bad arguments give one InvalidArgument naming the op and what is wrong.
TEST(LinearEpilogue, RejectsBadArguments) {
    auto t = [](const Shape& s) { return ctx().tensor(DType::f32, s); };
    struct Bad {
        std::vector<Arg> args;
        std::string says;
    };
    const std::vector<Bad> bad = {
        {{t({4, 8}), t({6, 8}), Arg(), std::string("relu"), Arg(), Arg(), false, t({4, 6})},
         "activation"},
        {{t({4, 8}), t({6, 8}), Arg(), std::string("gelu"), t({5}), Arg(), false, t({4, 6})},
         "scale"},
        {{t({4, 8}), t({6, 8}), Arg(), std::string("none"), Arg(), t({6, 4}), false, t({4, 6})},
         "residual"},
        {{t({4, 8}), t({6, 7}), Arg(), std::string("none"), Arg(), Arg(), false, t({4, 6})},
         "features"},
        {{t({4, 8}), t({6, 8}), Arg(), std::string("none"), Arg(), Arg(), false, t({4, 5})}, "out"},
        {{t({4, 8}), t({6, 8}), Arg(), std::string("none"), Arg(), Arg(), true, t({2, 6, 3})},
         "channels_first"},
        {{t({4, 8}), t({6, 8}), Arg(), std::string("none"), Arg(), Arg(), true, t({3, 6, 1})},
         "channels_first"},
        {{t({4, 8}), t({6, 8}), t({5}), std::string("none"), Arg(), Arg(), false, t({4, 6})},
         "bias"},
        {{t({4, 8}), t({6, 8}), Arg(), std::string("none"), Arg(), Arg(), t({4, 6})}, ""},
    };
    for (const Bad& b : bad) {
        ctx().reset();
        try {
            ctx().record(op(kOp), b.args);
            ADD_FAILURE() << "accepted; expected an error about " << b.says;
        } catch (const InvalidArgument& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(std::string(kOp)), std::string::npos) << msg;
            EXPECT_NE(msg.find(b.says), std::string::npos) << msg;
        }
    }
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test
