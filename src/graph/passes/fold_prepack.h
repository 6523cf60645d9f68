// Graph pass: drops et_vk.prepack.default calls. Vulkan export inserts them to copy a constant
// into the layout a GPU kernel wants; the engine's kernels read the graph's own layout, so each
// reader of the prepacked tensor can read the constant itself. Saves a copy per run and the
// memory of the packed tensor.
#pragma once

#include "graph/graph.h"

namespace wgx::graph {

// Rewrites `graph` in place; returns how many calls were folded. A call whose output differs
// from its constant in dtype or shape, or whose output is a graph output or is written again
// by a later op, is kept (it then runs as a copy).
size_t fold_prepack(Graph& graph);

}  // namespace wgx::graph
