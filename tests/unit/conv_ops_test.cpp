// aten.convolution.default, et_vk.conv_with_clamp.default, wgx.conv_add_clamp.default and
// wgx.conv_activation.default against a float64 reference:
// 1-D and 2-D, stride, padding, dilation, groups, depthwise (multiplier 1, 2 and 4), 1x1 as
// GEMM (plain and transposed), k x k as an implicit GEMM (or im2col and the GEMM with
// WGX_IMPLICIT_GEMM=0; split K is tested below the op, in gemm_kernel_test.cpp, as only GPUs
// split by default), transposed with output_padding and groups, bias or none, clamp
// bounds, sizes 1, odd and prime, a grid that folds into 2-D, and bad arguments.
//
// Tolerance: max |got - want| / max(1, max |want|) <= 1e-5. Each output is a float32 sum of at
// most 576 products of N(0, 1) values; its rounding error is about sqrt(terms) * 2^-24 * the
// typical term, far below 1e-5 of the largest output (>= sqrt(terms) in size).
//
// Float16 (every case, the clamp and the residual epilogues on every kernel): inputs rounded to
// float16 on the host, the float64 reference on the rounded values, and f16_error_ratio <= 1:
// one rounding of the result to float16 (2^-11 relative) plus float32 accumulation of
// C_in / groups * kH * kW products (f16_accumulation_check.h).
#include <algorithm>
#include <array>
#include <cfloat>
#include <optional>
#include <stdexcept>
#include <string>

#include "f16_accumulation_check.h"
#include "test_util.h"

