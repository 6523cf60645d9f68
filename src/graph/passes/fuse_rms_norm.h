// Graph pass: an RMSNorm that an exporter decomposed becomes one et_vk.rms_norm call.
//   mul(x, x) -> mean over the last dim (keepdim) -> add(eps) -> rsqrt -> mul(x, that)
//   -> mul(that, weight)                            => et_vk.rms_norm(x, weight, eps)
// eps is a one-element constant (possibly wrapped in copies), weight a 1-D tensor of x's last
// dim; either product may have its operands in either order. Intermediates must have no other
// reader. ExecuTorch's Llama model writes its norms this way, and the plain exports and the
// Vulkan delegates of older exporters keep the six calls: 198 dispatches of a 1B model's
// decode step, each costing its launch (docs/PERFORMANCE.md).
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Rewrites `graph` in place; returns how many norms were rebuilt.
size_t fuse_rms_norm(Graph& graph);

}  // namespace wgx::graph
