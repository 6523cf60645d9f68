// Shared machinery of the comparison ops (eq, ne, lt, le, gt, ge; Tensor and Scalar forms, the
// table in compare.cpp): broadcasting inputs of one dtype, a bool output.
#pragma once

#include <optional>
#include <string_view>

#include "wgx/op.h"

namespace wgx::ops {

struct CompareParams {
    uint32_t numel;
    float scalar;
    uint32_t pad0, pad1;
    uint32_t out_sizes[8];
    uint32_t a_strides[8];
    uint32_t b_strides[8];
};
static_assert(sizeof(CompareParams) == 112);

// Records out = (a <op> b); `wgsl_op` is the WGSL operator ("==", "<", ...). With `scalar`,
// b is that number (the .Scalar forms). Args: [self, other, out].
void record_compare(Recorder& rec, std::string_view op, std::string_view wgsl_op, const Args& args);

}  // namespace wgx::ops