namespace wgx::test {
namespace {

using Ints = std::vector<int64_t>;

struct ConvCase {
    std::string name;
    Shape x, w;  // [N, C, L] / [N, C, H, W]; weight of the same rank
    bool bias;
    Ints stride, padding, dilation;
    bool transposed = false;
    Ints output_padding = {};
    int64_t groups = 1;
};
void PrintTo(const ConvCase& c, std::ostream* os) { *os << c.name; }

// Expands a per-dim list of a 1-D case to (h, w) with a neutral height; a single value of a
// 2-D case applies to both dims (as PyTorch expands it).
std::array<int64_t, 2> hw(const Ints& v, bool one_d, int64_t neutral) {
    if (one_d) return {neutral, v[0]};
    if (v.size() == 1) return {v[0], v[0]};
    return {v[0], v[1]};
}

struct Reference {
    Shape out_shape;
    std::vector<double> out;
};

// Plain loops in float64. The transposed case scatters each input into the outputs it
// reaches, a different formulation from the kernel's gather.
Reference conv_reference(const ConvCase& c, const std::vector<float>& x,
                         const std::vector<float>& w, const std::vector<float>* bias) {
    const bool one_d = c.x.size() == 3;
    auto s4 = [&](const Shape& s) -> std::array<int64_t, 4> {
        return one_d ? std::array<int64_t, 4>{s[0], s[1], 1, s[2]}
                     : std::array<int64_t, 4>{s[0], s[1], s[2], s[3]};
    };
    auto [N, Ci, H, W] = s4(c.x);
    auto ws = s4(c.w);
    auto [sh, sw] = hw(c.stride, one_d, 1);
    auto [ph, pw] = hw(c.padding, one_d, 0);
    auto [dh, dw] = hw(c.dilation, one_d, 1);
    Ints op = c.output_padding.empty() ? Ints(one_d ? 1 : 2, 0) : c.output_padding;
    auto [oph, opw] = hw(op, one_d, 0);
    const int64_t G = c.groups, kH = ws[2], kW = ws[3];
    const int64_t cig = Ci / G;
    const int64_t Co = c.transposed ? ws[1] * G : ws[0];
    const int64_t cog = Co / G;
    int64_t Ho, Wo;
    if (!c.transposed) {
        Ho = (H + 2 * ph - dh * (kH - 1) - 1) / sh + 1;
        Wo = (W + 2 * pw - dw * (kW - 1) - 1) / sw + 1;
    } else {
        Ho = (H - 1) * sh - 2 * ph + dh * (kH - 1) + oph + 1;
        Wo = (W - 1) * sw - 2 * pw + dw * (kW - 1) + opw + 1;
    }
    Reference r;
    r.out_shape = one_d ? Shape{N, Co, Wo} : Shape{N, Co, Ho, Wo};
    r.out.assign(N * Co * Ho * Wo, 0.0);
    auto O = [&](int64_t n, int64_t co, int64_t y, int64_t xx) -> double& {
        return r.out[((n * Co + co) * Ho + y) * Wo + xx];
    };
    auto X = [&](int64_t n, int64_t ci, int64_t y, int64_t xx) -> double {
        return x[((n * Ci + ci) * H + y) * W + xx];
    };
    for (int64_t n = 0; n < N; ++n)
        for (int64_t g = 0; g < G; ++g)
            for (int64_t ci = 0; ci < cig; ++ci)
                for (int64_t col = 0; col < cog; ++col)
                    for (int64_t kh = 0; kh < kH; ++kh)
                        for (int64_t kw = 0; kw < kW; ++kw) {
                            const int64_t cin = g * cig + ci, co = g * cog + col;
                            if (!c.transposed) {
                                double wv = w[((co * cig + ci) * kH + kh) * kW + kw];
                                for (int64_t y = 0; y < Ho; ++y) {
                                    int64_t iy = y * sh - ph + kh * dh;
                                    if (iy < 0 || iy >= H) continue;
                                    for (int64_t xx = 0; xx < Wo; ++xx) {
                                        int64_t ix = xx * sw - pw + kw * dw;
                                        if (ix < 0 || ix >= W) continue;
                                        O(n, co, y, xx) += wv * X(n, cin, iy, ix);
                                    }
                                }
                            } else {
                                double wv = w[((cin * cog + col) * kH + kh) * kW + kw];
                                for (int64_t iy = 0; iy < H; ++iy) {
                                    int64_t y = iy * sh - ph + kh * dh;
                                    if (y < 0 || y >= Ho) continue;
                                    for (int64_t ix = 0; ix < W; ++ix) {
                                        int64_t xx = ix * sw - pw + kw * dw;
                                        if (xx < 0 || xx >= Wo) continue;
                                        O(n, co, y, xx) += wv * X(n, cin, iy, ix);
                                    }
                                }
                            }
                        }
    if (bias) {
        for (int64_t n = 0; n < N; ++n)
            for (int64_t co = 0; co < Co; ++co)
                for (int64_t i = 0; i < Ho * Wo; ++i) {
                    r.out[(n * Co + co) * Ho * Wo + i] += (*bias)[co];
                }
    }
    return r;
}

struct ConvRun {
    std::vector<float> got;
    Reference want;
};

const Op& op_named(bool with_clamp) {
    return op(with_clamp ? "et_vk.conv_with_clamp.default" : "aten.convolution.default");
}

// Runs one case through aten.convolution (or et_vk.conv_with_clamp with the given bounds).
ConvRun run_conv(const ConvCase& c, bool with_clamp = false, Arg lo = std::nullopt,
                 Arg hi = std::nullopt) {
    auto x = random_floats(numel(c.x), 101);
    auto w = random_floats(numel(c.w), 102);
    const bool one_d = c.x.size() == 3;
    const int64_t Co = c.transposed ? c.w[1] * c.groups : c.w[0];
    auto b = random_floats(Co, 103);
    Reference ref = conv_reference(c, x, w, c.bias ? &b : nullptr);
    Tensor tx = ctx().tensor(DType::f32, c.x).set_data(x);
    Tensor tw = ctx().tensor(DType::f32, c.w).set_data(w);
    Tensor tb = ctx().tensor(DType::f32, {Co}).set_data(b);
    Tensor out = ctx().tensor(DType::f32, ref.out_shape);
    poison(out);
    Ints op = c.output_padding.empty() ? Ints(one_d ? 1 : 2, 0) : c.output_padding;
    std::vector<Arg> args = {tx,           tw,        c.bias ? Arg(tb) : Arg(std::nullopt),
                             c.stride,     c.padding, c.dilation,
                             c.transposed, op,        c.groups};
    if (with_clamp) {
        args.push_back(lo);
        args.push_back(hi);
    }
    args.push_back(out);
    ctx().reset();
    ctx().record(op_named(with_clamp), args);
    ctx().submit();
    ConvRun r{out.get_data<float>(), std::move(ref)};
    ctx().reset();
    return r;
}

const std::vector<ConvCase>& conv_cases() {
    static const std::vector<ConvCase> c = {
        // 1x1, stride 1, unpadded, ungrouped: the GEMM kernel (tiles of 32 x 32, k steps of 16).
        {"pointwise_1", {1, 1, 1, 1}, {1, 1, 1, 1}, false, {1, 1}, {0, 0}, {1, 1}},
        {"pointwise_bias", {2, 13, 7, 5}, {19, 13, 1, 1}, true, {1, 1}, {0, 0}, {1, 1}},
        {"pointwise_tiles", {1, 40, 9, 11}, {37, 40, 1, 1}, false, {1, 1}, {0, 0}, {2, 3}},
        {"pointwise_wide", {1, 3, 33, 35}, {5, 3, 1, 1}, true, {1}, {0}, {1}},
        {"pointwise_transposed", {2, 13, 5, 7}, {13, 6, 1, 1}, true, {1, 1}, {0, 0}, {1, 1}, true},
        // The direct kernel: 4 output channels x 4 columns per thread.
        {"direct_3x3_pad1", {2, 3, 11, 13}, {5, 3, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}},
        {"direct_stride2", {1, 4, 17, 17}, {8, 4, 3, 3}, false, {2, 2}, {1, 1}, {1, 1}},
        {"direct_dilation2", {1, 3, 13, 11}, {6, 3, 3, 3}, true, {1, 1}, {2, 2}, {2, 2}},
        {"direct_asymmetric", {2, 3, 19, 23}, {7, 3, 2, 5}, true, {2, 3}, {1, 2}, {1, 2}},
        {"direct_groups2", {2, 6, 9, 7}, {10, 3, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}, false, {}, 2},
        {"direct_groups3_odd",
         {1, 6, 7, 7},
         {9, 2, 3, 3},
         false,
         {1, 1},
         {0, 0},
         {1, 1},
         false,
         {},
         3},
        {"direct_1x1_grouped",
         {1, 8, 5, 5},
         {6, 4, 1, 1},
         true,
         {1, 1},
         {0, 0},
         {1, 1},
         false,
         {},
         2},
        {"direct_1x1_stride2", {1, 5, 9, 9}, {7, 5, 1, 1}, true, {2, 2}, {0, 0}, {1, 1}},
        {"direct_1x1_padded", {1, 5, 4, 3}, {3, 5, 1, 1}, false, {1, 1}, {1, 1}, {1, 1}},
        {"direct_one_pixel", {1, 2, 1, 1}, {3, 2, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}},
        {"direct_deep", {1, 64, 6, 6}, {8, 64, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}},
        {"direct_multiplier4",
         {1, 3, 7, 7},
         {12, 1, 3, 3},
         false,
         {1, 1},
         {1, 1},
         {1, 1},
         false,
         {},
         3},
        {"direct_kernel_is_input", {3, 2, 5, 5}, {4, 2, 5, 5}, true, {1, 1}, {0, 0}, {1, 1}},
        // Grouped with several input channels per group, one image: the implicit GEMM batched
        // over the groups (direct_groups3_odd and direct_1x1_grouped above take it too; two
        // images, as direct_groups2, stay on the direct kernel). RegNet's shape, stride 2 and
        // odd sizes; four groups with dilation and no bias.
        {"grouped_gemm_regnet",
         {1, 32, 13, 11},
         {48, 16, 3, 3},
         true,
         {2, 2},
         {1, 1},
         {1, 1},
         false,
         {},
         2},
        {"grouped_gemm_g4_dilated",
         {1, 12, 9, 10},
         {20, 3, 3, 3},
         false,
         {1, 1},
         {2, 2},
         {2, 2},
         false,
         {},
         4},
        // Ungrouped, not 1x1 stride 1: the implicit GEMM (im2col and the GEMM under
        // WGX_IMPLICIT_GEMM=0), several tiles in M and N with K = 171 (not a multiple of the K
        // step) over batches, a 1x7 window, stride and dilation together, a 7x7 stem.
        {"gemm_tiles_batch", {2, 19, 23, 29}, {70, 19, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}},
        {"gemm_1x7", {2, 6, 9, 20}, {9, 6, 1, 7}, true, {1, 1}, {0, 3}, {1, 1}},
        {"gemm_stride2_dilation2", {1, 5, 21, 18}, {9, 5, 3, 3}, false, {2, 2}, {2, 1}, {2, 3}},
        {"gemm_stem_7x7", {1, 3, 31, 30}, {16, 3, 7, 7}, true, {2, 2}, {3, 3}, {1, 1}},
        // A weight smaller than one vec4 (8 bytes) with a vec4 output and no residual: the
        // residual's placeholder binding must still hold a vec4.
        {"gemm_tiny_weight", {2, 2, 4, 5}, {1, 2, 1, 1}, true, {2, 2}, {1, 1}, {1, 1}},
        {"gemm_tiny_weight_and_input", {1, 1, 1, 2}, {1, 1, 1, 1}, false, {1, 1}, {1, 1}, {1, 1}},
        // One input channel per group and < 4 outputs per group: the depthwise kernel.
        {"depthwise_3x3", {2, 8, 13, 11}, {8, 1, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}, false, {}, 8},
        {"depthwise_stride2",
         {1, 7, 12, 17},
         {7, 1, 3, 3},
         false,
         {2, 2},
         {1, 1},
         {1, 1},
         false,
         {},
         7},
        {"depthwise_multiplier2",
         {1, 5, 9, 9},
         {10, 1, 5, 5},
         true,
         {1, 1},
         {2, 2},
         {1, 1},
         false,
         {},
         5},
        {"depthwise_dilated",
         {1, 3, 11, 13},
         {3, 1, 3, 3},
         true,
         {1, 2},
         {2, 3},
         {2, 3},
         false,
         {},
         3},
        {"depthwise_single_channel", {1, 1, 1, 1}, {1, 1, 3, 3}, false, {1, 1}, {1, 1}, {1, 1}},
        // Several 8 x 32 output tiles of the workgroup-memory depthwise kernel (edges of partly
        // filled tiles, stride 2 with a 5 x 5 window, a 7 x 7 window, an asymmetric kernel).
        {"depthwise_tiles",
         {2, 3, 21, 70},
         {3, 1, 3, 3},
         true,
         {1, 1},
         {1, 1},
         {1, 1},
         false,
         {},
         3},
        {"depthwise_tiles_5x5_s2",
         {1, 4, 37, 75},
         {4, 1, 5, 5},
         true,
         {2, 2},
         {2, 2},
         {1, 1},
         false,
         {},
         4},
        {"depthwise_tiles_7x7",
         {1, 2, 19, 40},
         {2, 1, 7, 7},
         false,
         {1, 1},
         {3, 3},
         {1, 1},
         false,
         {},
         2},
        {"depthwise_tiles_3x5",
         {1, 2, 17, 45},
         {2, 1, 3, 5},
         true,
         {1, 2},
         {1, 0},
         {1, 1},
         false,
         {},
         2},
        // 1-D.
        {"conv1d_stride2", {2, 4, 29}, {6, 4, 5}, true, {2}, {2}, {1}},
        {"conv1d_depthwise_dilated", {1, 6, 31}, {6, 1, 3}, false, {1}, {3}, {3}, false, {}, 6},
        {"conv1d_pointwise", {3, 7, 17}, {5, 7, 1}, true, {1}, {0}, {1}},
        {"conv1d_transposed", {1, 4, 13}, {4, 3, 4}, true, {2}, {1}, {1}, true, {1}},
        // Transposed (gather form of the direct kernel).
        {"transposed_s2_op1",
         {1, 4, 5, 7},
         {4, 6, 3, 3},
         true,
         {2, 2},
         {1, 1},
         {1, 1},
         true,
         {1, 1}},
        {"transposed_groups3",
         {2, 6, 5, 5},
         {6, 2, 3, 3},
         false,
         {2, 2},
         {0, 0},
         {1, 1},
         true,
         {1, 0},
         3},
        {"transposed_dilated",
         {1, 3, 6, 5},
         {3, 5, 3, 2},
         true,
         {1, 2},
         {1, 0},
         {2, 1},
         true,
         {1, 1}},
        {"transposed_depthwise",
         {1, 4, 6, 6},
         {4, 1, 3, 3},
         true,
         {2, 2},
         {1, 1},
         {1, 1},
         true,
         {0, 0},
         4},
        {"transposed_stride3_1x1",
         {1, 3, 4, 5},
         {3, 2, 1, 1},
         false,
         {3, 3},
         {0, 0},
         {1, 1},
         true,
         {2, 1}},
        {"transposed_one_pixel", {1, 2, 1, 1}, {2, 3, 2, 2}, false, {1, 1}, {0, 0}, {1, 1}, true},
        // A deep input on a small map (K = 2304 against 64 x 16 outputs): on GPUs the im2col
        // GEMM splits K, and the reduce pass applies the epilogue.
        {"im2col_split_k", {1, 256, 4, 4}, {64, 256, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}},
    };
    return c;
}

const ConvCase& conv_case(const std::string& name) {
    for (const auto& c : conv_cases()) {
        if (c.name == name) return c;
    }
    throw std::runtime_error("no conv case " + name);
}

class ConvShapes : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvShapes, MatchesFloat64Reference) {
    ConvRun r = run_conv(GetParam());
    EXPECT_LE(max_rel_error(r.got, r.want.out), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Conv, ConvShapes, ::testing::ValuesIn(conv_cases()),
                         [](const ::testing::TestParamInfo<ConvCase>& info) {
                             return info.param.name;
                         });

// Clamped reference values.
std::vector<double> clamped(std::vector<double> v, std::optional<double> lo,
                            std::optional<double> hi) {
    for (double& x : v) {
        if (lo) x = std::max(x, *lo);
        if (hi) x = std::min(x, *hi);
    }
    return v;
}

TEST(ConvWithClamp, BoundsOnEveryKernel) {
    // One case per kernel: GEMM, direct, depthwise, transposed.
    for (const char* name :
         {"pointwise_bias", "direct_3x3_pad1", "depthwise_multiplier2", "transposed_s2_op1"}) {
        const ConvCase& c = conv_case(name);
        ConvRun both = run_conv(c, true, -0.5, 1.25);
        EXPECT_LE(max_rel_error(both.got, clamped(both.want.out, -0.5, 1.25)), 1e-5) << name;
        auto mn = *std::min_element(both.got.begin(), both.got.end());
        auto mx = *std::max_element(both.got.begin(), both.got.end());
        EXPECT_EQ(mn, -0.5f) << name;  // the bounds do bind
        EXPECT_EQ(mx, 1.25f) << name;
        ConvRun lo_only = run_conv(c, true, int64_t(0), std::nullopt);  // relu6-like lower bound
        EXPECT_LE(max_rel_error(lo_only.got, clamped(lo_only.want.out, 0.0, std::nullopt)), 1e-5)
            << name;
        ConvRun hi_only = run_conv(c, true, std::nullopt, 0.75);
        EXPECT_LE(max_rel_error(hi_only.got, clamped(hi_only.want.out, std::nullopt, 0.75)), 1e-5)
            << name;
    }
}

// wgx.conv_add_clamp (what the fusion pass makes of convolution + add + activation):
// clamp(conv(x) + residual, lo, hi) on every kernel, each with the residual in its epilogue.
ConvRun run_conv_add(const ConvCase& c, Arg lo, Arg hi, std::vector<float>& residual) {
    auto x = random_floats(numel(c.x), 201);
    auto w = random_floats(numel(c.w), 202);
    const int64_t Co = c.transposed ? c.w[1] * c.groups : c.w[0];
    auto b = random_floats(Co, 203);
    Reference ref = conv_reference(c, x, w, c.bias ? &b : nullptr);
    residual = random_floats(int64_t(ref.out.size()), 204);
    for (size_t i = 0; i < ref.out.size(); ++i) ref.out[i] += residual[i];
    Tensor tx = ctx().tensor(DType::f32, c.x).set_data(x);
    Tensor tw = ctx().tensor(DType::f32, c.w).set_data(w);
    Tensor tb = ctx().tensor(DType::f32, {Co}).set_data(b);
    Tensor tr = ctx().tensor(DType::f32, ref.out_shape).set_data(residual);
    Tensor out = ctx().tensor(DType::f32, ref.out_shape);
    poison(out);
    const bool one_d = c.x.size() == 3;
    Ints op_pad = c.output_padding.empty() ? Ints(one_d ? 1 : 2, 0) : c.output_padding;
    std::vector<Arg> args = {tx,           tw,        c.bias ? Arg(tb) : Arg(std::nullopt),
                             c.stride,     c.padding, c.dilation,
                             c.transposed, op_pad,    c.groups,
                             tr,           lo,        hi,
                             out};
    ctx().reset();
    ctx().record(op("wgx.conv_add_clamp.default"), args);
    ctx().submit();
    ConvRun r{out.get_data<float>(), std::move(ref)};
    ctx().reset();
    return r;
}

TEST(ConvAddClamp, ResidualAndBoundsOnEveryKernel) {
    for (const char* name :
         {"pointwise_bias", "pointwise_transposed", "direct_3x3_pad1", "direct_asymmetric",
          "direct_groups2", "depthwise_multiplier2", "transposed_s2_op1", "conv1d_stride2",
          "gemm_tiles_batch", "grouped_gemm_regnet"}) {
        const ConvCase& c = conv_case(name);
        std::vector<float> residual;
        ConvRun plain = run_conv_add(c, std::nullopt, std::nullopt, residual);
        EXPECT_LE(max_rel_error(plain.got, plain.want.out), 1e-5) << name;
        ConvRun relu = run_conv_add(c, int64_t(0), std::nullopt, residual);
        EXPECT_LE(max_rel_error(relu.got, clamped(relu.want.out, 0.0, std::nullopt)), 1e-5) << name;
        ConvRun both = run_conv_add(c, -0.5, 1.25, residual);
        EXPECT_LE(max_rel_error(both.got, clamped(both.want.out, -0.5, 1.25)), 1e-5) << name;
    }
}

// One case on float16 tensors through aten.convolution, et_vk.conv_with_clamp (`clamp`) or
// wgx.conv_add_clamp (`residual`), checked with f16_error_ratio against float64 on the rounded
// inputs; returns the ratio (<= 1 passes) and the output's values in `got`.
double run_conv_f16(const ConvCase& c, bool clamp, bool residual, std::optional<double> lo,
                    std::optional<double> hi, std::vector<float>* got = nullptr) {
    auto x = f16_random(numel(c.x), 301);
    auto w = f16_random(numel(c.w), 302);
    const int64_t Co = c.transposed ? c.w[1] * c.groups : c.w[0];
    auto b = f16_random(Co, 303);
    Reference ref = conv_reference(c, x, w, c.bias ? &b : nullptr);
    // The sums of absolute values: the same convolution of |x|, |w| and |b|.
    auto abs_of = [](std::vector<float> v) {
        for (float& e : v) e = std::abs(e);
        return v;
    };
    const std::vector<float> abs_b = abs_of(b);
    Reference magnitude = conv_reference(c, abs_of(x), abs_of(w), c.bias ? &abs_b : nullptr);
    std::vector<float> res;
    if (residual) {
        res = f16_random(int64_t(ref.out.size()), 304);
        for (size_t i = 0; i < ref.out.size(); ++i) {
            ref.out[i] += res[i];
            magnitude.out[i] += std::abs(res[i]);
        }
    }
    Tensor out = half_output(ref.out_shape);
    const bool one_d = c.x.size() == 3;
    Ints op_pad = c.output_padding.empty() ? Ints(one_d ? 1 : 2, 0) : c.output_padding;
    std::vector<Arg> args = {half_tensor(c.x, x),
                             half_tensor(c.w, w),
                             c.bias ? Arg(half_tensor({Co}, b)) : Arg(std::nullopt),
                             c.stride,
                             c.padding,
                             c.dilation,
                             c.transposed,
                             op_pad,
                             c.groups};
    auto bound = [](std::optional<double> v) { return v ? Arg(*v) : Arg(std::nullopt); };
    const char* name = "aten.convolution.default";
    if (residual) {
        name = "wgx.conv_add_clamp.default";
        args.push_back(half_tensor(ref.out_shape, res));
    } else if (clamp) {
        name = "et_vk.conv_with_clamp.default";
    }
    if (clamp || residual) {
        args.push_back(bound(lo));
        args.push_back(bound(hi));
    }
    args.push_back(out);
    ctx().reset();
    ctx().record(op(name), args);
    ctx().submit();
    std::vector<float> values = read_half(out);
    ctx().reset();
    int64_t taps = 1;
    for (size_t d = 2; d < c.w.size(); ++d) taps *= c.w[d];
    const int64_t terms = c.x[1] / c.groups * taps + 2;
    const double ratio = f16_error_ratio(values, clamped(ref.out, lo, hi), magnitude.out, terms);
    if (got) *got = std::move(values);
    return ratio;
}

class ConvShapesF16 : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvShapesF16, MatchesFloat64Reference) {
    WGX_SKIP_WITHOUT_F16();
    EXPECT_LE(run_conv_f16(GetParam(), false, false, std::nullopt, std::nullopt), 1.0);
}

INSTANTIATE_TEST_SUITE_P(Conv, ConvShapesF16, ::testing::ValuesIn(conv_cases()),
                         [](const ::testing::TestParamInfo<ConvCase>& info) {
                             return info.param.name;
                         });

// Float16 through the clamp and residual epilogues of every kernel: the GEMM (1x1 plain and
// transposed, im2col 3x3), the direct kernel (grouped, transposed), depthwise and 1-D; both
// bounds, each bound alone.
TEST(ConvFloat16, ClampAndResidualOnEveryKernel) {
    WGX_SKIP_WITHOUT_F16();
    for (const char* name : {"pointwise_bias", "pointwise_transposed", "direct_3x3_pad1",
                             "direct_asymmetric", "direct_groups2", "depthwise_multiplier2",
                             "transposed_s2_op1", "conv1d_stride2", "grouped_gemm_regnet"}) {
        const ConvCase& c = conv_case(name);
        std::vector<float> got;
        EXPECT_LE(run_conv_f16(c, true, false, -0.5, 1.25, &got), 1.0) << name << " clamp";
        EXPECT_EQ(*std::min_element(got.begin(), got.end()), -0.5f) << name;  // bounds bind
        EXPECT_EQ(*std::max_element(got.begin(), got.end()), 1.25f) << name;
        EXPECT_LE(run_conv_f16(c, true, false, 0.0, std::nullopt), 1.0) << name << " min";
        EXPECT_LE(run_conv_f16(c, true, false, std::nullopt, 0.75), 1.0) << name << " max";
        EXPECT_LE(run_conv_f16(c, false, true, std::nullopt, std::nullopt), 1.0)
            << name << " residual";
        EXPECT_LE(run_conv_f16(c, false, true, 0.0, std::nullopt), 1.0) << name << " residual min";
        EXPECT_LE(run_conv_f16(c, false, true, -0.5, 1.25), 1.0) << name << " residual clamp";
    }
}

TEST(ConvAddClamp, RejectsAResidualOfAnotherShape) {
    Tensor x = ctx().tensor(DType::f32, {1, 4, 8, 8});
    Tensor w = ctx().tensor(DType::f32, {6, 4, 3, 3});
    Tensor out = ctx().tensor(DType::f32, {1, 6, 6, 6});
    Tensor residual = ctx().tensor(DType::f32, {1, 6, 1, 1});  // broadcastable, not fused
    const Ints one{1, 1}, zero{0, 0};
    try {
        ctx().record(op("wgx.conv_add_clamp.default"),
                     {x, w, std::nullopt, one, zero, one, false, zero, int64_t(1), residual,
                      std::nullopt, std::nullopt, out});
        ADD_FAILURE() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("residual"), std::string::npos) << e.what();
    }
    ctx().reset();
}

