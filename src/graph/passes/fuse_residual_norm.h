// Graph pass: a transformer's residual add and the RMS norm after it in one call. A call
//     h = aten.add.Tensor(a, b)          (alpha absent or 1)
// directly followed by
//     n = et_vk.rms_norm(h, weight, eps)
// with a, b, h and n float tensors of one dtype and the same dims, h written only there,
// becomes
//     (h, n) = wgx.add_rms_norm(a, b, weight, eps)
// which still stores h (the next residual add reads it). Each Llama-style block has two such
// pairs: two dispatches fewer per block in a decode step.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Rewrites `graph` in place (see ChainEdit in graph_uses.h for the memory plan); returns how
// many pairs were fused.
size_t fuse_residual_norm(Graph& graph);

}  // namespace wgx::graph
