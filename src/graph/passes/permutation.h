// Permutations as the graph passes see them: permute_copy's `dims` argument read and checked,
// composed, and recognised as a reshape. Shared by alias_reshapes and compose_permutes.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "graph/graph.h"

namespace wgx::graph {

// The permutation a permute_copy call's `dims` value (an IntList) names for a tensor of rank
// `rank`, negative entries wrapped; nullopt when it is not a list of each dim exactly once.
std::optional<std::vector<int64_t>> permutation_at(const Graph& graph, int32_t id, size_t rank);

// The permutation that applying `first` then `second` amounts to:
// permute(permute(x, first), second) == permute(x, compose(first, second)).
std::vector<int64_t> compose(const std::vector<int64_t>& first, const std::vector<int64_t>& second);

// Whether permuting a tensor of shape `dims` by `perm` keeps its elements in the same order:
// true when the dims of size > 1 stay in their relative order (only size-1 dims move), so
// the result holds the input's bytes under another shape, as a reshape does.
bool keeps_element_order(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm);

}  // namespace wgx::graph