TEST(ConvWithClamp, BoundsBeyondFloatRangeAreUnbounded) {
    const ConvCase& c = conv_case("direct_3x3_pad1");
    ConvRun r = run_conv(c, true, -DBL_MAX, 1e300);
    EXPECT_LE(max_rel_error(r.got, r.want.out), 1e-5);
    // min > max: every element becomes max, as torch.clamp.
    ConvRun inverted = run_conv(c, true, 2.0, -1.0);
    for (float v : inverted.got) ASSERT_EQ(v, -1.f);
}

TEST(Conv, GridLargeEnoughToFold) {
    // The depthwise kernel runs one thread per 4 output columns in workgroups of at most 64;
    // more threads than max_workgroups_per_dimension * 64 force a 2-D grid.
    const uint64_t limit = ctx().device_info().limits.max_workgroups_per_dimension;
    const int64_t C = 2, H = 1025;
    const int64_t W = int64_t(((limit * 64) / (C * H) + 2) * 4);
    ASSERT_GT(uint64_t(C * H * (W / 4)), limit * 64);
    auto x = random_floats(C * H * W, 111);
    std::vector<float> w = {0.75f, -1.5f}, b = {0.25f, -2.0f};
    Tensor tx = ctx().tensor(DType::f32, {1, C, H, W}).set_data(x);
    Tensor tw = ctx().tensor(DType::f32, {C, 1, 1, 1}).set_data(w);
    Tensor tb = ctx().tensor(DType::f32, {C}).set_data(b);
    Tensor out = ctx().tensor(DType::f32, {1, C, H, W});
    poison(out);
    ctx().reset();
    ctx().record(op("aten.convolution.default"), {tx, tw, tb, Ints{1, 1}, Ints{0, 0}, Ints{1, 1},
                                                  false, Ints{0, 0}, int64_t(C), out});
    ctx().submit();
    auto got = out.get_data<float>();
    for (int64_t i = 0; i < C * H * W; ++i) {
        int64_t c = i / (H * W);
        double want = double(x[i]) * w[c] + b[c];
        if (!(std::abs(got[i] - want) <= 1e-6 * std::max(1.0, std::abs(want)))) {
            FAIL() << "element " << i << ": got " << got[i] << ", want " << want;
        }
    }
    ctx().reset();
}

