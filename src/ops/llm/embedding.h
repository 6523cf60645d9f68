// The row gather behind aten.embedding and aten.index.Tensor (embedding.wgsl).
#pragma once

#include <cstdint>
#include <string_view>

#include "wgx/op.h"

namespace wgx::ops {

// out [P, N, D] = table [P, rows, D] gathered along its middle dim by `indices` (N of them,
// int32/int64, any shape; P follows from out's size); an index outside [0, rows) gives zeros.
// Checked by the caller. A table of one block (P = 1) larger than one storage binding is bound
// in ranges of rows, one dispatch each; one of several blocks must fit one binding.
void record_row_gather(Recorder& rec, std::string_view label, const Tensor& table,
                       const Tensor& indices, const Tensor& out, int64_t rows, int64_t row_elems);

}  // namespace wgx::ops
