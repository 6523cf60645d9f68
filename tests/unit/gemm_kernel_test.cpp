// The GEMM kernel family (src/ops/matmul/gemm*, gemv.wgsl) against a float64 reference: every
// tile variant that fits the device, on all four transpose combinations, sizes that take the
// vec4 paths and sizes that take the scalar ones (odd and prime: partial tiles in M, N and K),
// batches with a shared operand, every bias broadcast, alpha and beta; the few-rows kernel on
// both layouts of B; large odd shapes and the default choice. Tolerance: max_rel_error <= 1e-5
// (float32 fma accumulation; an indexing or tiling error is of the order of the values).
// Float16 storage (inputs rounded to float16 on the host, the float64 reference on the rounded
// values): every variant and layout, vec4 and scalar access, split K, gemv and the epilogues,
// within f16_error_ratio's bound (one rounding to float16 plus float32 accumulation).
// The GELU, SiLU, hardswish and scale epilogues on the tile, few-rows and split-K paths, float32
// and float16.
// The implicit-GEMM convolution operand (B gathered from an image) against a float64 convolution.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include "f16_accumulation_check.h"
#include "ops/matmul/gemm.h"
#include "test_util.h"

namespace wgx::test {
namespace {

using ops::GemmCall;
using ops::GemmParams;
using ops::GemmVariant;

// Records one prepared GemmCall; the tensors in the args are only there to satisfy the contract.
class GemmOp final : public Op {
  public:
    explicit GemmOp(GemmCall call) : call_(std::move(call)) {}
    std::string_view name() const override { return "test.gemm"; }
    void record(Recorder& rec, const Args&) const override { ops::record_gemm(rec, name(), call_); }

