// The model fixtures (tests/models/<name>) as the graph passes see them, for the pass tests
// that check a whole exported model.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "graph/graph.h"
#include "graph/load.h"
#include "graph/passes/fold_prepack.h"

namespace wgx::test {

// tests/models/<name>/vulkan.pte, read and with its prepacks folded, as Program does before the
// fusion passes (a missing file fails with load_graph's error naming the path).
inline graph::Graph load_model_fixture(const std::string& name) {
    const auto pte =
        std::filesystem::path(WGX_FIXTURES_DIR) / ".." / "models" / name / "vulkan.pte";
    graph::Graph g = graph::load_graph(pte);
    graph::fold_prepack(g);
    return g;
}

// How many calls of each op the chain holds.
inline std::map<std::string, int> op_counts(const graph::Graph& g) {
    std::map<std::string, int> n;
    for (const graph::OpCall& op : g.chain) n[op.name]++;
    return n;
}

}  // namespace wgx::test
