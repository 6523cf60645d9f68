// A convolution's arguments, parsed and validated: what the method choice (conv_method.h) and
// the recorders (conv2d.cpp) work from. 1-D convolutions are held as 2-D ones over a height of 1.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "graph/schema/fused_ops.h"
#include "ops/conv/conv2d.h"
#include "wgx/dtype.h"
#include "wgx/op.h"

namespace wgx::ops {

// Sizes and options only (no tensors), so the method choice can be tested without a device.
struct ConvProblem {
    DType dtype = DType::f32;  // of every tensor: f32 or f16
    int dims = 2;              // the tensors' spatial dimensions: 1 ([N, C, L]) or 2
    // Shapes as 2-D: [N, C_in, H_in, W_in] -> [N, C_out, H_out, W_out], H = 1 for 1-D.
    int64_t N = 1, C_in = 1, H_in = 1, W_in = 1;
    int64_t C_out = 1, H_out = 1, W_out = 1;
    int64_t kH = 1, kW = 1;
    // Per dimension (height, width); a 1-D convolution's height has the neutral value.
    std::array<int64_t, 2> stride{1, 1}, padding{0, 0}, dilation{1, 1}, output_padding{0, 0};
    int64_t groups = 1;
    bool transposed = false;
    bool has_bias = false;
    bool has_residual = false;  // wgx.conv_add_clamp's residual, of out's shape
    schema::Activation activation = schema::Activation::none;
    std::optional<float> out_min, out_max;  // the clamp bounds; absent: unbounded

    int64_t cin_g() const { return C_in / groups; }    // input channels per group
    int64_t cout_g() const { return C_out / groups; }  // output channels per group
};

// The tensors of one convolution (bias and residual as the schema has them).
struct ConvOperands {
    Tensor input, weight;
    std::optional<Tensor> bias, residual;
    Tensor out;
};

struct ParsedConvolution {
    ConvProblem problem;
    ConvOperands operands;
};

// Parses `args` in the schema `form` (see record_convolution) and checks them; a failure throws
// InvalidArgument through `args`.
ParsedConvolution parse_convolution(const Recorder& rec, const Args& args, ConvSchema form);

}  // namespace wgx::ops