  private:
    GemmCall call_;
};

struct Problem {
    int64_t batch, M, K, N;
    bool trans_a, trans_b;
    bool shared_a;  // A shared by every batch (a 1x1 convolution's weight)
    int bias;       // 0: none, 1: per-column [N], 2: full [batch, M, N], 3: per-row [M, 1]
    float alpha = 1.f, beta = 1.f;
    uint32_t splits = 0;                          // GemmCall::splits (0: the default choice)
    std::optional<float> lo, hi;                  // clamp epilogue bounds
    bool residual = false;                        // a residual [batch, M, N] added before the clamp
    ops::Activation act = ops::Activation::none;  // after the bias
    int scale = 0;              // after the activation: 0 none, 1 per column, 2 per row
    bool residual_mul = false;  // the residual multiplies instead (GemmCall::residual_multiplies)
};

std::string describe(const Problem& p) {
    return fmt::format("{}x[{}x{}x{}]{}{}{} bias{} alpha {} beta {} splits {} clamp [{}, {}]{}{}{}",
                       p.batch, p.M, p.K, p.N, p.trans_a ? " A^T" : "", p.trans_b ? " B^T" : "",
                       p.shared_a ? " shared A" : "", p.bias, p.alpha, p.beta, p.splits,
                       p.lo.value_or(-INFINITY), p.hi.value_or(INFINITY),
                       p.residual ? (p.residual_mul ? " times residual" : " residual") : "",
                       ops::activation_label(p.act),
                       p.scale == 1   ? " scale"
                       : p.scale == 2 ? " scale rows"
                                      : "");
}

// The activation in float64, as aten.gelu (both forms), aten.silu and aten.hardswish define it.
double activation_ref(double x, ops::Activation act) {
    if (act == ops::Activation::gelu) return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    if (act == ops::Activation::silu) return x / (1.0 + std::exp(-x));
    if (act == ops::Activation::hardswish) return x * std::clamp(x + 3.0, 0.0, 6.0) / 6.0;
    const double c = std::sqrt(2.0 / M_PI);
    return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}

// A bound on the activation's slope: how far the sum's rounding error carries through it.
double activation_slope(ops::Activation act) {
    return act == ops::Activation::hardswish ? 1.5 : act == ops::Activation::silu ? 1.1 : 1.13;
}

// One run's result and its float64 reference; `magnitude`: the sum of the absolute values added
// into each element (for f16_error_ratio).
struct Outcome {
    std::vector<float> got;
    std::vector<double> want, magnitude;
};

// Runs `p` through `variant` ("" = the default choice) on tensors of `dtype` (float16: the
// inputs rounded to float16, the reference on the rounded values).
Outcome execute(const Problem& p, std::string_view variant, uint32_t seed, DType dtype) {
    const bool f16 = dtype == DType::f16;
    auto input = [&](int64_t n, uint32_t s) {
        return f16 ? f16_random(n, s) : random_floats(n, s);
    };
    auto tensor = [&](const Shape& shape, const std::vector<float>& v) {
        return f16 ? half_tensor(shape, v) : ctx().tensor(DType::f32, shape).set_data(v);
    };
    const int64_t a_count = (p.shared_a ? 1 : p.batch) * p.M * p.K;
    const int64_t b_count = p.batch * p.K * p.N;
    auto a = input(a_count, seed);
    auto b = input(b_count, seed + 1);
    Shape bias_shape;
    int64_t bias_batch = 0, bias_row = 0, bias_col = 0;
    if (p.bias == 1) bias_shape = {p.N}, bias_col = 1;
    if (p.bias == 2)
        bias_shape = {p.batch, p.M, p.N}, bias_batch = p.M * p.N, bias_row = p.N, bias_col = 1;
    if (p.bias == 3) bias_shape = {p.M, 1}, bias_row = 1;
    std::vector<float> bias = p.bias ? input(numel(bias_shape), seed + 2) : std::vector<float>{};

    GemmParams gp{};
    gp.M = uint32_t(p.M), gp.N = uint32_t(p.N), gp.K = uint32_t(p.K), gp.batch = uint32_t(p.batch);
    gp.a_batch_stride = p.shared_a ? 0 : uint32_t(p.M * p.K);
    gp.b_batch_stride = uint32_t(p.K * p.N);
    gp.c_batch_stride = uint32_t(p.M * p.N);
    gp.bias_batch_stride = uint32_t(bias_batch);
    gp.bias_row_stride = uint32_t(bias_row);
    gp.bias_col_stride = uint32_t(bias_col);
    gp.alpha = p.alpha;
    gp.beta = p.beta;

    GemmCall call;
    call.a = tensor({a_count}, a);
    call.b = tensor({b_count}, b);
    if (p.bias) call.bias = tensor(bias_shape, bias);
    if (f16) {
        call.c = half_output({p.batch, p.M, p.N});
    } else {
        call.c = ctx().tensor(DType::f32, {p.batch, p.M, p.N});
        poison(call.c);
    }
    call.p = gp;
    call.trans_a = p.trans_a;
    call.trans_b = p.trans_b;
    call.variant = variant;
    std::vector<float> residual =
        p.residual ? input(p.batch * p.M * p.N, seed + 3) : std::vector<float>{};
    if (p.residual) call.residual = tensor({p.batch, p.M, p.N}, residual);
    call.residual_multiplies = p.residual_mul;
    const int64_t scale_count = p.scale == 2 ? p.M : p.N;
    std::vector<float> scale = p.scale ? input(scale_count, seed + 4) : std::vector<float>{};
    if (p.scale) call.scale = tensor({scale_count}, scale);
    call.scale_rows = p.scale == 2;
    call.activation = p.act;
    call.splits = p.splits;
    call.out_min = p.lo;
    call.out_max = p.hi;
    ctx().reset();
    ctx().record(GemmOp(call), {call.c});
    ctx().submit();

    Outcome out;
    out.want.resize(p.batch * p.M * p.N);
    out.magnitude.resize(out.want.size());
    for (int64_t z = 0; z < p.batch; ++z) {
        const float* az = a.data() + gp.a_batch_stride * z;
        const float* bz = b.data() + gp.b_batch_stride * z;
        for (int64_t r = 0; r < p.M; ++r) {
            for (int64_t c = 0; c < p.N; ++c) {
                double s = 0, mag = 0;
                for (int64_t k = 0; k < p.K; ++k) {
                    double x = p.trans_a ? az[k * p.M + r] : az[r * p.K + k];
                    double y = p.trans_b ? bz[c * p.K + k] : bz[k * p.N + c];
                    s += x * y;
                    mag += std::abs(x * y);
                }
                s *= p.alpha;
                mag *= std::abs(p.alpha);
                if (p.bias) {
                    const double t =
                        double(p.beta) * bias[z * bias_batch + r * bias_row + c * bias_col];
                    s += t;
                    mag += std::abs(t);
                }
                if (p.act != ops::Activation::none) {
                    s = activation_ref(s, p.act);
                    mag *= activation_slope(p.act);
                }
                if (p.scale) {
                    const double f = scale[p.scale == 2 ? r : c];
                    s *= f;
                    mag *= std::abs(f);
                }
                if (p.residual && p.residual_mul) {
                    s *= residual[(z * p.M + r) * p.N + c];
                    mag *= std::abs(residual[(z * p.M + r) * p.N + c]);
                } else if (p.residual) {
                    s += residual[(z * p.M + r) * p.N + c];
                    mag += std::abs(residual[(z * p.M + r) * p.N + c]);
                }
                if (p.lo) s = std::max(s, double(*p.lo));
                if (p.hi) s = std::min(s, double(*p.hi));
                out.want[(z * p.M + r) * p.N + c] = s;
                out.magnitude[(z * p.M + r) * p.N + c] = mag;
            }
        }
    }
    out.got = f16 ? read_half(call.c) : call.c.get_data<float>();
    ctx().reset();
    return out;
}

// Float32: max_rel_error vs float64.
double run(const Problem& p, std::string_view variant, uint32_t seed) {
    Outcome o = execute(p, variant, seed, DType::f32);
    return max_rel_error(o.got, o.want);
}

// Float16 storage: f16_error_ratio (<= 1 passes).
double run_f16(const Problem& p, std::string_view variant, uint32_t seed) {
    Outcome o = execute(p, variant, seed, DType::f16);
    return f16_error_ratio(o.got, o.want, o.magnitude, p.K + 3);
}

std::vector<const GemmVariant*> fitting_variants() {
    std::vector<const GemmVariant*> out;
    for (const GemmVariant& v : ops::gemm_variants()) {
        if (ops::gemm_variant_fits(v, ctx().device_info().limits)) out.push_back(&v);
    }
    return out;
}

class GemmVariants : public ::testing::TestWithParam<std::string_view> {};

TEST_P(GemmVariants, MatchesFloat64EveryLayout) {
    const GemmVariant* v = ops::find_gemm_variant(GetParam());
    ASSERT_NE(v, nullptr);
    if (!ops::gemm_variant_fits(*v, ctx().device_info().limits)) {
        GTEST_SKIP() << v->name << " does not fit this device's workgroup limits";
    }
    // Sizes: one more than a tile in M and N, K over several steps plus a partial one. The odd
    // set takes every scalar path, the multiple-of-4 set every vec4 path.
    const int64_t M1 = v->bm() + 5, N1 = v->bn() + 3;  // odd: partial tiles, scalar access
    const int64_t M4 = v->bm() + 4, N4 = v->bn() + 4;  // multiples of 4: vec4 access
    uint32_t seed = 100;
    for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
            std::vector<Problem> problems = {
                {2, M1, 2 * v->bk + 3, N1, ta, tb, false, 2, 1.5f, -0.5f},
                {2, M4, 3 * v->bk + 4, N4, ta, tb, true, 1, 1.f, 1.f},
                {1, 7, 13, 11, ta, tb, false, 3, 0.5f, 2.f},
                {3, 1, 4, 1, ta, tb, false, 0},
            };
            for (const Problem& p : problems) {
                EXPECT_LE(run(p, v->name, seed++), 1e-5) << v->name << " " << describe(p);
            }
        }
    }
}

