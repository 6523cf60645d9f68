// Converting an execution plan's EValues into Graph values with the same ids.
#pragma once

#include <cstdint>
#include <set>

#include "graph/graph.h"
#include "graph/pte/named_data.h"
#include "graph/pte/pte_file.h"
#include "graph/util/budget.h"

namespace wgx::graph {

// Appends one Graph value per plan EValue to `graph.values` (which must be empty) and the
// constants they use to `graph.constants`. `dynamic_ints` are ids of Int values written at run
// time (outputs of symbolic-size kernels, Int method inputs): they become SymInt, and an
// IntList naming one becomes a ValueList of ids. `named` resolves EXTERNAL tensor data.
void convert_plan_values(const PteFile& file, const executorch_flatbuffer::ExecutionPlan& plan,
                         const NamedDataSources& named, const std::set<int32_t>& dynamic_ints,
                         Budget& budget, Graph& graph);

}  // namespace wgx::graph
