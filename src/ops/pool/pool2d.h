// Shared machinery of the 2-D pooling ops (max_pool2d[_with_indices], avg_pool2d,
// adaptive_avg_pool2d): window arguments, PyTorch's output-size formula, the uniform struct
// mirrored by the pool kernels, and dispatch. Inputs are [C, H, W] or [N, C, H, W]; every
// leading dim is folded into a count of planes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "wgx/op.h"

namespace wgx::ops {

// Mirrors `struct Params` of the pool kernels.
struct PoolParams {
    uint32_t planes, H_in, W_in, H_out;
    uint32_t W_out, kH, kW, stride_h;
    uint32_t stride_w, pad_h, pad_w, dil_h;
    uint32_t dil_w, total, flags;
    int32_t divisor;  // avg: divisor_override when kPoolHasDivisor; max: bits of the start value
};
static_assert(sizeof(PoolParams) == 64);
static_assert(offsetof(PoolParams, W_out) == 16);
static_assert(offsetof(PoolParams, stride_w) == 32);
static_assert(offsetof(PoolParams, dil_w) == 48);
static_assert(offsetof(PoolParams, divisor) == 60);

inline constexpr uint32_t kPoolCountPad = 1, kPoolHasDivisor = 2;

// A pooling window read from the schema's int lists.
struct PoolWindow {
    int64_t kH, kW, sH, sW, pH, pW, dH = 1, dW = 1;
    bool ceil_mode = false;
};

// kernel_size (1 or 2 values), stride (empty: the kernel size), padding, dilation
// (`dilation_index` < 0: none in the schema) and ceil_mode, validated as PyTorch does.
PoolWindow parse_pool_window(const Args& args, size_t kernel_index, size_t stride_index,
                             size_t padding_index, int dilation_index, size_t ceil_index);

// PyTorch's pooling output size for one dim (fails when it is below 1).
int64_t pool_output_size(const Args& args, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                         bool ceil_mode);

// Checks `x` is [C, H, W] or [N, C, H, W] and `out` has its leading dims with H_out x W_out;
// fills the sizes of `p` (planes, H/W in and out, total).
void check_pool_shapes(const Args& args, const Tensor& x, const Tensor& out, int64_t H_out,
                       int64_t W_out, const char* out_name, PoolParams& p);

// Max pooling over [self, kernel_size, stride, padding, dilation, ceil_mode, ...] into `out`
// and, when given, the argmax `indices` (int64, stored as int32, or int32). self is float32,
// float16 or int32/int64.
void record_max_pool2d(Recorder& rec, const Args& args, const Tensor& out, const Tensor* indices);

// Records one thread per output element of a pool kernel over `bindings`.
void dispatch_pool(Recorder& rec, const Kernel& kernel, std::initializer_list<Binding> bindings,
                   const PoolParams& p, uint32_t wg);

}  // namespace wgx::ops
