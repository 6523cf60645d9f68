// The one entry point from files to a Graph: sniffs the format and calls the right reader.
//   - a .pte (bytes 4..8 are "ET12"): the chosen method, lowered (lower.h);
//   - a program.json (a ".json" path, or a directory holding program.json), with weights.bin
//     beside it (json/FORMAT.md).
// The result is checked (graph_check.h); memory pools are not yet assigned (memory_plan.h).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "graph/util/bytes.h"

namespace wgx::graph {

struct LoadOptions {
    std::string method = "forward";
    // External constants (.ptd) for a .pte exported with external data. Ignored for JSON.
    std::optional<std::filesystem::path> ptd;
};

Graph load_graph(const std::filesystem::path& model, const LoadOptions& options = {});

// Method names of a .pte ({"forward"} for a program.json).
std::vector<std::string> method_names(const std::filesystem::path& model);

// From memory (tests, fuzzing, embedders). `name`s appear in messages.
Graph load_pte_bytes(SharedBytes pte, std::string_view method = "forward",
                     SharedBytes ptd = nullptr, const std::string& name = "<memory>.pte",
                     const std::string& ptd_name = "<memory>.ptd");
std::vector<std::string> pte_method_names(SharedBytes pte,
                                          const std::string& name = "<memory>.pte");
Graph load_json_bytes(std::string_view json, SharedBytes weights,
                      const std::string& name = "<memory>/program.json",
                      const std::string& weights_name = "<memory>/weights.bin");
// A bare Vulkan delegate payload (VH00 + VkGraph). Named-data constants cannot be resolved
// without their program, so such a payload must keep its constants inline.
Graph load_vkgraph_bytes(SharedBytes payload, const std::string& name = "<memory>.vkgraph");

}  // namespace wgx::graph