// Float16 storage on every variant and layout: the odd sizes take the scalar f16 loads and
// stores, the multiples of 4 the vec4<f16> ones (8-byte aligned: rows and batches start on
// multiples of 4 elements).
TEST_P(GemmVariants, Float16EveryLayout) {
    const GemmVariant* v = ops::find_gemm_variant(GetParam());
    ASSERT_NE(v, nullptr);
    if (!ops::gemm_variant_fits(*v, ctx().device_info().limits)) {
        GTEST_SKIP() << v->name << " does not fit this device's workgroup limits";
    }
    WGX_SKIP_WITHOUT_F16();
    const int64_t M1 = v->bm() + 5, N1 = v->bn() + 3;
    const int64_t M4 = v->bm() + 4, N4 = v->bn() + 4;
    uint32_t seed = 2100;
    for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
            std::vector<Problem> problems = {
                {2, M1, 2 * v->bk + 3, N1, ta, tb, false, 2, 1.5f, -0.5f},
                {2, M4, 3 * v->bk + 4, N4, ta, tb, true, 1, 1.f, 1.f},
            };
            for (const Problem& p : problems) {
                EXPECT_LE(run_f16(p, v->name, seed++), 1.0) << v->name << " f16 " << describe(p);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(All, GemmVariants, ::testing::ValuesIn([] {
                             std::vector<std::string_view> names;
                             for (const auto& v : ops::gemm_variants()) names.push_back(v.name);
                             return names;
                         }()),
                         [](const ::testing::TestParamInfo<std::string_view>& info) {
                             std::string s(info.param);
                             for (char& c : s) {
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             }
                             return s;
                         });

// Large prime-sized problems through the default choice and the largest variant: many K steps,
// many workgroups, partial tiles everywhere.
TEST(GemmKernel, LargeOddShapes) {
    std::vector<Problem> problems = {
        {1, 1021, 523, 509, false, true, false, 1},
        {1, 509, 1031, 257, false, false, false, 0},
        {2, 263, 131, 521, true, false, true, 2, 0.75f, 1.25f},
    };
    uint32_t seed = 900;
    for (const Problem& p : problems) {
        EXPECT_LE(run(p, "", seed++), 1e-5) << "default " << describe(p);
    }
    auto fits = fitting_variants();
    ASSERT_FALSE(fits.empty());
    EXPECT_LE(run(problems[0], fits.front()->name, seed++), 1e-5)
        << fits.front()->name << " " << describe(problems[0]);
}

// Few rows of A take the gemv kernel by default (and "gemv" forces it for any M): both layouts
// of B, K with and without a remainder after the four-way unrolled loop, odd N, batches with a
// shared A, every bias broadcast.
TEST(GemmKernel, GemvEveryLayout) {
    uint32_t seed = 500;
    for (bool tb : {false, true}) {
        std::vector<Problem> problems = {
            {1, 1, 768, 300, false, tb, false, 1},
            {1, 1, 1, 1, false, tb, false, 0},
            {2, 2, 1001, 37, false, tb, true, 2, 0.5f, 1.5f},
            {1, 3, 130, 129, false, tb, false, 3},
            {3, 4, 67, 16, false, tb, false, 1, 1.f, -1.f},
        };
        for (const Problem& p : problems) {
            EXPECT_LE(run(p, "", seed++), 1e-5) << "default " << describe(p);
        }
        Problem many_rows{2, 9, 45, 23, false, tb, false, 2};
        EXPECT_LE(run(many_rows, ops::kGemvVariant, seed++), 1e-5)
            << "gemv " << describe(many_rows);
    }
}

// Split K (forced here: the default splits only on GPUs): chunk counts that divide the K steps
// and ones that leave a short last chunk, K not a multiple of the K step, every bias broadcast,
// batches with a shared A, both transposes, alpha, and the clamp applied after the chunks are
// added; the smallest and the largest fitting variant.
TEST(GemmKernel, SplitKMatchesFloat64) {
    auto fits = fitting_variants();
    ASSERT_FALSE(fits.empty());
    uint32_t seed = 1300;
    for (const GemmVariant* v : {fits.front(), fits.back()}) {
        const int64_t k = v->bk;
        std::vector<Problem> problems = {
            {1, 37, 8 * k + 3, 29, false, false, true, 3, 1.f, 1.f, 2},
            {2, v->bm() + 4, 5 * k, v->bn() + 4, false, true, false, 2, 0.5f, -1.f, 3},
            {3, 12, 7 * k + 1, 20, true, false, true, 1, 1.f, 1.f, 4, -0.1f, 0.2f},
            {1, 9, 3 * k + 2, 7, true, true, false, 0, 1.f, 1.f, 7, std::nullopt, 0.f},
            {1, 64, 40 * k, 16, false, false, true, 1, 1.f, 1.f, 32, 0.f, std::nullopt},
            {2, 21, 9 * k + 2, 13, false, false, true, 3, 1.f, 1.f, 3, 0.f, std::nullopt, true},
            {1, 16, 16 * k, 24, false, false, true, 0, 1.f, 1.f, 4, std::nullopt, std::nullopt,
             true},
        };
        for (const Problem& p : problems) {
            EXPECT_LE(run(p, v->name, seed++), 1e-5) << v->name << " " << describe(p);
        }
    }
}

// The clamp and residual epilogues without split K, on the tile kernel and the few-rows kernel.
TEST(GemmKernel, ClampEpilogue) {
    uint32_t seed = 1400;
    std::vector<Problem> problems = {
        {1, 33, 70, 45, false, false, true, 3, 1.f, 1.f, 1, 0.f, 6.f},
        {2, 64, 64, 64, false, true, false, 1, 1.f, 1.f, 1, -0.3f, std::nullopt},
        {1, 3, 90, 41, false, true, false, 1, 1.f, 1.f, 0, std::nullopt, 0.1f},
        {2, 2, 33, 17, false, false, false, 2, 1.f, 1.f, 0, -0.2f, 0.2f},
        // Residuals: vec4 and scalar C, the few-rows kernel, with and without the clamp.
        {2, 40, 50, 36, false, false, true, 3, 1.f, 1.f, 1, 0.f, std::nullopt, true},
        {1, 35, 29, 23, true, false, false, 1, 1.f, 1.f, 1, std::nullopt, std::nullopt, true},
        {2, 3, 40, 19, false, true, true, 1, 1.f, 1.f, 0, 0.f, 1.f, true},
    };
    for (const Problem& p : problems) {
        EXPECT_LE(run(p, "", seed++), 1e-5) << "default " << describe(p);
    }
}

// Float16 storage through the default choice (large odd shapes), the few-rows kernel on both
// layouts of B, split K (float32 partial sums, the reduce pass rounding once) with every
// epilogue, and the clamp and residual epilogues of the tile kernel with both bounds.
TEST(GemmKernel, Float16PathsMatchFloat64) {
    WGX_SKIP_WITHOUT_F16();
    auto fits = fitting_variants();
    ASSERT_FALSE(fits.empty());
    const GemmVariant& small = *fits.back();
    const int64_t k = small.bk;
    struct Case {
        Problem p;
        std::string_view variant;
    };
    std::vector<Case> cases = {
        {{1, 1021, 523, 509, false, true, false, 1}, ""},
        {{2, 263, 131, 521, true, false, true, 2, 0.75f, 1.25f}, ""},
        // gemv: both layouts of B, a K remainder, batches with a shared A, the epilogues.
        {{1, 1, 768, 300, false, false, false, 1}, ""},
        {{1, 3, 130, 129, false, true, false, 3}, ""},
        {{2, 2, 1001, 37, false, true, true, 2, 0.5f, 1.5f, 0, -0.5f, 0.5f, true}, ""},
        {{2, 9, 45, 23, false, false, false, 2}, ops::kGemvVariant},
        // Split K: vec4 and scalar partial sums, short last chunks, bias, residual, clamps.
        {{1, 37, 8 * k + 3, 29, false, false, true, 3, 1.f, 1.f, 2}, small.name},
        {{2, small.bm() + 4, 5 * k, small.bn() + 4, false, true, false, 2, 0.5f, -1.f, 3},
         small.name},
        {{3, 12, 7 * k + 1, 20, true, false, true, 1, 1.f, 1.f, 4, -0.1f, 0.2f, true}, small.name},
        {{1, 16, 16 * k, 24, false, false, true, 0, 1.f, 1.f, 4, std::nullopt, 0.f, true},
         fits.front()->name},
        // Clamp and residual epilogues without split K, vec4 and scalar C.
        {{1, 33, 70, 45, false, false, true, 3, 1.f, 1.f, 1, 0.f, 6.f}, ""},
        {{2, 40, 50, 36, false, false, true, 3, 1.f, 1.f, 1, 0.f, std::nullopt, true}, ""},
        {{1, 35, 29, 23, true, false, false, 1, 1.f, 1.f, 1, std::nullopt, 0.1f, true}, ""},
    };
    uint32_t seed = 2500;
    for (const Case& c : cases) {
        EXPECT_LE(run_f16(c.p, c.variant, seed++), 1.0)
            << (c.variant.empty() ? "default" : c.variant) << " f16 " << describe(c.p);
    }
}

// The activation (GELU exact and tanh) and the scale (per column and per row) epilogues, after
// the bias and before the residual and the clamp, on every kernel that applies an epilogue: the
// tile kernel with scalar and vec4 C (the default choice and the smallest and largest fitting
// variant), the few-rows kernel on both layouts of B, and the split-K reduce pass (forced: the
// default splits only on GPUs), with alpha, beta, every bias broadcast and batches.
std::vector<std::pair<Problem, std::string_view>> activation_cases() {
    using ops::Activation;
    constexpr auto erf = Activation::gelu, tanh = Activation::gelu_tanh;
    auto fits = fitting_variants();
    const GemmVariant& small = *fits.back();
    const GemmVariant& large = *fits.front();
    const int64_t k = small.bk;
    const auto none = std::nullopt;
    return {
        // Tile kernel: scalar C (N odd) and vec4 C, each step alone and all together.
        {{1, 37, 45, 29, false, true, false, 1, 1.f, 1.f, 1, none, none, false, erf}, ""},
        {{1, 37, 45, 29, false, true, false, 1, 1.f, 1.f, 1, none, none, false, tanh}, ""},
        {{2, 40, 64, 36, false, true, true, 1, 1.f, 1.f, 1, none, none, false, erf}, ""},
        {{2, 40, 64, 36, false, true, true, 1, 1.f, 1.f, 1, none, none, false, tanh, 1}, ""},
        {{1, 33, 31, 23, false, true, false, 0, 1.f, 1.f, 1, none, none, false, Activation::none,
          1},
         ""},
        {{2, 40, 64, 36, false, false, true, 3, 1.f, 1.f, 1, none, none, true, tanh, 2}, ""},
        {{2, 35, 29, 23, true, true, false, 2, 0.5f, 1.5f, 1, -1.f, 2.f, true, erf, 1}, ""},
        {{1, small.bm() + 5, 2 * k + 3, small.bn() + 3, false, true, false, 1, 1.f, 1.f, 1, none,
          none, true, erf, 1},
         small.name},
        {{1, large.bm() + 4, 3 * large.bk, large.bn() + 4, false, true, false, 3, 1.f, 1.f, 1, none,
          none, true, tanh, 2},
         large.name},
        // Few rows: both layouts of B, per-column and per-row scales, batches.
        {{1, 3, 130, 129, false, true, false, 1, 1.f, 1.f, 0, none, none, false, erf, 1}, ""},
        {{2, 2, 67, 17, false, false, true, 2, 1.f, 1.f, 0, none, none, true, tanh, 2}, ""},
        {{1, 4, 48, 40, false, true, false, 1, 1.f, 1.f, 0, 0.f, none, true, erf, 2}, ""},
        // Split K: the reduce pass applies the whole epilogue.
        {{1, 37, 8 * k + 3, 29, false, true, false, 1, 1.f, 1.f, 2, none, none, false, erf, 1},
         small.name},
        {{2, small.bm() + 4, 5 * k, small.bn() + 4, false, false, true, 3, 0.5f, -1.f, 3, -0.5f,
          3.f, true, tanh, 2},
         small.name},
        {{1, 16, 16 * large.bk, 24, false, true, false, 2, 1.f, 1.f, 4, none, none, true, erf, 1},
         large.name},
    };
}

// SiLU and hardswish (a convolution's fused activation) on the same kernels: the tile kernel
// with scalar and vec4 C, the few-rows kernel and the split-K reduce pass, with a residual and a
// clamp after them. alpha 8 takes the sums (N(0, 1) terms) far beyond hardswish's knees at +-3
// and into SiLU's negative tail (below -30), where an unstable sigmoid overflows.
std::vector<std::pair<Problem, std::string_view>> silu_hardswish_cases() {
    using ops::Activation;
    constexpr auto silu = Activation::silu, hswish = Activation::hardswish;
    auto fits = fitting_variants();
    const GemmVariant& small = *fits.back();
    const int64_t k = small.bk;
    const auto none = std::nullopt;
    std::vector<std::pair<Problem, std::string_view>> cases;
    for (Activation act : {silu, hswish}) {
        for (float alpha : {1.f, 8.f}) {
            // Tile kernel (the weight shared by a batch of 2, as a 1x1 convolution), scalar C.
            cases.push_back(
                {{2, 37, 45, 29, false, false, true, 3, alpha, 1.f, 1, none, none, false, act},
                 ""});
            // vec4 C, residual and clamp after the activation.
            cases.push_back(
                {{1, 40, 64, 36, false, false, true, 3, alpha, 1.f, 1, -2.f, 40.f, true, act}, ""});
            // Few rows.
            cases.push_back(
                {{2, 3, 67, 17, false, false, true, 3, alpha, 1.f, 0, none, none, false, act}, ""});
            // Split K: the reduce pass applies the activation.
            cases.push_back({{1, 37, 8 * k + 3, 29, false, false, true, 3, alpha, 1.f, 3, none,
                              none, false, act},
                             small.name});
            cases.push_back({{2, small.bm() + 4, 5 * k, small.bn() + 4, false, false, true, 3,
                              alpha, 1.f, 2, -1.f, none, true, act},
                             small.name});
        }
    }
    return cases;
}

// A residual that multiplies (a SwiGLU layer's gate times its up projection) after SiLU, on the
// tile kernel with scalar and vec4 C, the few-rows kernel and the split-K reduce pass, in both
// storage types.
std::vector<std::pair<Problem, std::string_view>> multiplying_residual_cases() {
    const auto silu = ops::Activation::silu;
    auto fits = fitting_variants();
    const GemmVariant& small = *fits.back();
    const int64_t k = small.bk;
    const auto none = std::nullopt;
    std::vector<std::pair<Problem, std::string_view>> cases = {
        {{1, 37, 45, 29, false, true, false, 0, 1.f, 1.f, 1, none, none, true, silu}, ""},
        {{1, 40, 64, 36, false, true, false, 1, 1.f, 1.f, 1, none, none, true, silu}, ""},
        {{1, 3, 67, 17, false, true, false, 0, 1.f, 1.f, 0, none, none, true, silu}, ""},
        {{1, 37, 8 * k + 3, 29, false, true, false, 0, 1.f, 1.f, 3, none, none, true, silu},
         small.name},
    };
    for (auto& c : cases) c.first.residual_mul = true;
    return cases;
}

TEST(GemmKernel, MultiplyingResidualEpilogue) {
    uint32_t seed = 3600;
    for (const auto& [p, variant] : multiplying_residual_cases()) {
        EXPECT_LE(run(p, variant, seed++), 1e-5)
            << (variant.empty() ? "default" : variant) << " " << describe(p);
    }
}

TEST(GemmKernel, MultiplyingResidualEpilogueFloat16) {
    WGX_SKIP_WITHOUT_F16();
    uint32_t seed = 3700;
    for (const auto& [p, variant] : multiplying_residual_cases()) {
        EXPECT_LE(run_f16(p, variant, seed++), 1.0)
            << (variant.empty() ? "default" : variant) << " f16 " << describe(p);
    }
}

TEST(GemmKernel, SiluAndHardswishEpilogues) {
    uint32_t seed = 3300;
    for (const auto& [p, variant] : silu_hardswish_cases()) {
        EXPECT_LE(run(p, variant, seed++), 1e-5)
            << (variant.empty() ? "default" : variant) << " " << describe(p);
    }
}

TEST(GemmKernel, SiluAndHardswishEpiloguesFloat16) {
    WGX_SKIP_WITHOUT_F16();
    uint32_t seed = 3400;
    for (const auto& [p, variant] : silu_hardswish_cases()) {
        EXPECT_LE(run_f16(p, variant, seed++), 1.0)
            << (variant.empty() ? "default" : variant) << " f16 " << describe(p);
    }
}

// The kernels of no activation and of GELU keep their text: the later activations are written
// into marker lines that the others drop (no marker, and no SiLU or hardswish math, remains).
TEST(GemmKernel, OtherActivationsLeaveNoTrace) {
    ops::GemmShapeFlags f;
    f.has_bias = true;
    const GemmVariant& v = ops::gemm_variants().front();
    for (auto act : {ops::Activation::none, ops::Activation::gelu}) {
        f.activation = act;
        const std::string text = ops::gemm_wgsl(v, f);
        EXPECT_EQ(text.find("\n//@"), std::string::npos);
        EXPECT_EQ(text.find("sigmoid(v"), std::string::npos);
        EXPECT_EQ(text.find("clamp(v"), std::string::npos);
    }
    f.activation = ops::Activation::silu;
    EXPECT_NE(ops::gemm_wgsl(v, f).find("v.w * sigmoid(v.w)"), std::string::npos);
    f.activation = ops::Activation::hardswish;
    EXPECT_NE(ops::gemm_wgsl(v, f).find("v.x * clamp(v.x + 3.0, 0.0, 6.0) / 6.0"),
              std::string::npos);
}

TEST(GemmKernel, ActivationAndScaleEpilogues) {
    uint32_t seed = 3100;
    for (const auto& [p, variant] : activation_cases()) {
        EXPECT_LE(run(p, variant, seed++), 1e-5)
            << (variant.empty() ? "default" : variant) << " " << describe(p);
    }
}

TEST(GemmKernel, ActivationAndScaleEpiloguesFloat16) {
    WGX_SKIP_WITHOUT_F16();
    uint32_t seed = 3200;
    for (const auto& [p, variant] : activation_cases()) {
        EXPECT_LE(run_f16(p, variant, seed++), 1.0)
            << (variant.empty() ? "default" : variant) << " f16 " << describe(p);
    }
}

// A GemmCall mixing float32 and float16 tensors is refused, naming both types.
TEST(GemmKernel, MixedFloatTypesAreRefused) {
    WGX_SKIP_WITHOUT_F16();
    GemmCall call;
    call.a = ctx().tensor(DType::f32, {4, 4});
    call.b = ctx().tensor(DType::f16, {4, 4});
    call.c = ctx().tensor(DType::f32, {4, 4});
    call.p = GemmParams{4, 4, 4, 1, 0, 0, 0, 0, 0, 0, 1.f, 0.f};
    ctx().reset();
    try {
        ctx().record(GemmOp(call), {call.c});
        FAIL() << "expected an error";
    } catch (const InvalidArgument& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
        EXPECT_NE(msg.find("float16"), std::string::npos) << msg;
    }
    ctx().reset();
}

// The default split: only GPUs, only when the tiles leave the GPU short of invocations, never
// so many chunks that one has fewer than 8 K steps.
TEST(GemmKernel, DefaultSplitFollowsProblemAndDevice) {
    DeviceInfo gpu;
    gpu.adapter.type = AdapterType::discrete;
    const GemmVariant& small = *ops::find_gemm_variant("32x32/k16/4x4");
    EXPECT_EQ(ops::choose_gemm_splits(gpu, small, 4096, 4096, 4096, 1), 1u);
    // ResNet-18's last 3x3 convolutions: [512 x 4608] @ [4608 x 49], 32 workgroups.
    const uint32_t s = ops::choose_gemm_splits(gpu, small, 512, 49, 4608, 1);
    EXPECT_GE(s, 2u);
    EXPECT_LE(s * 8u * small.bk, 4608u);
    EXPECT_EQ(ops::choose_gemm_splits(gpu, small, 512, 49, 100, 1), 1u);  // K too short
    DeviceInfo cpu = gpu;
    cpu.adapter.type = AdapterType::cpu;
    EXPECT_EQ(ops::choose_gemm_splits(cpu, small, 512, 49, 4608, 1), 1u);
}

// beta = 0 ignores the bias, NaN included (PyTorch's addmm rule the epilogue follows).
TEST(GemmKernel, BetaZeroIgnoresNanBias) {
    GemmCall call;
    const int64_t M = 5, K = 8, N = 6;
    auto a = random_floats(M * K, 1), b = random_floats(K * N, 2);
    call.a = ctx().tensor(DType::f32, {M, K}).set_data(a);
    call.b = ctx().tensor(DType::f32, {K, N}).set_data(b);
    Tensor nan_bias = ctx().tensor(DType::f32, {N});
    poison(nan_bias);
    call.bias = nan_bias;
    call.c = ctx().tensor(DType::f32, {M, N});
    poison(call.c);
    call.p = GemmParams{uint32_t(M), uint32_t(N), uint32_t(K), 1, 0, 0, 0, 0, 0, 1, 1.f, 0.f};
    ctx().reset();
    ctx().record(GemmOp(call), {call.c});
    ctx().submit();
    std::vector<double> want(M * N, 0.0);
    for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k)
            for (int64_t j = 0; j < N; ++j) want[i * N + j] += double(a[i * K + k]) * b[k * N + j];
    EXPECT_LE(max_rel_error(call.c.get_data<float>(), want), 1e-5);
    ctx().reset();
}

TEST(GemmKernel, UnknownOrOversizedVariantIsAnError) {
    GemmCall call;
    call.a = ctx().tensor(DType::f32, {4});
    call.b = ctx().tensor(DType::f32, {4});
    call.c = ctx().tensor(DType::f32, {4});
    call.p = GemmParams{2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1.f, 0.f};
    call.variant = "7x7/k3/1x1";
    ctx().reset();
    try {
        ctx().record(GemmOp(call), {call.c});
        FAIL() << "expected an error";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("7x7/k3/1x1"), std::string::npos) << e.what();
    }
    // A grid beyond the per-dimension limit is refused at record time, naming the sizes.
    call.variant = "";
    call.p.batch = ctx().device_info().limits.max_workgroups_per_dimension + 1;
    try {
        ctx().record(GemmOp(call), {call.c});
        FAIL() << "expected an error";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("workgroups"), std::string::npos) << e.what();
    }
    ctx().reset();
}

