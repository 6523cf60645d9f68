// A tensor seen through strides: what a chain of reshapes, permutes, selects and scalar
// multiplies makes of the tensor it starts from, without copying. Passes use it to let a fused
// kernel read its operands where they already are (e.g. q, k and v as slices of one projection).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "graph/graph.h"
#include "graph/passes/graph_uses.h"

namespace wgx::graph {

// Element (i0, i1, ...) of the view is element offset + sum(i_k * strides[k]) of `base`'s
// contiguous storage, times `scale`.
struct StridedView {
    int32_t base = -1;
    int64_t offset = 0;
    std::vector<int64_t> dims, strides;
    double scale = 1.0;
};

// Tensor `id` as it is stored (row-major strides).
StridedView contiguous_view(int32_t id, const std::vector<int64_t>& dims);
// The view with its dims reordered (out dim k = in dim perm[k]; perm is a permutation of
// 0..rank-1, negatives not allowed).
std::optional<StridedView> permuted(const StridedView& v, const std::vector<int64_t>& perm);
// The view with dim `dim` fixed at `index` (both already in range).
StridedView selected(const StridedView& v, size_t dim, int64_t index);
// The view under another shape of the same element count, when strides can express it (dims
// merged must be laid out one after the other); nullopt otherwise.
std::optional<StridedView> reshaped(const StridedView& v, const std::vector<int64_t>& dims);

// Follows tensor `id` back through the calls that only re-index it (contiguous reshapes and
// shape-keeping copies as passes/alias_reshapes.h defines them, permute_copy, select_copy.int) and,
// when `scales`, through mul.Scalar, to the first tensor another kind of call wrote (or that cannot
// be followed further); the calls passed are appended to `through`. Every tensor passed must be
// float32, written once, and the view expressible with strides; where that fails the walk stops
// there.
StridedView trace_view(const Graph& graph, const Uses& uses, int32_t id, bool scales,
                       std::vector<size_t>* through = nullptr);

}  // namespace wgx::graph
