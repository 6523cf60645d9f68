// ExecuTorch's dim-order arguments (dim_order_ops): the engine keeps tensors contiguous, so
// only the identity order (0, 1, ..., rank-1), or none, is accepted.
#pragma once

#include "wgx/op.h"

namespace wgx::ops {

// Fails unless argument i is none, an empty list, or the identity order for `rank`.
void expect_contiguous_dim_order(const Args& args, size_t i, int rank);

}  // namespace wgx::ops