// The default choice follows the problem size and the device: the largest tile that still gives
// a GPU 256 workgroups, 8x8 outputs per invocation on a CPU adapter, and never a variant beyond
// the device's workgroup limits (a SwiftShader-like 128-invocation cap here).
TEST(GemmKernel, DefaultChoiceFollowsProblemAndDevice) {
    DeviceInfo gpu;
    gpu.adapter.type = AdapterType::discrete;
    gpu.limits.max_workgroup_invocations = 1024;
    gpu.limits.max_workgroup_size_x = gpu.limits.max_workgroup_size_y = 1024;
    gpu.limits.max_workgroup_storage_bytes = 49152;
    EXPECT_EQ(ops::choose_gemm_variant(gpu, 4096, 4096, 1).name, "128x128/k8/8x8");
    EXPECT_EQ(ops::choose_gemm_variant(gpu, 1024, 1024, 1).name, "64x64/k16/4x4");
    EXPECT_EQ(ops::choose_gemm_variant(gpu, 197, 197, 12).name, "32x32/k16/4x4");
    EXPECT_EQ(ops::choose_gemm_variant(gpu, 64, 64, 1).name, "32x32/k16/4x4");

    DeviceInfo cpu = gpu;
    cpu.adapter.type = AdapterType::cpu;
    EXPECT_EQ(ops::choose_gemm_variant(cpu, 1024, 1024, 1).name, "256x64/k8/8x8");
    EXPECT_EQ(ops::choose_gemm_variant(cpu, 197, 197, 12).name, "256x64/k8/8x8");

    DeviceInfo small = gpu;
    small.limits.max_workgroup_invocations = 128;
    small.limits.max_workgroup_storage_bytes = 16384;
    for (uint64_t n : {64, 1024, 4096}) {
        const GemmVariant& v = ops::choose_gemm_variant(small, n, n, 1);
        EXPECT_TRUE(ops::gemm_variant_fits(v, small.limits)) << v.name;
    }
    EXPECT_EQ(ops::choose_gemm_variant(small, 4096, 4096, 1).name, "32x32/k16/4x4");

    // And the running device's choice fits it.
    const DeviceInfo& d = ctx().device_info();
    EXPECT_TRUE(ops::gemm_variant_fits(ops::choose_gemm_variant(d, 4096, 4096, 1), d.limits));
}

