// Graph pass: folds what follows a linear layer in a transformer block into its GEMM's
// epilogue. A chain
//     t = aten.linear(x, w, b?)
//         aten.gelu(., approximate), aten.silu(.)
//         or aten.hardswish(.)                        (optional)
//         aten.permute_copy(., [0, r-1, 1, .., r-2])  (optional: features to dim 1, as
//                                                      ConvNeXt's NHWC -> NCHW; rank r >= 3)
//         aten.mul.Tensor(., gamma)  or  (gamma, .)   (optional: gamma one value per feature)
//     y = aten.add.Tensor(., r)  or  (r, .)           (optional: alpha 1, r of the sum's shape)
// taken in this order, any of them absent but at least one present, with contiguous reshapes
// (view_copy, _unsafe_view, squeeze/unsqueeze_copy, a permute_copy that moves only size-1
// dims, ...: alias_reshapes' is_contiguous_reshape) anywhere between them, becomes one call
//     y = wgx.linear_epilogue(x, w, b?, activation, gamma?, r?, channels_first)
// at the position of the last call it replaces. Every intermediate value must be written once
// and read once, by the next call of the chain, and not be a graph output; the tensors are
// float32 (the pass runs before run_in_float16). The reshapes fall away: the fused op writes y's
// elements in y's order, and reads r in that order. ViT's blocks (linear -> add, linear ->
// gelu -> linear -> add) and ConvNeXt's (linear -> gelu -> linear -> permute -> mul -> add)
// have this shape; each fused step saves a dispatch and a round trip through memory.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Rewrites `graph` in place; returns how many linear layers were fused. The fused call runs
// later than the linear layer did, so the tensors it reads live longer than the file's memory
// plan assumed: ChainEdit clears their pool ids and assign_memory_pools (run after the passes)
// gives them pools of their own. Only tensors written at most once are involved, so moving the
// call cannot make it read a value that changed in between.
size_t fuse_linear_epilogue(Graph& graph);

}  // namespace wgx::graph
