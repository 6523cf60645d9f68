// Shared machinery of the 2-D resize ops (upsample_nearest2d.vec, upsample_bilinear2d.vec):
// the output-size check against output_size / scale_factors, PyTorch's source-index scales and
// the uniform struct mirrored by resize_common.wgsl. Inputs are [N, C, H, W].
#pragma once

#include <cstddef>
#include <cstdint>

#include "wgx/op.h"

namespace wgx::ops {

// Mirrors `struct Params` of resize_common.wgsl.
struct ResizeParams {
    uint32_t planes, H_in, W_in, H_out;
    uint32_t W_out, total;
    float scale_h, scale_w;  // source step per output step, as PyTorch computes it (float)
    uint32_t align_corners;
    uint32_t pad0, pad1, pad2;
};
static_assert(sizeof(ResizeParams) == 48);
static_assert(offsetof(ResizeParams, W_out) == 16);
static_assert(offsetof(ResizeParams, scale_h) == 24);
static_assert(offsetof(ResizeParams, align_corners) == 32);

// Validates x [N, C, H, W] and out [N, C, H_out, W_out] (same dtype) against output_size
// (argument `size_index`, none or 2 ints) and scale_factors (`scales_index`, none or 2
// numbers): exactly one is given; the output is that size, or floor(in * scale). Fills the
// sizes of `p` and returns the scale factors when given (else 0, 0).
std::pair<double, double> check_resize(const Args& args, const Tensor& x, const Tensor& out,
                                       size_t size_index, size_t scales_index, ResizeParams& p);

// PyTorch's compute_scales_value<float>: 1 / scale when a positive scale factor was given,
// else in / out.
float resize_scale(double scale_factor, int64_t in, int64_t out);

// Records one thread per output element of a resize kernel.
void dispatch_resize(Recorder& rec, const Kernel& kernel, const Tensor& x, const Tensor& out,
                     const ResizeParams& p, uint32_t wg);

}  // namespace wgx::ops
