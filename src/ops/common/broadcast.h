// NumPy broadcasting of up to kMaxRank dims, as element strides in the output's index space.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>

#include "wgx/tensor.h"

namespace wgx::ops {

// The broadcast shape of a and b, or nullopt when they are not broadcastable.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

// Strides (in elements) for reading `in` at each index of `out`: dims of `in` are right-aligned
// to `out`, and a dim of size 1 (or a missing leading dim) gets stride 0.
// Requires `in` to broadcast to `out`.
std::array<uint32_t, kMaxRank> broadcast_strides(const Shape& in, const Shape& out);

// `shape` padded on the left with 1s up to kMaxRank entries, as u32 (for uniforms).
std::array<uint32_t, kMaxRank> padded_sizes(const Shape& shape);

// Merges the dims of an index space (padded `sizes`, with the strides of each operand read in
// it) that the operands all walk contiguously: dims of size 1 vanish, and dims d-1, d merge
// when every operand's stride at d-1 is its stride at d times size d. The result is
// right-aligned like the input (leading dims become size 1, stride 0) and addresses the same
// elements; returns how many trailing dims remain (at least 1). A kernel then needs that many
// div/mod steps per element instead of kMaxRank: [1, C, H, W] * [1, C, 1, 1] becomes [C, H*W].
size_t coalesce_dims(std::array<uint32_t, kMaxRank>& sizes,
                     std::initializer_list<std::array<uint32_t, kMaxRank>*> strides);

}  // namespace wgx::ops
