// Op names of a Graph with their counts, for "unsupported ops" errors and `wgx info`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace wgx::graph {

struct OpCount {
    std::string name;
    size_t count = 0;
};

// Sorted by name; each name once.
std::vector<OpCount> count_ops(const Graph& graph);

// "aten.add.Tensor x3, aten.relu.default x1" for messages.
std::string op_counts_text(const std::vector<OpCount>& counts);

}  // namespace wgx::graph
