// Reads a Vulkan delegate payload (VH00 header + VK00 VkGraph flatbuffer + constant bytes) into
// a Graph whose value ids are the VkGraph's own. Constant bytes point into `blob` (the inline
// constant area) or into named data; the caller keeps both alive, so `storage` is left empty.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "graph/graph.h"
#include "graph/pte/named_data.h"

namespace wgx::graph {

// `where` locates the payload for messages, e.g. "delegate 0 (instruction 3)".
Graph read_vkgraph(std::span<const uint8_t> blob, const NamedDataSources& named,
                   std::string_view file, const std::string& where);

}  // namespace wgx::graph
