// Shared by split_copy and split_with_sizes_copy.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "wgx/op.h"

namespace wgx::ops {

// outs[k] = self[..., offset_k : offset_k + sizes[k], ...] along dim (wrapped here); absent outs
// are skipped. Validates the outs' count, dtypes and shapes.
void record_split(Recorder& rec, const Args& args, const Tensor& self,
                  const std::vector<int64_t>& sizes, int64_t dim,
                  const std::vector<std::optional<Tensor>>& outs);

}  // namespace wgx::ops
