// Shared batched matrix multiply used by mm (and later bmm, linear, addmm).
#pragma once

#include <cstdint>
#include <string_view>

#include "wgx/op.h"

namespace wgx::ops {

struct MatmulParams {
    uint32_t M, N, K, batch;
    uint32_t a_batch_stride, b_batch_stride, c_batch_stride;
    uint32_t pad;
};
static_assert(sizeof(MatmulParams) == 32);

// C[i] = A[i] @ B[i] for i < batch; strides of 0 share an operand across the batch.
// Picks the vec4 kernel when K and N are multiples of 4, else the scalar tiled one.
void record_matmul(Recorder& rec, std::string_view label, const Tensor& a, const Tensor& b,
                   const Tensor& c, const MatmulParams& p);

}  // namespace wgx::ops
