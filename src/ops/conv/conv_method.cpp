#include "ops/conv/conv_method.h"

#include <limits>

#include "core/dispatch_geometry.h"

namespace wgx::ops {
namespace {

// A size as the kernels' uniform (ConvParams) holds it.
uint64_t as_u32(int64_t v) { return uint32_t(v); }

}  // namespace

std::string_view to_string(ConvMethod m) {
    switch (m) {
        case ConvMethod::pointwise_gemm: return "pointwise_gemm";
        case ConvMethod::implicit_gemm: return "implicit_gemm";
        case ConvMethod::grouped_implicit_gemm: return "grouped_implicit_gemm";
        case ConvMethod::im2col_gemm: return "im2col_gemm";
        case ConvMethod::depthwise_tiled: return "depthwise_tiled";
        case ConvMethod::depthwise: return "depthwise";
        case ConvMethod::direct: return "direct";
    }
    return "?";
}

ConvMethod choose_conv_method(const ConvProblem& pr, const ConvLimits& limits,
                              bool implicit_gemm_enabled) {
    const uint32_t max_dim = limits.max_workgroups_per_dimension;
    const uint64_t HW = uint64_t(pr.H_out) * uint64_t(pr.W_out);
    const uint64_t N = uint64_t(pr.N), C_out = uint64_t(pr.C_out), groups = uint64_t(pr.groups);
    const bool stride_1 = pr.stride[0] == 1 && pr.stride[1] == 1;
    // The GEMM's grid: 32 x 32 output tiles of [C_out, HW], one image per z.
    const bool gemm_grid_fits =
        ceil_div(HW, 32) <= max_dim && ceil_div(C_out, 32) <= max_dim && N <= max_dim;

    // A 1x1, stride-1, unpadded, ungrouped convolution is a GEMM per image on the input itself
    // (plain or transposed).
    const bool pointwise = pr.kH == 1 && pr.kW == 1 && stride_1 && pr.padding[0] == 0 &&
                           pr.padding[1] == 0 && pr.output_padding[0] == 0 &&
                           pr.output_padding[1] == 0 && pr.groups == 1;
    if (pointwise && gemm_grid_fits) return ConvMethod::pointwise_gemm;

    // Any other ungrouped, non-transposed convolution is the same GEMM gathering its unfolded
    // input. A grouped one of one image with several input channels per group (RegNet's and
    // ResNeXt's 3x3 convolutions) is that GEMM batched over its groups. Depthwise convolutions
    // (one input channel per group) keep their own kernels; grouped ones over several images
    // would need a weight offset that wraps with the group, so they take the direct kernel.
    const bool grouped = pr.groups > 1;
    const bool implicit_fits =
        grouped ? pr.cin_g() > 1 && pr.N == 1 && ceil_div(HW, 32) <= max_dim &&
                      ceil_div(uint64_t(pr.C_out / pr.groups), 32) <= max_dim && groups <= max_dim
                : gemm_grid_fits;
    if (!pr.transposed && implicit_fits && implicit_gemm_enabled) {
        return grouped ? ConvMethod::grouped_implicit_gemm : ConvMethod::implicit_gemm;
    }

    // The explicit form unfolds the input into a scratch [N, C_in * kH * kW, HW] of the input's
    // element type: it must fit one binding and be indexable by u32.
    const uint64_t K = uint64_t(pr.C_in) * uint64_t(pr.kH) * uint64_t(pr.kW);
    const uint64_t unfolded = N * K * HW;
    const uint64_t unfolded_bytes = unfolded * device_size(pr.dtype);
    if (!pr.transposed && pr.groups == 1 && unfolded_bytes <= limits.max_storage_binding_bytes &&
        unfolded_bytes <= limits.max_buffer_bytes &&
        unfolded <= std::numeric_limits<uint32_t>::max() && gemm_grid_fits) {
        return ConvMethod::im2col_gemm;
    }

    // Pure depthwise (one output channel per group) through workgroup memory, when the staged
    // input tile (8 x 32 outputs and their halo) fits conv2d_depthwise_tiled.wgsl's buffer
    // (1456 elements) and the grid the limits. Only on CPU adapters, for stride 1 on maps at
    // least one tile wide, where every staged element serves kH x kW outputs (narrow maps idle
    // a tile, stride 2 halves the reuse); GPUs keep the plain depthwise kernel, whose taps their
    // caches serve: docs/PERFORMANCE.md#depthwise-kernels. Its workgroup is 64 invocations.
    const uint64_t stride_h = as_u32(pr.stride[0]), stride_w = as_u32(pr.stride[1]);
    const uint64_t dil_h = as_u32(pr.dilation[0]), dil_w = as_u32(pr.dilation[1]);
    const uint64_t staged_rows = 7 * stride_h + (uint64_t(pr.kH) - 1) * dil_h + 1;
    const uint64_t staged_cols = 31 * stride_w + (uint64_t(pr.kW) - 1) * dil_w + 1;
    const uint64_t tiles_x = (uint64_t(pr.W_out) + 31) / 32;
    const uint64_t tiles_y = (uint64_t(pr.H_out) + 7) / 8;
    const uint64_t planes = N * C_out;
    if (limits.cpu_adapter && !pr.transposed && pr.cin_g() == 1 && pr.cout_g() == 1 &&
        limits.workgroup_size == 64 && stride_h == 1 && stride_w == 1 && pr.W_out >= 32 &&
        staged_rows * staged_cols <= 1456 && tiles_x <= max_dim && tiles_y <= max_dim &&
        planes <= max_dim) {
        return ConvMethod::depthwise_tiled;
    }
    // One input channel per group and few outputs per group (depthwise, channel multiplier
    // < 4): one thread per output channel and 4 columns, no wasted channel lanes.
    if (!pr.transposed && pr.cin_g() == 1 && pr.cout_g() < 4) return ConvMethod::depthwise;
    return ConvMethod::direct;
}

}  // namespace wgx::ops
