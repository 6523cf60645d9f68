// Shared machinery of the reductions (sum, mean, amax, amin, argmax, argmin): any set of
// reduced dims, contiguous or not, without materialised permutes. See reduce.wgsl.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "wgx/op.h"

namespace wgx::ops {

struct ReduceParams {
    uint32_t outputs;
    uint32_t count;
    float scale;
    uint32_t pad;
    uint32_t keep_sizes[8];
    uint32_t keep_strides[8];
    uint32_t red_sizes[8];
    uint32_t red_strides[8];
};
static_assert(sizeof(ReduceParams) == 144);
static_assert(offsetof(ReduceParams, keep_sizes) == 16);
static_assert(offsetof(ReduceParams, keep_strides) == 48);
static_assert(offsetof(ReduceParams, red_sizes) == 80);
static_assert(offsetof(ReduceParams, red_strides) == 112);

enum class ReduceKind : uint32_t { sum = 0, mean = 1, max = 2, min = 3, argmax = 4, argmin = 5 };

// self's shape with `dims` (wrapped) removed, or set to 1 when keepdim.
Shape reduced_shape(const Shape& shape, const std::vector<int64_t>& dims, bool keepdim);

// The dims a `dim` list argument names: every dim when it is none or empty (PyTorch's rule
// for sum, mean, amax and amin), else the listed ones wrapped.
std::vector<int64_t> reduction_dims(const Args& args, size_t i, int64_t rank);

// Records out = reduce(self) over `dims` (wrapped and unique). Validates dtypes: self float32,
// float16, int32/int64, bool, uint8 or int8 (float64 as float32); out a 4-byte type or float16
// (the caller checks it against PyTorch's rule, and out's shape); float16 needs shader-f16 and
// may not meet float32 in one call. Sums accumulate in out's type (float16: in f32, rounded
// once on store); max/min/arg in self's (float16 compared as f32).
void record_reduce(Recorder& rec, const Args& args, ReduceKind kind, const Tensor& self,
                   const std::vector<int64_t>& dims, const Tensor& out);

}  // namespace wgx::ops
