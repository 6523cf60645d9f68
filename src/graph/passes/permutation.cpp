#include "graph/passes/permutation.h"

namespace wgx::graph {

std::optional<std::vector<int64_t>> permutation_at(const Graph& graph, int32_t id, size_t rank) {
    if (id < 0 || static_cast<size_t>(id) >= graph.values.size()) return std::nullopt;
    const auto* list = std::get_if<IntList>(&graph.values[static_cast<size_t>(id)]);
    if (!list || list->items.size() != rank) return std::nullopt;
    const auto n = static_cast<int64_t>(rank);
    std::vector<int64_t> perm;
    std::vector<bool> seen(rank, false);
    for (int64_t d : list->items) {
        if (d < -n || d >= n) return std::nullopt;
        if (d < 0) d += n;
        if (seen[static_cast<size_t>(d)]) return std::nullopt;
        seen[static_cast<size_t>(d)] = true;
        perm.push_back(d);
    }
    return perm;
}

std::vector<int64_t> compose(const std::vector<int64_t>& first,
                             const std::vector<int64_t>& second) {
    // Output dim i of the second permute is its input's dim second[i], which is x's dim
    // first[second[i]].
    std::vector<int64_t> result;
    result.reserve(second.size());
    for (int64_t d : second) result.push_back(first[static_cast<size_t>(d)]);
    return result;
}

bool keeps_element_order(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
    if (perm.size() != dims.size()) return false;
    int64_t last = -1;  // the input dim of the previous size > 1 dim in output order
    for (int64_t d : perm) {
        if (d < 0 || static_cast<size_t>(d) >= dims.size()) return false;
        if (dims[static_cast<size_t>(d)] == 1) continue;
        if (d < last) return false;
        last = d;
    }
    return true;
}

}  // namespace wgx::graph
