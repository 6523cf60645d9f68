// The argument checks shared by the quantized_decomposed ops (PyTorch's
// torch/ao/quantization/fx/_decomposed.py): the quantized dtype, its quant_min / quant_max, and
// the scale and zero-point tensors, each failing with the op's and the argument's name.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "wgx/op.h"

namespace wgx::ops::qdq {

// How the kernels store a quantized element: 0 int32 (one per word), 1 uint8, 2 int8 (four
// per word). int64 never appears: the reference accepts no 64-bit quantized dtype.
uint32_t storage_kind(DType dtype);

// The `dtype` argument (a c10 ScalarType code): int8, uint8 or int32. ExecuTorch's Vulkan
// delegate writes its ScalarType arguments as none; there `tensor_dtype` (the quantized tensor's
// own dtype) stands in, when given.
DType quant_dtype_arg(const Args& args, size_t i, std::string_view name,
                      std::optional<DType> tensor_dtype = std::nullopt);

struct QuantRange {
    int32_t min, max;
};

// quant_min and quant_max at i and i + 1, inside `dtype`'s range and quant_min <= quant_max,
// as _quant_min_max_bounds_check requires.
QuantRange quant_range_args(const Args& args, size_t i, DType dtype);

// A tensor of scales: float32 or float64 (stored as float32 on the GPU) with `count` elements.
void expect_scales(const Args& args, const Tensor& t, int64_t count, std::string_view name);
// A tensor of zero points: int32 or int64 (stored as int32) with `count` elements.
void expect_zero_points(const Args& args, const Tensor& t, int64_t count, std::string_view name);

// The output dtype of a dequantize (`out_dtype` at i, none meaning float32): float32 only, and
// out's dtype.
void expect_dequantized_out(const Args& args, size_t i, const Tensor& out);

// A scalar scale: > 0 and, as a float32, normal (so its reciprocal is finite).
double scale_arg(const Args& args, size_t i, std::string_view name);

}  // namespace wgx::ops::qdq