// The implicit-GEMM convolution operand (GemmCall::conv: B gathered from a convolution's input,
// gemm_implicit_conv.wgsl) against a float64 convolution. Here, below the convolution op, what
// the op decides by device can be forced: every fitting variant, and split K, which the default
// takes only on GPUs (so lavapipe's convolution tests never split). The cases: batches, padding
// edges (and padding wider than the window, whose outputs see only zeros), stride 2, dilation,
// kernels wider than tall (2x5, 1x7), a 7x7 stem, a strided 1x1, K not a multiple of the K step;
// with the bias per row, the residual and the clamp, in the tile pass or the reduce pass.
struct ConvProblem {
    int64_t batch, c_in, h, w, c_out, kh, kw, sh, sw, ph, pw, dh, dw;
    bool bias = true, residual = false;
    std::optional<float> lo, hi;
    int64_t ho() const { return (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
    int64_t wo() const { return (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
};

std::string describe(const ConvProblem& p) {
    return fmt::format("{}x{}x{}x{} -> {}, {}x{} stride {},{} pad {},{} dilation {},{}{}{}{}",
                       p.batch, p.c_in, p.h, p.w, p.c_out, p.kh, p.kw, p.sh, p.sw, p.ph, p.pw, p.dh,
                       p.dw, p.bias ? " bias" : "", p.residual ? " residual" : "",
                       p.lo || p.hi ? " clamp" : "");
}

Outcome execute_conv(const ConvProblem& p, std::string_view variant, uint32_t splits, uint32_t seed,
                     DType dtype) {
    const bool f16 = dtype == DType::f16;
    auto input = [&](int64_t n, uint32_t s) {
        return f16 ? f16_random(n, s) : random_floats(n, s);
    };
    auto tensor = [&](const Shape& shape, const std::vector<float>& v) {
        return f16 ? half_tensor(shape, v) : ctx().tensor(DType::f32, shape).set_data(v);
    };
    const int64_t ho = p.ho(), wo = p.wo(), hw = ho * wo, K = p.c_in * p.kh * p.kw;
    auto x = input(p.batch * p.c_in * p.h * p.w, seed);
    auto w = input(p.c_out * K, seed + 1);
    auto bias = input(p.c_out, seed + 2);
    auto residual = input(p.batch * p.c_out * hw, seed + 3);

    GemmCall call;
    call.a = tensor({p.c_out, K}, w);
    call.b = tensor({p.batch, p.c_in, p.h, p.w}, x);
    if (p.bias) call.bias = tensor({p.c_out}, bias);
    if (p.residual) call.residual = tensor({p.batch, p.c_out, hw}, residual);
    if (f16) {
        call.c = half_output({p.batch, p.c_out, hw});
    } else {
        call.c = ctx().tensor(DType::f32, {p.batch, p.c_out, hw});
        poison(call.c);
    }
    call.p.M = uint32_t(p.c_out), call.p.N = uint32_t(hw), call.p.K = uint32_t(K);
    call.p.batch = uint32_t(p.batch);
    call.p.a_batch_stride = 0;
    call.p.b_batch_stride = uint32_t(p.c_in * p.h * p.w);
    call.p.c_batch_stride = uint32_t(p.c_out * hw);
    call.p.bias_row_stride = 1;
    call.p.alpha = 1.f, call.p.beta = 1.f;
    ops::GemmConvGeometry g{};
    g.H_in = uint32_t(p.h), g.W_in = uint32_t(p.w), g.plane = uint32_t(p.h * p.w);
    g.W_out = uint32_t(wo);
    g.stride_h = uint32_t(p.sh), g.stride_w = uint32_t(p.sw);
    g.pad_h = uint32_t(p.ph), g.pad_w = uint32_t(p.pw);
    g.dil_h = uint32_t(p.dh), g.dil_w = uint32_t(p.dw);
    g.kH = uint32_t(p.kh), g.kW = uint32_t(p.kw);
    call.conv = g;
    call.variant = variant;
    call.splits = splits;
    call.out_min = p.lo, call.out_max = p.hi;
    ctx().reset();
    ctx().record(GemmOp(call), {call.c});
    ctx().submit();

    // Plain loops over the window, in float64.
    Outcome out;
    out.want.assign(p.batch * p.c_out * hw, 0.0);
    out.magnitude.assign(out.want.size(), 0.0);
    for (int64_t n = 0; n < p.batch; ++n) {
        for (int64_t co = 0; co < p.c_out; ++co) {
            for (int64_t oy = 0; oy < ho; ++oy) {
                for (int64_t ox = 0; ox < wo; ++ox) {
                    double s = 0, mag = 0;
                    for (int64_t ci = 0; ci < p.c_in; ++ci) {
                        for (int64_t ky = 0; ky < p.kh; ++ky) {
                            for (int64_t kx = 0; kx < p.kw; ++kx) {
                                const int64_t iy = oy * p.sh - p.ph + ky * p.dh;
                                const int64_t ix = ox * p.sw - p.pw + kx * p.dw;
                                if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
                                const double t = double(w[co * K + (ci * p.kh + ky) * p.kw + kx]) *
                                                 x[((n * p.c_in + ci) * p.h + iy) * p.w + ix];
                                s += t;
                                mag += std::abs(t);
                            }
                        }
                    }
                    const int64_t at = (n * p.c_out + co) * hw + oy * wo + ox;
                    if (p.bias) s += bias[co], mag += std::abs(bias[co]);
                    if (p.residual) s += residual[at], mag += std::abs(residual[at]);
                    if (p.lo) s = std::max(s, double(*p.lo));
                    if (p.hi) s = std::min(s, double(*p.hi));
                    out.want[at] = s;
                    out.magnitude[at] = mag;
                }
            }
        }
    }
    out.got = f16 ? read_half(call.c) : call.c.get_data<float>();
    ctx().reset();
    return out;
}

std::vector<ConvProblem> implicit_conv_problems() {
    const auto none = std::nullopt;
    // {batch, c_in, h, w, c_out, kh, kw, sh, sw, ph, pw, dh, dw, bias, residual, lo, hi}
    return {
        {2, 5, 11, 13, 37, 3, 3, 1, 1, 1, 1, 1, 1},                // K = 45
        {1, 16, 17, 17, 20, 3, 3, 2, 2, 1, 1, 1, 1, false, true},  // K = 144, stride 2
        {2, 3, 19, 23, 7, 2, 5, 2, 3, 1, 2, 1, 2, true, true, 0.f, none},
        {1, 6, 9, 20, 9, 1, 7, 1, 1, 0, 3, 1, 1, true, false, -0.5f, 0.5f},
        {1, 4, 13, 11, 6, 3, 3, 1, 1, 2, 2, 2, 2},                           // dilation 2
        {1, 3, 30, 30, 16, 7, 7, 2, 2, 3, 3, 1, 1, true, false, 0.f, none},  // a stem
        {2, 5, 9, 9, 7, 1, 1, 2, 2, 0, 0, 1, 1, false},                      // strided 1x1
        {1, 2, 5, 4, 3, 3, 3, 1, 1, 3, 3, 1, 1},                             // windows all padding
    };
}

TEST(GemmKernel, ImplicitConvMatchesFloat64) {
    auto fits = fitting_variants();
    ASSERT_FALSE(fits.empty());
    uint32_t seed = 3000;
    const auto problems = implicit_conv_problems();
    // Every variant on the first case, without and with split K.
    for (const GemmVariant* v : fits) {
        for (uint32_t splits : {1u, 2u}) {
            Outcome o = execute_conv(problems[0], v->name, splits, seed++, DType::f32);
            EXPECT_LE(max_rel_error(o.got, o.want), 1e-5)
                << v->name << " splits " << splits << " " << describe(problems[0]);
        }
    }
    // Every case on the smallest and largest variant, split K with a short last chunk, and the
    // default choice.
    for (const ConvProblem& p : problems) {
        for (const GemmVariant* v : {fits.front(), fits.back()}) {
            for (uint32_t splits : {1u, 3u}) {
                Outcome o = execute_conv(p, v->name, splits, seed++, DType::f32);
                EXPECT_LE(max_rel_error(o.got, o.want), 1e-5)
                    << v->name << " splits " << splits << " " << describe(p);
            }
        }
        Outcome o = execute_conv(p, "", 0, seed++, DType::f32);
        EXPECT_LE(max_rel_error(o.got, o.want), 1e-5) << "default " << describe(p);
    }
}

TEST(GemmKernel, ImplicitConvFloat16) {
    WGX_SKIP_WITHOUT_F16();
    auto fits = fitting_variants();
    ASSERT_FALSE(fits.empty());
    uint32_t seed = 3500;
    for (const ConvProblem& p : implicit_conv_problems()) {
        const int64_t terms = p.c_in * p.kh * p.kw + 3;
        for (uint32_t splits : {1u, 3u}) {
            Outcome o = execute_conv(p, fits.back()->name, splits, seed++, DType::f16);
            EXPECT_LE(f16_error_ratio(o.got, o.want, o.magnitude, terms), 1.0)
                << fits.back()->name << " splits " << splits << " f16 " << describe(p);
        }
        Outcome o = execute_conv(p, "", 0, seed++, DType::f16);
        EXPECT_LE(f16_error_ratio(o.got, o.want, o.magnitude, terms), 1.0)
            << "default f16 " << describe(p);
    }
}

// What an implicit-GEMM convolution cannot combine with is refused, not miscomputed.
TEST(GemmKernel, ImplicitConvRefusesTransposedBAndScale) {
    Tensor a = ctx().tensor(DType::f32, {4, 9});
    Tensor b = ctx().tensor(DType::f32, {1, 1, 4, 4});
    Tensor c = ctx().tensor(DType::f32, {1, 4, 16});
    GemmCall call{a, b, std::nullopt, c};
    call.p.M = 4, call.p.N = 16, call.p.K = 9, call.p.batch = 1;
    call.p.b_batch_stride = 16, call.p.c_batch_stride = 64, call.p.alpha = 1.f;
    ops::GemmConvGeometry g{4, 4, 16, 4, 1, 1, 1, 1, 1, 1, 3, 3};
    call.conv = g;
    for (int what = 0; what < 3; ++what) {
        GemmCall bad = call;
        if (what == 0) bad.trans_b = true;
        if (what == 1) bad.scale = ctx().tensor(DType::f32, {16});
        if (what == 2) bad.variant = ops::kGemvVariant;
        ctx().reset();
        EXPECT_THROW(ctx().record(GemmOp(bad), {bad.c}), InvalidArgument) << what;
    }
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test
