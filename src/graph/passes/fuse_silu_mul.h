// Graph pass: the gated unit of a SwiGLU feed-forward layer in one call. A call
//     s = aten.silu(a)
// whose output only one later call reads,
//     y = aten.mul.Tensor(s, b)  or  (b, s)
// with a, b, s and y float tensors of one dtype and the same dims, becomes
//     y = wgx.silu_mul(a, b)
// at the mul's position. Llama-style blocks compute w2(silu(w1 x) * w3 x): one dispatch fewer
// per block, which in a decode step (a few microseconds per dispatch, little work in each) is
// time saved outright.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Rewrites `graph` in place (see ChainEdit in graph_uses.h for the memory plan); returns how
// many pairs were fused.
size_t fuse_silu_mul(Graph& graph);

}  // namespace wgx::graph
