// Graph pass: a SwiGLU feed-forward layer's two 4-bit linear layers and the gate after them in
// one call. A call
//     y = wgx.silu_mul(a, b)                                   (fuse_silu_mul's)
// whose operands are written only by
//     a = et_vk.linear_q4gsw(x, gate_w, gate_s, G)   and   b = et_vk.linear_q4gsw(x, up_w, up_s, G)
// (or both wgx.linear_dq8ca_q4gsw(x, eps, ...), fuse_dynamic_quant's, with one eps), one input
// x, no biases, weights of one shape, a and b read only by y, becomes
//     y = wgx.gated_linear_q4gsw(x, eps or none, gate_w, gate_s, up_w, up_s, G)
// at y's position: a decode step then runs one dispatch where it ran three.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Rewrites `graph` in place (see ChainEdit in graph_uses.h for the memory plan); returns how
// many layers were fused.
size_t fuse_gated_linear(Graph& graph);

}  // namespace wgx::graph
