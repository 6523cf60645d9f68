// NumPy broadcasting of up to kMaxRank dims, as element strides in the output's index space.
#pragma once

#include <array>
#include <cstdint>
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

}  // namespace wgx::ops