// Expects record() to throw InvalidArgument whose message holds every one of `parts`.
void expect_rejected(const char* op_name, std::initializer_list<Arg> args,
                     std::initializer_list<std::string> parts) {
    try {
        ctx().record(op(op_name), args);
        ADD_FAILURE() << op_name << ": expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        std::string m = e.what();
        EXPECT_NE(m.find(op_name), std::string::npos) << m;
        for (const auto& p : parts) EXPECT_NE(m.find(p), std::string::npos) << m;
    }
    ctx().reset();
}

TEST(ConvValidation, RejectsBadArguments) {
    const char* conv = "aten.convolution.default";
    Tensor x = ctx().tensor(DType::f32, {1, 4, 8, 8});
    Tensor w = ctx().tensor(DType::f32, {6, 4, 3, 3});
    Tensor out = ctx().tensor(DType::f32, {1, 6, 6, 6});
    const Ints one{1, 1}, zero{0, 0};
    // Wrong output shape (expected [1, 6, 6, 6]).
    Tensor bad_out = ctx().tensor(DType::f32, {1, 6, 8, 8});
    expect_rejected(conv, {x, w, std::nullopt, one, zero, one, false, zero, 1, bad_out},
                    {"out", "[1, 6, 8, 8]", "[1, 6, 6, 6]"});
    // Transposed: expected [1, 6, 10, 10] with weight [C_in, C_out, kH, kW].
    Tensor wt = ctx().tensor(DType::f32, {4, 6, 3, 3});
    expect_rejected(conv, {x, wt, std::nullopt, one, zero, one, true, zero, 1, out},
                    {"out", "[1, 6, 10, 10]"});
    // Wrong rank.
    Tensor x5 = ctx().tensor(DType::f32, {1, 4, 8, 8, 1});
    expect_rejected(conv, {x5, w, std::nullopt, one, zero, one, false, zero, 1, out},
                    {"input", "[1, 4, 8, 8, 1]"});
    Tensor w3 = ctx().tensor(DType::f32, {6, 4, 9});
    expect_rejected(conv, {x, w3, std::nullopt, one, zero, one, false, zero, 1, out}, {"weight"});
    // Bad dtype.
    Tensor xi = ctx().tensor(DType::i32, {1, 4, 8, 8});
    expect_rejected(conv, {xi, w, std::nullopt, one, zero, one, false, zero, 1, out},
                    {"input", "int32"});
    // Groups that do not divide the channels; weight channels not C_in / groups.
    expect_rejected(conv, {x, w, std::nullopt, one, zero, one, false, zero, 3, out}, {"groups"});
    expect_rejected(conv, {x, w, std::nullopt, one, zero, one, false, zero, 2, out}, {"weight"});
    // Bias of the wrong length; a list of the wrong length; output_padding >= stride.
    Tensor b = ctx().tensor(DType::f32, {5});
    expect_rejected(conv, {x, w, b, one, zero, one, false, zero, 1, out}, {"bias", "[6]"});
    expect_rejected(conv, {x, w, std::nullopt, Ints{1, 1, 1}, zero, one, false, zero, 1, out},
                    {"stride"});
    expect_rejected(conv, {x, wt, std::nullopt, one, zero, one, true, one, 1, out},
                    {"output_padding"});
    // Argument count and kind.
    expect_rejected(conv, {x, w, std::nullopt, one, zero, one, false, zero, 1}, {"arguments"});
    expect_rejected(
        "et_vk.conv_with_clamp.default",
        {x, w, std::nullopt, one, zero, one, false, zero, 1, std::string("lo"), std::nullopt, out},
        {"output_min"});
}

