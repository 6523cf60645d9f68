// The fusion passes, in the order Program::from_graph runs them when ProgramOptions::fuse is on
// (each pass's header says what it rewrites). One list, so the executor and the fuzz harness
// cannot drift apart. Run after fold_prepack and before run_in_float16 and alias_reshapes.
#pragma once

#include "graph/graph.h"

namespace wgx::graph {

void run_fusion_passes(Graph& graph);

}  // namespace wgx::graph
