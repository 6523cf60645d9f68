// Binding a row-major tensor larger than one storage binding in parts: an LLM's embedding table
// or output projection (a 1B model's is about 1 GB in float32) exceeds maxStorageBufferBindingSize
// (128 MiB by default) though not maxBufferSize. The ops bind ranges of whole rows, each a
// Tensor::view of its own, one dispatch per range.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "wgx/device.h"

namespace wgx::ops {

// Rows [first, first + count) of a tensor.
struct RowRange {
    int64_t first = 0, count = 0;
};

// Consecutive ranges covering `rows` rows of `row_bytes` bytes each: one range of all of them
// when they fit one binding (limits.max_storage_binding_bytes), else ranges that each fit and
// that each start at a multiple of the storage offset alignment, as a binding must. Every range
// but the last has the same count. `also_row_bytes`: the bytes per row of other tensors bound
// from the same row on (a linear layer's bias and its output columns advance by one element per
// row of the weight), whose starts must be aligned too. Throws InvalidArgument naming `what`
// when even the fewest rows that keep the starts aligned do not fit one binding.
std::vector<RowRange> split_rows(const DeviceLimits& limits, int64_t rows, uint64_t row_bytes,
                                 std::initializer_list<uint64_t> also_row_bytes,
                                 std::string_view what);

}  // namespace wgx::ops
