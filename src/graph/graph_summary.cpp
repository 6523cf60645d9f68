#include "graph/graph_summary.h"

#include <map>

#include "graph/util/text.h"

namespace wgx::graph {

std::vector<OpCount> count_ops(const Graph& graph) {
    std::map<std::string, size_t> counts;
    for (const OpCall& call : graph.chain) ++counts[call.name];
    std::vector<OpCount> result;
    result.reserve(counts.size());
    for (auto& [name, count] : counts) result.push_back({name, count});
    return result;
}

std::string op_counts_text(const std::vector<OpCount>& counts) {
    std::string text;
    for (const OpCount& entry : counts) {
        if (!text.empty()) text += ", ";
        text += cat(entry.name, " x", entry.count);
    }
    return text;
}

}  // namespace wgx::graph