// Float32 and float16 tensors in one convolution are refused, naming the argument.
TEST(ConvFloat16, MixedFloatTypesAreRejected) {
    WGX_SKIP_WITHOUT_F16();
    const Ints one{1, 1}, zero{0, 0};
    Tensor x16 = half_tensor({1, 4, 8, 8}, f16_random(256, 1));
    Tensor w16 = half_tensor({6, 4, 3, 3}, f16_random(216, 2));
    Tensor w32 = ctx().tensor(DType::f32, {6, 4, 3, 3});
    Tensor b32 = ctx().tensor(DType::f32, {6});
    Tensor out16 = half_output({1, 6, 6, 6});
    Tensor out32 = ctx().tensor(DType::f32, {1, 6, 6, 6});
    Tensor r32 = ctx().tensor(DType::f32, {1, 6, 6, 6});
    const char* conv = "aten.convolution.default";
    expect_rejected(conv, {x16, w32, std::nullopt, one, zero, one, false, zero, 1, out16},
                    {"weight is float32", "all float32 or all float16"});
    expect_rejected(conv, {x16, w16, b32, one, zero, one, false, zero, 1, out16},
                    {"bias is float32"});
    expect_rejected(conv, {x16, w16, std::nullopt, one, zero, one, false, zero, 1, out32},
                    {"out is float32"});
    expect_rejected("wgx.conv_add_clamp.default",
                    {x16, w16, std::nullopt, one, zero, one, false, zero, 1, r32, std::nullopt,
                     std::nullopt, out16},
                    {"residual is float32"});
}

