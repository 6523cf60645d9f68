// The scatter of a slice into a copy of a tensor, behind slice_scatter and select_scatter
// (slice_scatter.wgsl).
#pragma once

#include <cstdint>
#include <string_view>

#include "wgx/op.h"

namespace wgx::ops {

// out = self with self[..., start : start + len * step : step, ...] (along `dim`) replaced by
// src, whose elements are laid out as that slice (src may lack the dim when len is 1). Checked
// by the caller: start, len and step in range, dtypes and shapes; self indexable.
void record_slice_scatter(Recorder& rec, std::string_view label, const Tensor& self,
                          const Tensor& src, const Tensor& out, int64_t dim, int64_t start,
                          int64_t len, int64_t step);

}  // namespace wgx::ops
