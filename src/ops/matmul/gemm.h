// A GEMM with the epilogue linear and addmm need: C = alpha * A @ op(B) + beta * bias, with B
// optionally read transposed and a broadcast bias. See gemm.wgsl.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "wgx/op.h"

namespace wgx::ops {

struct GemmParams {
    uint32_t M, N, K, batch;
    uint32_t a_batch_stride, b_batch_stride, c_batch_stride, bias_batch_stride;
    uint32_t bias_row_stride, bias_col_stride;
    float alpha, beta;
};
static_assert(sizeof(GemmParams) == 48);
static_assert(offsetof(GemmParams, bias_row_stride) == 32);
static_assert(offsetof(GemmParams, alpha) == 40);

// Records c = alpha * a @ op(b) + beta * bias (float32). trans_b: b holds [N, K]. An absent
// bias (or beta = 0, which PyTorch treats as "ignore the bias, NaN included") adds nothing.
void record_gemm(Recorder& rec, std::string_view label, const Tensor& a, const Tensor& b,
                 const std::optional<Tensor>& bias, const Tensor& c, const GemmParams& p,
                 bool trans_b);

}  // namespace wgx::ops