// wgx.conv_activation (what the fusion pass makes of a convolution followed by aten.silu or
// aten.hardswish): act(conv(x) + bias) on every kernel. The float64 reference of each activation,
// and a bound on its slope (how far the sum's rounding error carries through it).
double activation_ref(double v, const std::string& act) {
    if (act == "silu") return v / (1.0 + std::exp(-v));
    return v * std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0;  // hardswish
}
double activation_slope(const std::string& act) { return act == "silu" ? 1.1 : 1.5; }

struct ActivationRun {
    std::vector<float> got;
    std::vector<double> want, magnitude;  // magnitude: the sum of |terms|, times the slope
    double min_sum = 0, max_sum = 0;      // the range of the convolution before the activation
};

// Runs case `c` through wgx.conv_activation on tensors of `dt`, the input scaled by `scale` (a
// power of two, exact in float16) so that the sums reach far beyond +-3.
ActivationRun run_conv_activation(const ConvCase& c, const std::string& act, float scale, DType dt,
                                  uint32_t seed = 401) {
    const bool f16 = dt == DType::f16;
    auto input = [&](int64_t n, uint32_t s) {
        return f16 ? f16_random(n, s) : random_floats(n, s);
    };
    auto x = input(numel(c.x), seed);
    for (float& v : x) v *= scale;
    auto w = input(numel(c.w), seed + 1);
    const int64_t Co = c.transposed ? c.w[1] * c.groups : c.w[0];
    auto b = input(Co, seed + 2);
    Reference ref = conv_reference(c, x, w, c.bias ? &b : nullptr);
    auto abs_of = [](std::vector<float> v) {
        for (float& e : v) e = std::abs(e);
        return v;
    };
    const std::vector<float> abs_b = abs_of(b);
    Reference magnitude = conv_reference(c, abs_of(x), abs_of(w), c.bias ? &abs_b : nullptr);
    ActivationRun r;
    r.min_sum = *std::min_element(ref.out.begin(), ref.out.end());
    r.max_sum = *std::max_element(ref.out.begin(), ref.out.end());
    for (double& v : ref.out) v = activation_ref(v, act);
    for (double& m : magnitude.out) m *= activation_slope(act);
    auto tensor = [&](const Shape& shape, const std::vector<float>& v) {
        return f16 ? half_tensor(shape, v) : ctx().tensor(DType::f32, shape).set_data(v);
    };
    Tensor out = f16 ? half_output(ref.out_shape) : ctx().tensor(DType::f32, ref.out_shape);
    if (!f16) poison(out);
    const bool one_d = c.x.size() == 3;
    Ints op_pad = c.output_padding.empty() ? Ints(one_d ? 1 : 2, 0) : c.output_padding;
    std::vector<Arg> args = {tensor(c.x, x),
                             tensor(c.w, w),
                             c.bias ? Arg(tensor({Co}, b)) : Arg(std::nullopt),
                             c.stride,
                             c.padding,
                             c.dilation,
                             c.transposed,
                             op_pad,
                             c.groups,
                             act,
                             out};
    ctx().reset();
    ctx().record(op("wgx.conv_activation.default"), args);
    ctx().submit();
    r.got = f16 ? read_half(out) : out.get_data<float>();
    ctx().reset();
    r.want = std::move(ref.out);
    r.magnitude = std::move(magnitude.out);
    return r;
}

