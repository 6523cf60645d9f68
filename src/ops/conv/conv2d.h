// Shared machinery of the convolution ops (aten.convolution, et_vk.conv_with_clamp,
// wgx.conv_add_clamp, wgx.conv_activation): the uniform struct mirrored by conv_params.wgsl and
// record_convolution, which parses and validates the arguments (conv_problem.h), chooses a
// method (conv_method.h) and records it (conv2d.cpp). 1-D convolutions run as 2-D ones with a
// height of 1.
#pragma once

#include <cstddef>
#include <cstdint>

#include "wgx/op.h"

namespace wgx::ops {

// Mirrors `struct Params` of conv_params.wgsl.
struct ConvParams {
    uint32_t N, C_in, H_in, W_in;
    uint32_t C_out, H_out, W_out, groups;
    uint32_t kH, kW, stride_h, stride_w;
    uint32_t pad_h, pad_w, dil_h, dil_w;
    uint32_t cin_g, cout_g;        // channels per group
    uint32_t co_blocks, x_blocks;  // ceil(cout_g / 4), ceil(W_out / 4): per-thread tiles
    uint32_t threads;              // invocations of the 1-D kernels
    uint32_t flags;                // kConvHasBias | kConvHasMin | kConvHasMax
    float out_min, out_max;
};
static_assert(sizeof(ConvParams) == 96);
static_assert(offsetof(ConvParams, C_out) == 16);
static_assert(offsetof(ConvParams, kH) == 32);
static_assert(offsetof(ConvParams, pad_h) == 48);
static_assert(offsetof(ConvParams, cin_g) == 64);
static_assert(offsetof(ConvParams, threads) == 80);
static_assert(offsetof(ConvParams, out_min) == 88);

inline constexpr uint32_t kConvHasBias = 1, kConvHasMin = 2, kConvHasMax = 4;

// Which schema the args follow: what comes after `groups` and before `out`.
enum class ConvSchema {
    plain,           // aten.convolution: nothing
    clamp,           // et_vk.conv_with_clamp: output_min?, output_max?
    residual_clamp,  // wgx.conv_add_clamp (the fusion pass's op): residual, output_min?,
                     // output_max?
    activation,      // wgx.conv_activation (the fusion pass's op): activation ("silu", "hardswish")
};

// Parses [input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups,
// (the schema's extras,) out] and records the convolution. Its epilogue, on every path (the
// GEMM's and the direct kernels'), in the GEMM's order: the bias, the activation, the residual,
// the clamp. The tensors are all float32, or all float16 (stored as float16,
// computed in float32, rounded once on the store; needs shader-f16).
void record_convolution(Recorder& rec, const Args& args, ConvSchema form);

}  // namespace wgx::ops
