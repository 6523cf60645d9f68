// Graph pass: puts activations that an exporter decomposed back into one op each.
//   silu:        mul(x, sigmoid(x))                                    -> aten.silu(x)
//   hardsigmoid: div(clamp(add(x, 3), 0, 6), 6)  (the clamp possibly as two clamps, a
//                hardtanh, or the division as a multiplication by 1/6) -> aten.hardsigmoid(x)
//   hardswish:   mul(x, hardsigmoid(x)) in either form above, or
//                div(mul(x, clamp(add(x, 3), 0, 6)), 6) (PyTorch's own) -> aten.hardswish(x)
//   gates:       mul(y, sigmoid(x)) and mul(y, hardsigmoid(x)) for another tensor y
//                (squeeze-and-excitation)  -> wgx.mul_sigmoid(y, x), wgx.mul_hardsigmoid(y, x)
// The scalars 3 and 6 may be constants wrapped in clone / _to_dim_order_copy calls; those copies
// go when nothing else reads them. Intermediates must have no other reader. On a GPU every
// dispatch costs several microseconds however small its work, and MobileNetV3's squeeze-and-
// excitation gates and EfficientNet's and YOLO's SiLUs are hundreds of such dispatches.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Rewrites `graph` in place (see ChainEdit in graph_uses.h for the memory plan); returns how
// many activations were rebuilt.
size_t fuse_activations(Graph& graph);

}  // namespace wgx::graph
