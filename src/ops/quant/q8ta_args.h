// The arguments shared by ExecuTorch's Vulkan q8ta_* ops (int8 activations with one scale and
// zero point per tensor, the static quantization of PT2E's XNNPACK and Vulkan quantizers), each
// failing with the op's and the argument's name.
#pragma once

#include <cstdint>
#include <string_view>

#include "wgx/op.h"

namespace wgx::ops::q8ta {

// One tensor's quantization: real = (q - zero_point) * scale, q = clamp(round(real *
// inv_scale) + zero_point, -128, 127) with inv_scale = 1 / scale rounded once to float32, as
// quantize_per_tensor computes it.
struct QParam {
    float scale = 1, inv_scale = 1;
    int32_t zero_point = 0;
};

// An int8 zero point (-128..127) at `i`, named `<what>_zero_point` in errors.
int32_t zero_point_arg(const Args& args, size_t i, std::string_view what);

// The scale at `scale_at` (> 0, a normal float32) and the int8 zero point at `zp_at`.
QParam qparam_args(const Args& args, size_t scale_at, size_t zp_at, std::string_view what);

// The fused activation argument: "none" (or absent) 0, "relu" 1.
uint32_t activation_arg(const Args& args, size_t i);

// Fails unless t is int8 with `rank` dims.
void expect_int8(const Args& args, const Tensor& t, int64_t rank, std::string_view name);

}  // namespace wgx::ops::q8ta