// The worst relative error over the reference values below -1e-30 (SiLU's negative tail, which
// max_rel_error's scale of the largest value would hide; beyond it float32 is subnormal).
double negative_tail_error(const std::vector<float>& got, const std::vector<double>& want) {
    double worst = 0;
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        if (want[i] < -1e-30) worst = std::max(worst, std::abs(got[i] - want[i]) / -want[i]);
    }
    return worst;
}

// Every path: the 1x1 GEMM (plain and transposed), im2col + GEMM (3x3, stride 2, split K on
// GPUs), the direct kernel (grouped, transposed), the depthwise kernel (3x3, stride 2, 5x5 with
// multiplier 2, 5x5 stride 2), the workgroup-memory depthwise kernel (CPU adapters: 3x3 and 7x7
// over wide maps) and 1-D; batches of 2 and odd sizes among them.
const char* const kActivationCases[] = {
    "pointwise_bias",        "pointwise_transposed",   "direct_3x3_pad1", "direct_stride2",
    "direct_groups2",        "transposed_s2_op1",      "depthwise_3x3",   "depthwise_stride2",
    "depthwise_multiplier2", "depthwise_tiles_5x5_s2", "depthwise_tiles", "depthwise_tiles_7x7",
    "conv1d_stride2",        "im2col_split_k"};

