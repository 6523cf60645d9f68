// Tile variants of the GEMM kernel (gemm.wgsl) and the WGSL text of each. A variant fixes the
// workgroup shape, the outputs each invocation keeps in registers and the K step; the shape flags
// (transposes, vec4 or scalar access per operand, bias) are chosen per call from the sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "graph/schema/fused_ops.h"
#include "wgx/device.h"

namespace wgx::ops {

struct GemmVariant {
    std::string_view name;  // "BMxBN/kBK/TMxTN", e.g. "128x128/k8/8x8"
    uint32_t wg_x, wg_y;    // workgroup: wg_x invocations along N, wg_y along M
    uint32_t tm, tn;        // outputs per invocation along M and N (multiples of 4)
    uint32_t bk;            // K step through workgroup memory (a multiple of 4)

    uint32_t bm() const { return wg_y * tm; }
    uint32_t bn() const { return wg_x * tn; }
    uint32_t invocations() const { return wg_x * wg_y; }
    uint32_t workgroup_bytes() const { return (bm() + bn()) * bk * 4; }
};

// Every variant, largest tiles first.
std::span<const GemmVariant> gemm_variants();
// nullptr when no variant has that name.
const GemmVariant* find_gemm_variant(std::string_view name);
// Whether the device's workgroup limits allow the variant.
bool gemm_variant_fits(const GemmVariant& v, const DeviceLimits& limits);
// The default for a problem: the largest tile that still gives the device enough workgroups to
// fill it, from a ladder for GPUs and one for CPU adapters (see gemm_kernel.cpp), among those
// that fit.
const GemmVariant& choose_gemm_variant(const DeviceInfo& device, uint64_t M, uint64_t N,
                                       uint64_t batch);

// How many K chunks (split K) the problem should be cut into with variant `v`: 1 unless its
// output tiles give a GPU too few invocations to fill it and K is long enough that every chunk
// still has several K steps (see gemm_kernel.cpp). Always 1 on CPU adapters.
uint32_t choose_gemm_splits(const DeviceInfo& device, const GemmVariant& v, uint64_t M, uint64_t N,
                            uint64_t K, uint64_t batch);

// An activation applied in the epilogue, after the bias (graph/schema/fused_ops.h); its value is
// the override value of gemv.wgsl and gemm_splitk_reduce.wgsl.
using Activation = schema::Activation;
// " gelu", " silu", ... for kernel labels; "" for none.
std::string activation_label(Activation a);
// The WGSL expression of `a` applied to the f32 expression `x` (`x` itself for none), as the
// engine's aten.gelu / aten.silu / aten.hardswish kernels compute it: GELU through
// common/math.wgsl's erf or tanh form, SiLU with its stable sigmoid (kernels that use it
// prepend math.wgsl).
std::string activation_wgsl(Activation a, std::string_view x);

// What, besides the variant, changes the kernel's text.
struct GemmShapeFlags {
    bool trans_a = false, trans_b = false;
    bool vec_a = false, vec_b = false, vec_c = false;  // vec4 access (sizes allow it)
    bool has_bias = false;
    bool has_residual = false;                 // residual epilogue (binding 5, C's layout)
    bool residual_mul = false;                 // ... multiplying instead of adding
    bool has_clamp = false;                    // clamp epilogue (Params out_min / out_max)
    Activation activation = Activation::none;  // after the bias
    bool has_scale = false;   // a per-column multiplier (binding 6) after the activation
    bool scale_rows = false;  // ... per row instead
    bool split_k = false;     // write raw partial sums per K chunk (see gemm.wgsl)
    bool f16 = false;         // A, B, bias, residual and C stored as float16 (with split_k,
                              // C is the float32 scratch of partial sums)
    // An implicit-GEMM convolution: B is a convolution's input, read as its unfolded (im2col)
    // matrix by gathering each element where it is loaded (gemm_implicit_conv.wgsl, geometry in
    // binding 6) with a kernel of conv_kh x conv_kw taps; 0 x 0: B is a matrix. Needs B stored
    // (not transposed), scalar access and no scale.
    uint32_t conv_kh = 0, conv_kw = 0;
    bool implicit_conv() const { return conv_kh != 0; }
    // 4-bit weights (GemmCall::q4): B is [N, Kp / 2] bytes read transposed as u32 words of 8
    // columns, q4_row_words a row, each weight (nibble - 8) * q4_scales[k / q4_group, n] (binding
    // 6); q4_high_first: the even column in the high nibble of its byte. Needs trans_b, float32
    // and no scale; 0: B is float.
    uint32_t q4_group = 0, q4_row_words = 0;
    bool q4_high_first = false;
    bool q4() const { return q4_group != 0; }
};

// The complete WGSL of one kernel (gemm.wgsl with the variant's code filled in).
std::string gemm_wgsl(const GemmVariant& v, const GemmShapeFlags& f);

}  // namespace wgx::ops
