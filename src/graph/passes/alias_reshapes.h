// Graph pass: contiguous reshapes become aliases. view_copy, _unsafe_view, squeeze_copy,
// unsqueeze_copy and alias_copy keep the dtype, the bytes and the element order of their input,
// so their output can be the same GPU buffer seen with another shape. Three more calls do the
// same: a permute_copy that moves only size-1 dims ([1, 26, 48] by [1, 0, 2]), a
// select_copy.int on a dim of size 1, and a clone (clone, _clone_dim_order) that keeps the
// shape and the contiguous layout, or an expand_copy to its input's own shape (while neither
// side is written again, which the rules below ensure, such a copy's own buffer would only ever
// hold the same bytes). Each such call leaves the
// chain and its input and output join one alias group (Graph::alias_groups); the memory planner
// then gives the group one pool and one lifetime. Run as a copy, every reshape costs a
// copyBufferToBuffer, and since copies sit outside compute passes, it also ends the pass: the
// next dispatch starts a new one (several microseconds per dependent dispatch on a real GPU).
// vit runs 241 of them per inference.
//
// A reshape stays a copy when aliasing would break one of these rules:
//   - input and output are non-constant tensors, neither a graph input nor a graph output (the
//     caller owns the boundary buffers, which are copied in and out around the run; a view of
//     a constant is rare and would need the constant's own buffer);
//   - same dtype and the same (non-zero) element count, neither shape dynamic-bound;
//   - the input is written exactly once, before the reshape, and the output only by the
//     reshape, with every read of it after the reshape: a value written more than once (a
//     mutable buffer, an in-place chain) would change under its aliases. Together these mean
//     the only write into a group is its first member's producer, before any member is read,
//     so no dispatch binds one group's buffer both writable and read-only (which WebGPU
//     forbids; graph_check verifies it).
// Views that reorder, repeat or drop elements (other permutes, expands that broadcast, slice,
// select on a longer dim) are not reshapes and stay copies, with one exception: a split
// (split_with_sizes_copy, split_copy) or step-1 slice_copy along a dim whose preceding dims
// all have size 1 (contiguous_chunks.h: a channel split at batch 1, YOLOv8's C2f blocks)
// cuts its input into runs of consecutive elements. Its outputs join the input's group at
// element offsets (Graph::alias_offsets) when the rules above hold for the input and every
// output and each offset is a multiple of 256 bytes on the GPU (kAliasOffsetAlignment, the
// largest storage offset alignment WebGPU allows, so every device binds it); otherwise the
// whole call stays a copy.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Whether `call` keeps its first argument's bytes, in order, as its output (the reshapes,
// permutes and selects above, and shape-keeping clones), whatever else it reads. Also used by
// the fusion passes, which look through such calls.
bool is_contiguous_reshape(const Graph& graph, const OpCall& call);

// Rewrites `graph` in place: removes the aliased calls, adds or extends alias groups (and
// their offsets: Graph::alias_offsets is rebuilt for every group) and
// clears the pool ids of every group member (pools from the file's plan were chosen for
// separate buffers; assign_memory_pools places each group as one unit). Returns how many calls
// were removed.
size_t alias_reshapes(Graph& graph);

}  // namespace wgx::graph