TEST(ConvActivation, SiluAndHardswishOnEveryKernel) {
    for (const char* name : kActivationCases) {
        const ConvCase& c = conv_case(name);
        for (const std::string act : {"silu", "hardswish"}) {
            ActivationRun r = run_conv_activation(c, act, 1.f, DType::f32);
            EXPECT_LE(max_rel_error(r.got, r.want), 1e-5) << name << " " << act;
        }
        // Sums of +-100 and more: SiLU's sigmoid must neither overflow nor lose the tail.
        ActivationRun big = run_conv_activation(c, "silu", 16.f, DType::f32);
        EXPECT_LE(max_rel_error(big.got, big.want), 1e-5) << name << " silu x16";
        EXPECT_LE(negative_tail_error(big.got, big.want), 1e-3) << name << " silu x16";
        if (c.w[1] * c.w[2] * (c.w.size() > 3 ? c.w[3] : 1) >= 9) {
            EXPECT_LT(big.min_sum, -30.0) << name;  // the inputs do reach the tail
        }
    }
}

// The sums reach beyond hardswish's knees at -3 and 3 (so both clamps and the middle are
// taken), even on a depthwise case, whose sums have the fewest terms (9).
TEST(ConvActivation, SumsReachBeyondTheKnees) {
    ActivationRun r =
        run_conv_activation(conv_case("depthwise_stride2"), "hardswish", 1.f, DType::f32);
    EXPECT_LT(r.min_sum, -3.0);
    EXPECT_GT(r.max_sum, 3.0);
}

TEST(ConvActivation, Float16OnEveryKernel) {
    WGX_SKIP_WITHOUT_F16();
    for (const char* name : kActivationCases) {
        const ConvCase& c = conv_case(name);
        int64_t taps = 1;
        for (size_t d = 2; d < c.w.size(); ++d) taps *= c.w[d];
        const int64_t terms = c.x[1] / c.groups * taps + 2;
        for (const std::string act : {"silu", "hardswish"}) {
            for (float scale : {1.f, 8.f}) {
                ActivationRun r = run_conv_activation(c, act, scale, DType::f16, 501);
                EXPECT_LE(f16_error_ratio(r.got, r.want, r.magnitude, terms), 1.0)
                    << name << " " << act << " x" << scale;
            }
        }
    }
}

TEST(ConvActivation, RejectsBadArguments) {
    const char* name = "wgx.conv_activation.default";
    Tensor x = ctx().tensor(DType::f32, {1, 4, 8, 8});
    Tensor w = ctx().tensor(DType::f32, {6, 4, 3, 3});
    Tensor out = ctx().tensor(DType::f32, {1, 6, 6, 6});
    const Ints one{1, 1}, zero{0, 0};
    expect_rejected(name,
                    {x, w, std::nullopt, one, zero, one, false, zero, 1, std::string("gelu"), out},
                    {"activation", "\"silu\"", "\"hardswish\"", "\"gelu\""});
    expect_rejected(name, {x, w, std::nullopt, one, zero, one, false, zero, 1, int64_t(3), out},
                    {"activation", "string"});
    expect_rejected(name, {x, w, std::nullopt, one, zero, one, false, zero, 1, std::nullopt, out},
                    {"activation"});
    // No activation argument: one argument short.
    expect_rejected(name, {x, w, std::nullopt, one, zero, one, false, zero, 1, out}, {"arguments"});
    // The convolution's own checks still apply.
    Tensor bad_out = ctx().tensor(DType::f32, {1, 6, 8, 8});
    expect_rejected(
        name, {x, w, std::nullopt, one, zero, one, false, zero, 1, std::string("silu"), bad_out},
        {"out", "[1, 6, 6, 6]"});
}

}  // namespace
}  // namespace wgx::test
