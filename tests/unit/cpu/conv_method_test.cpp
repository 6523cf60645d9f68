// choose_conv_method (src/ops/conv/conv_method.h) without a device: each method from the
// problem's sizes and the limits, and the fallbacks when a grid or the unfold does not fit.
// That each method computes the convolution is tested on the GPU (tests/unit/conv_ops_test.cpp).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <ostream>

#include "ops/conv/conv_method.h"

namespace wgx::ops {

// Failures name the methods.
void PrintTo(ConvMethod m, std::ostream* os) { *os << to_string(m); }

namespace {

using enum ConvMethod;

// Lavapipe's limits (the tests' default adapter): 65535 workgroups per dimension, 2^31-byte
// bindings and buffers, 64-invocation direct workgroups.
ConvLimits cpu_limits() {
    ConvLimits l;
    l.cpu_adapter = true;
    l.max_workgroups_per_dimension = 65535;
    l.max_storage_binding_bytes = uint64_t(1) << 31;
    l.max_buffer_bytes = uint64_t(1) << 31;
    l.workgroup_size = 64;
    return l;
}

ConvLimits gpu_limits() {
    ConvLimits l = cpu_limits();
    l.cpu_adapter = false;
    return l;
}

// A 2-D convolution x [N, C_in, H, W] with a C_out x (C_in / groups) x k x k weight, its output
// size by PyTorch's formula.
ConvProblem conv(int64_t N, int64_t C_in, int64_t H, int64_t W, int64_t C_out, int64_t k,
                 int64_t stride = 1, int64_t pad = 0, int64_t groups = 1) {
    ConvProblem p;
    p.N = N, p.C_in = C_in, p.H_in = H, p.W_in = W;
    p.C_out = C_out, p.kH = k, p.kW = k;
    p.stride = {stride, stride};
    p.padding = {pad, pad};
    p.groups = groups;
    p.H_out = (H + 2 * pad - k) / stride + 1;
    p.W_out = (W + 2 * pad - k) / stride + 1;
    return p;
}

// The transposed form: weight [C_in, C_out / groups, k, k].
ConvProblem conv_transposed(int64_t N, int64_t C_in, int64_t H, int64_t W, int64_t C_out, int64_t k,
                            int64_t stride = 1, int64_t pad = 0) {
    ConvProblem p = conv(N, C_in, H, W, C_out, k, stride, pad);
    p.transposed = true;
    p.H_out = (H - 1) * stride - 2 * pad + k;
    p.W_out = (W - 1) * stride - 2 * pad + k;
    return p;
}

ConvMethod choose(const ConvProblem& p, const ConvLimits& l, bool implicit = true) {
    return choose_conv_method(p, l, implicit);
}

TEST(ConvMethod, PointwiseIsTheGemmOnTheInput) {
    EXPECT_EQ(pointwise_gemm, choose(conv(1, 32, 56, 56, 64, 1), cpu_limits()));
    EXPECT_EQ(pointwise_gemm, choose(conv(8, 3, 7, 5, 1, 1), gpu_limits()));
    // Transposed 1x1 too (the weight read transposed), and regardless of WGX_IMPLICIT_GEMM.
    EXPECT_EQ(pointwise_gemm, choose(conv_transposed(2, 16, 9, 9, 24, 1), cpu_limits()));
    EXPECT_EQ(pointwise_gemm, choose(conv(1, 32, 56, 56, 64, 1), cpu_limits(), false));
    // A 1-D one (height 1).
    ConvProblem one_d = conv(1, 4, 1, 31, 6, 1);
    one_d.dims = 1;
    EXPECT_EQ(pointwise_gemm, choose(one_d, cpu_limits()));
}

TEST(ConvMethod, PointwiseWithStridePaddingOrGroupsIsNot) {
    // Strided or padded 1x1: the implicit GEMM.
    EXPECT_EQ(implicit_gemm, choose(conv(1, 32, 56, 56, 64, 1, 2), cpu_limits()));
    EXPECT_EQ(implicit_gemm, choose(conv(1, 32, 56, 56, 64, 1, 1, 1), cpu_limits()));
    // A transposed 1x1 with output padding: the direct kernel.
    ConvProblem op = conv_transposed(1, 8, 5, 5, 8, 1);
    op.dilation = {2, 2}, op.output_padding = {1, 1};
    op.H_out += 1, op.W_out += 1;
    EXPECT_EQ(direct, choose(op, cpu_limits()));
    // Grouped 1x1 with several channels per group, one image: the grouped implicit GEMM.
    EXPECT_EQ(grouped_implicit_gemm, choose(conv(1, 64, 14, 14, 64, 1, 1, 0, 4), gpu_limits()));
}

TEST(ConvMethod, UngroupedIsTheImplicitGemm) {
    EXPECT_EQ(implicit_gemm, choose(conv(1, 3, 224, 224, 32, 3, 2, 1), cpu_limits()));
    EXPECT_EQ(implicit_gemm, choose(conv(4, 64, 56, 56, 64, 3, 1, 1), gpu_limits()));
    // Odd sizes, several images, an asymmetric kernel and dilation.
    ConvProblem odd = conv(3, 5, 13, 7, 11, 3);
    odd.kW = 5, odd.dilation = {2, 1};
    odd.H_out = 13 - 2 * 2, odd.W_out = 7 - 4;
    EXPECT_EQ(implicit_gemm, choose(odd, cpu_limits()));
    // float16 changes nothing.
    ConvProblem half = conv(1, 16, 32, 32, 16, 3, 1, 1);
    half.dtype = DType::f16;
    EXPECT_EQ(implicit_gemm, choose(half, gpu_limits()));
}

TEST(ConvMethod, GroupedOfOneImageWithSeveralChannelsPerGroupIsTheGroupedImplicitGemm) {
    // RegNet / ResNeXt: 8 input channels per group.
    EXPECT_EQ(grouped_implicit_gemm, choose(conv(1, 64, 28, 28, 64, 3, 1, 1, 8), cpu_limits()));
    EXPECT_EQ(grouped_implicit_gemm, choose(conv(1, 6, 9, 9, 4, 3, 2, 1, 2), gpu_limits()));
    // Several images: the direct kernel (the weight offset would wrap with the group).
    EXPECT_EQ(direct, choose(conv(2, 64, 28, 28, 64, 3, 1, 1, 8), cpu_limits()));
    // Under WGX_IMPLICIT_GEMM=0 grouped ones have no unfold form: the direct kernel.
    EXPECT_EQ(direct, choose(conv(1, 64, 28, 28, 64, 3, 1, 1, 8), cpu_limits(), false));
}

TEST(ConvMethod, WithoutTheImplicitGemmTheUnfoldWhenItFits) {
    EXPECT_EQ(im2col_gemm, choose(conv(1, 3, 224, 224, 32, 3, 2, 1), cpu_limits(), false));
    EXPECT_EQ(im2col_gemm, choose(conv(2, 5, 13, 7, 11, 3), gpu_limits(), false));
    // Unfolded [N, C_in * 9, HW] of 64 * 9 * 64 * 64 floats = 9 MiB: a 8 MiB binding is too
    // small, a 16 MiB one large enough; the buffer limit counts too. float16 halves it.
    const ConvProblem p = conv(1, 64, 64, 64, 64, 3, 1, 1);
    ConvLimits small = cpu_limits();
    small.max_storage_binding_bytes = 8 << 20;
    EXPECT_EQ(direct, choose(p, small, false));
    small.max_storage_binding_bytes = 16 << 20;
    EXPECT_EQ(im2col_gemm, choose(p, small, false));
    small.max_buffer_bytes = 8 << 20;
    EXPECT_EQ(direct, choose(p, small, false));
    ConvProblem half = p;
    half.dtype = DType::f16;
    EXPECT_EQ(im2col_gemm, choose(half, small, false));
    // The exact limit: 64 * 9 * 4096 * 4 bytes fit a binding of that size, not one byte less.
    ConvLimits exact = cpu_limits();
    exact.max_storage_binding_bytes = uint64_t(64) * 9 * 4096 * 4;
    EXPECT_EQ(im2col_gemm, choose(p, exact, false));
    exact.max_storage_binding_bytes -= 1;
    EXPECT_EQ(direct, choose(p, exact, false));
    // More than 2^32 elements cannot be indexed, whatever the binding limit.
    ConvLimits huge = cpu_limits();
    huge.max_storage_binding_bytes = huge.max_buffer_bytes = uint64_t(1) << 40;
    EXPECT_EQ(direct, choose(conv(128, 256, 130, 130, 64, 3, 1, 1), huge, false));
    EXPECT_EQ(im2col_gemm, choose(conv(1, 256, 130, 130, 64, 3, 1, 1), huge, false));
}

TEST(ConvMethod, TransposedIsDirect) {
    EXPECT_EQ(direct, choose(conv_transposed(1, 16, 8, 8, 8, 3, 2, 1), cpu_limits()));
    EXPECT_EQ(direct, choose(conv_transposed(1, 16, 8, 8, 8, 3, 2, 1), gpu_limits(), false));
    // Transposed depthwise too.
    ConvProblem dw = conv_transposed(1, 4, 40, 40, 4, 3);
    dw.groups = 4;
    EXPECT_EQ(direct, choose(dw, cpu_limits()));
}

TEST(ConvMethod, DepthwiseTiledOnCpuAdaptersForStrideOneOnWideMaps) {
    const ConvProblem dw = conv(1, 32, 56, 56, 32, 3, 1, 1, 32);
    EXPECT_EQ(depthwise_tiled, choose(dw, cpu_limits()));
    EXPECT_EQ(depthwise_tiled, choose(dw, cpu_limits(), false));
    // GPUs keep the plain depthwise kernel.
    EXPECT_EQ(depthwise, choose(dw, gpu_limits()));
    // Stride 2, or a map narrower than a 32-column tile: the plain depthwise kernel.
    EXPECT_EQ(depthwise, choose(conv(1, 32, 56, 56, 32, 3, 2, 1, 32), cpu_limits()));
    EXPECT_EQ(depthwise_tiled, choose(conv(1, 8, 5, 32, 8, 3, 1, 1, 8), cpu_limits()));
    EXPECT_EQ(depthwise, choose(conv(1, 8, 5, 31, 8, 3, 1, 1, 8), cpu_limits()));
    // Several images, odd sizes, a 7x7 kernel.
    EXPECT_EQ(depthwise_tiled, choose(conv(3, 5, 19, 45, 5, 7, 1, 3, 5), cpu_limits()));
    // A 1-D depthwise convolution.
    ConvProblem one_d = conv(1, 6, 1, 64, 6, 1, 1, 0, 6);
    one_d.dims = 1, one_d.kW = 3, one_d.W_out = 62;
    EXPECT_EQ(depthwise_tiled, choose(one_d, cpu_limits()));
    // A workgroup of fewer than 64 invocations: the plain depthwise kernel.
    ConvLimits small_wg = cpu_limits();
    small_wg.workgroup_size = 32;
    EXPECT_EQ(depthwise, choose(dw, small_wg));
}

TEST(ConvMethod, DepthwiseTiledNeedsTheStagedTileToFit) {
    // Staged (7 + (k - 1) * dilation + 1) x (31 + (k - 1) * dilation + 1) <= 1456 elements:
    // 7x7 at dilation 3 stages 26 x 50 = 1300, at dilation 4 32 x 56 = 1792.
    ConvProblem p = conv(1, 4, 80, 80, 4, 7, 1, 9, 4);
    p.dilation = {3, 3};
    p.H_out = p.W_out = 80 + 18 - 18;
    EXPECT_EQ(depthwise_tiled, choose(p, cpu_limits()));
    p.dilation = {4, 4};
    p.H_out = p.W_out = 80 + 18 - 24;
    EXPECT_EQ(depthwise, choose(p, cpu_limits()));
    // An 11 x 11 kernel: 18 x 42 = 756 fits.
    EXPECT_EQ(depthwise_tiled, choose(conv(1, 2, 40, 40, 2, 11, 1, 5, 2), cpu_limits()));
}

TEST(ConvMethod, ChannelMultiplierOfFourOrMoreIsDirect) {
    // One input channel per group: multiplier 1 tiles on CPU adapters, 2 and 3 take the plain
    // depthwise kernel, 4 and more the direct kernel.
    EXPECT_EQ(depthwise, choose(conv(1, 5, 40, 40, 10, 5, 1, 2, 5), cpu_limits()));
    EXPECT_EQ(depthwise, choose(conv(1, 5, 40, 40, 15, 5, 1, 2, 5), gpu_limits()));
    EXPECT_EQ(direct, choose(conv(1, 5, 40, 40, 20, 5, 1, 2, 5), cpu_limits()));
    EXPECT_EQ(direct, choose(conv(1, 4, 9, 9, 32, 3, 1, 1, 4), gpu_limits()));
    // A single channel (one group of one): ungrouped, so the implicit GEMM.
    EXPECT_EQ(implicit_gemm, choose(conv(1, 1, 1, 1, 1, 3, 1, 1), cpu_limits()));
}

TEST(ConvMethod, GridsBeyondThePerDimensionLimitFallBack) {
    ConvLimits l = cpu_limits();
    l.max_workgroups_per_dimension = 64;
    // 1x1 over 64 * 32 + 1 columns: 65 column tiles, too many for the GEMM; without the tiled
    // depthwise path (not depthwise), the direct kernel.
    const ConvProblem wide = conv(1, 8, 1, 64 * 32 + 1, 8, 1);
    EXPECT_EQ(direct, choose(wide, l));
    EXPECT_EQ(direct, choose(wide, l, false));
    const ConvProblem fits = conv(1, 8, 1, 64 * 32, 8, 1);
    EXPECT_EQ(pointwise_gemm, choose(fits, l));
    // Too many output channels (65 row tiles) or images.
    EXPECT_EQ(direct, choose(conv(1, 8, 4, 4, 64 * 32 + 1, 1), l));
    EXPECT_EQ(pointwise_gemm, choose(conv(64, 8, 4, 4, 8, 1), l));
    EXPECT_EQ(direct, choose(conv(65, 8, 4, 4, 8, 3, 1, 1), l));
    EXPECT_EQ(direct, choose(conv(65, 8, 4, 4, 8, 3, 1, 1), l, false));
    // Grouped: the groups are the batch, one group's channels the rows.
    EXPECT_EQ(grouped_implicit_gemm, choose(conv(1, 128, 8, 8, 128, 3, 1, 1, 64), l));
    EXPECT_EQ(direct, choose(conv(1, 130, 8, 8, 130, 3, 1, 1, 65), l));
    // Depthwise tiled: 64 * 32 + 1 columns need 65 column tiles, 64 * 8 + 1 rows 65 row tiles,
    // 65 planes (images x channels) 65 z; each falls back to the plain depthwise kernel.
    EXPECT_EQ(depthwise_tiled, choose(conv(1, 2, 8, 64 * 32, 2, 3, 1, 1, 2), l));
    EXPECT_EQ(depthwise, choose(conv(1, 2, 8, 64 * 32 + 1, 2, 3, 1, 1, 2), l));
    EXPECT_EQ(depthwise_tiled, choose(conv(1, 2, 64 * 8, 32, 2, 3, 1, 1, 2), l));
    EXPECT_EQ(depthwise, choose(conv(1, 2, 64 * 8 + 1, 32, 2, 3, 1, 1, 2), l));
    EXPECT_EQ(depthwise_tiled, choose(conv(32, 2, 8, 32, 2, 3, 1, 1, 2), l));
    EXPECT_EQ(depthwise, choose(conv(13, 5, 8, 32, 5, 3, 1, 1, 5), l));
}

TEST(ConvMethod, NamesAreDistinct) {
    const std::array all{
        ConvMethod::pointwise_gemm, ConvMethod::implicit_gemm,   ConvMethod::grouped_implicit_gemm,
        ConvMethod::im2col_gemm,    ConvMethod::depthwise_tiled, ConvMethod::depthwise,
        ConvMethod::direct};
    for (size_t i = 0; i < all.size(); ++i) {
        for (size_t j = i + 1; j < all.size(); ++j) EXPECT_NE(to_string(all[i]), to_string(all[j]));
    }
}

}  // namespace
}  // namespace wgx::ops
