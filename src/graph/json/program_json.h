// The seed's program format: program.json (values, chain, ids, memory plan) + weights.bin (raw
// constant bytes), version "1", and our typed extension, version "1.1" (see FORMAT.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "graph/util/bytes.h"

namespace wgx::graph {

// Parses program.json text; constants point into `weights`, which the Graph keeps alive.
// `json_name`/`weights_name` appear in messages.
Graph read_program_json(std::string_view json_text, SharedBytes weights, std::string_view json_name,
                        std::string_view weights_name);

struct ProgramJson {
    std::string json;              // program.json text (version "1.1")
    std::vector<uint8_t> weights;  // weights.bin bytes
};

// Writes a Graph in the typed format. Constants are stored once each, in constant-id order,
// back to back; tensors keep their pool ids and memoryPlan lists every pool with its size.
ProgramJson write_program_json(const Graph& graph);

}  // namespace wgx::graph
