// Graph pass: ShuffleNet's channel shuffle as one call. A pattern
//     x = aten.cat([a, b, ...], dim)                    (C channels in dim d)
//     v = aten.view_copy(x, [.., g, C / g, ..])         (dim d split in two; or _unsafe_view)
//     p = aten.permute_copy(v, [.., d + 1, d, ..])      (the two swapped, the rest in place)
//     y = aten.view_copy(p, shape of x)
//     (o1, o2, ...) = aten.split_with_sizes_copy(y, sizes, d)   (optional; or split_copy)
// with any copies (aten.clone, _clone_dim_order of the identity order) after any of its steps,
// where every value between the cat and the last call is read only by the next call of the
// pattern (and is no graph output), becomes one call
//     wgx.channel_shuffle([a, b, ...], d, g, sizes or none) -> (o1, o2, ...) or y
// at the position of the last call it replaces. ShuffleNetV2 has this in every block: the
// cat's, the permute's and the split's dispatches (one per piece), four in all, become one. The
// ExecuTorch Vulkan partitioner's export clones after the cat and after the second view; the
// portable export (a
// `.contiguous()` after the transpose) clones after the permute.
//
// Runs before alias_reshapes, so the views are still view_copy calls here.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Rewrites `graph` in place; returns how many shuffles were fused. The fused call runs where
// the split (or the last call) ran, later than the cat did, so the cat's inputs live longer
// than the file's memory plan assumed: their pool ids are cleared, and assign_memory_pools
// (run after the passes) gives them pools of their own. Only inputs written at most once are
// taken, so the later read sees the same values.
size_t fuse_channel_shuffle(Graph& graph);

}  // namespace wgx::graph
