// Graph pass: folds what follows a convolution into its epilogue. A pattern
//     t = aten.convolution(x, w, b, ...)      (ungrouped, not transposed: the GEMM paths)
//     u = aten.add.Tensor(t, r)  or  (r, t)   (alpha 1, r of t's shape and dtype)
//     y = aten.relu(u) | aten.hardtanh(u, lo, hi) | aten.clamp(u, lo?, hi?)   (optional)
// where t (and u, when the activation is taken) has no other reader, becomes one call
//     y = wgx.conv_add_clamp(x, w, b, ..., r, lo?, hi?)
// at the position of the last call it replaces. The residual network blocks of ResNets,
// MobileNetV2 and many detectors have exactly this shape; it saves the add's and the
// activation's dispatches and their round trips through memory.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Rewrites `graph` in place; returns how many convolutions were fused. The fused call runs
// later than the convolution did, so the tensors it reads live longer than the file's memory
// plan assumed: their pool ids are cleared, and assign_memory_pools (run after this pass) gives
// them pools of their own. Only tensors written at most once are involved, so moving the call
// cannot make it read a value that changed in between.
size_t fuse_conv_epilogue(Graph& graph);

// The activation a convolution's epilogue takes without an add: a pattern
//     t = aten.convolution(x, w, b, ...)      (any: grouped, depthwise, transposed, 1-D)
//     y = aten.silu(t) | aten.hardswish(t)
// where only the activation reads t, float32 or float16, becomes one call
//     y = wgx.conv_activation(x, w, b, ..., "silu" | "hardswish")
// at the activation's position (EfficientNet's and MobileNetV3's blocks: a dispatch and a round
// trip through memory saved per pair). Run after fuse_conv_epilogue, which takes the
// convolutions followed by an add; returns how many convolutions were fused. Memory plan: as
// fuse_conv_epilogue.
size_t fuse_conv_activation(Graph& graph);

}  // namespace wgx::graph
