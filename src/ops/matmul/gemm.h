// The engine's one GEMM (float32, or float16 storage with float32 arithmetic), used by mm, bmm,
// matmul, addmm and linear, and by convolutions: a 1x1 one with A = weight [C_out, C_in] shared
// across the batch, B = image [C_in, H*W]; a k x k one with B the image read as its unfolded
// matrix (GemmCall::conv, an implicit GEMM):
//   C[z] = alpha * op(A[z]) @ op(B[z]) + beta * bias    for z < batch
// followed by the optional epilogue steps, in this order: an activation (GELU, SiLU,
// hardswish), a scale per column or row, a residual (added or multiplied), a clamp.
// See gemm.wgsl for the tile kernel, gemm_kernel.h for its variants and gemv.wgsl for the kernel
// of few rows (a batch-1 linear layer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>

#include "ops/matmul/gemm_kernel.h"
#include "wgx/op.h"

namespace wgx::ops {

// The caller-set part of `struct Params` (gemm_params.wgsl).
struct GemmParams {
    uint32_t M, N, K, batch;
    uint32_t a_batch_stride, b_batch_stride, c_batch_stride, bias_batch_stride;
    uint32_t bias_row_stride, bias_col_stride;
    float alpha, beta;
};
static_assert(sizeof(GemmParams) == 48);
static_assert(offsetof(GemmParams, a_batch_stride) == 16);
static_assert(offsetof(GemmParams, bias_row_stride) == 32);
static_assert(offsetof(GemmParams, alpha) == 40);

// Mirrors `struct Params` of gemm_params.wgsl, the uniform of gemm.wgsl, gemv.wgsl and
// gemm_splitk_reduce.wgsl: the caller's parameters and what record_gemm decides (split K) or
// takes from GemmCall (the clamp, C's row stride).
struct GemmUniform {
    GemmParams p;
    uint32_t k_chunk, splits;
    float out_min, out_max;
    uint32_t c_row_stride, pad0, pad1, pad2;
};
static_assert(sizeof(GemmUniform) == 80);

// Mirrors `struct ConvGeometry` of gemm_implicit_conv.wgsl: where an implicit-GEMM convolution's
// B operand (GemmCall::conv) gathers from. B is then the input [batch, C_in, H_in, W_in] read as
// the unfolded [C_in * kH * kW, H_out * W_out] per image: p.K = C_in * kH * kW, p.N = H_out *
// W_out, p.b_batch_stride = C_in * H_in * W_in.
struct GemmConvGeometry {
    uint32_t H_in, W_in, plane, W_out;  // plane = H_in * W_in
    uint32_t stride_h, stride_w, pad_h, pad_w;
    uint32_t dil_h, dil_w, kH, kW;
};
static_assert(sizeof(GemmConvGeometry) == 48);

// The variant name that forces the few-rows kernel (gemv.wgsl); it is the default for M <=
// kGemvMaxRows when A is not transposed.
inline constexpr std::string_view kGemvVariant = "gemv";
inline constexpr uint32_t kGemvMaxRows = 4;

// B of 4-bit group-wise weights (a prefill of et_vk.linear_q4gsw): B holds [N, Kp / 2] bytes,
// two columns a byte, read transposed; weight (n, k) = (nibble - 8) * scales[k / group, n].
struct GemmQ4 {
    Tensor scales;  // float32 [K / group, N]
    uint32_t group = 0;
    uint32_t row_words = 0;   // u32 words of one row of B (Kp / 8)
    bool high_first = false;  // the even column in the high nibble (et_vk.linear_qcs4w)
};

// The tensors are all float32 or all float16 (InvalidArgument otherwise), but for 4-bit weights.
struct GemmCall {
    Tensor a, b;  // A [M, K] (trans_a: [K, M]), B [K, N] (trans_b: [N, K]), per batch
    std::optional<Tensor> bias;  // absent, or beta = 0 (PyTorch then ignores it, NaN included)
    Tensor c;                    // [M, N] per batch
    GemmParams p{};
    bool trans_a = false;
    bool trans_b = false;
    // Applied to alpha * product + beta * bias (a linear layer's or a convolution's fused
    // activation).
    Activation activation = Activation::none;
    // Multiplies the activation's result: one value per column of C (N values), or with
    // scale_rows per row (M values), the same for every batch (a layer scale).
    std::optional<Tensor> scale;
    bool scale_rows = false;
    // Added after the scale: a tensor laid out as C (c_batch_stride per batch, rows of N).
    std::optional<Tensor> residual;
    // The residual multiplies instead (a SwiGLU layer: silu(x gate^T) times x up^T).
    bool residual_multiplies = false;
    // A clamp epilogue (a convolution's fused activation): absent bounds are unbounded.
    std::optional<float> out_min, out_max;
    // A variant by name (tests and the micro-benchmark's sweep) or kGemvVariant; empty: the
    // default (gemv for few rows, else choose_gemm_variant).
    std::string_view variant;
    // K chunks (split K, see gemm.wgsl): 0 = choose_gemm_splits, 1 = none; not for gemv.
    uint32_t splits = 0;
    // B is a convolution's input gathered as its unfolded matrix (an implicit GEMM, see
    // GemmConvGeometry); always the tile kernel; not with trans_b or a scale.
    std::optional<GemmConvGeometry> conv;
    // Elements between the rows of C and of the residual (0: N). Larger when C is a range of
    // the columns of a wider matrix: one part of a weight too large for one binding.
    uint32_t c_row_stride = 0;
    // B is 4-bit weights (trans_b, float32, the tile kernel, one binding, no scale or conv).
    std::optional<GemmQ4> q4;
};

// Records one GEMM dispatch (two with split K). Strides and sizes must describe elements inside
// the tensors (the callers' checks); throws InvalidArgument when the grid exceeds the device's
// limits or the named variant is unknown or does not fit the device. A B [N, K] read transposed
// (a linear layer's weight) larger than one storage binding, in a GEMM of one batch, is bound
// in ranges of its rows (ops/common/row_split.h), one GEMM each computing those columns of C.
void record_gemm(Recorder& rec, std::string_view label, const GemmCall& call);

// The form addmm and linear use: c = alpha * a @ op(b) + beta * bias, trans_b: b holds [N, K].
void record_gemm(Recorder& rec, std::string_view label, const Tensor& a, const Tensor& b,
                 const std::optional<Tensor>& bias, const Tensor& c, const GemmParams& p,
                 bool trans_b);

}  // namespace wgx::ops
