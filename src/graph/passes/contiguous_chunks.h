// Which calls cut their input into contiguous chunks: split_with_sizes_copy, split_copy and
// slice_copy (step 1) along a dim whose preceding dims all have size 1 (a channel split of a
// contiguous [1, C, H, W] tensor). Each piece is then a run of consecutive elements of the
// input, so alias_reshapes can make it the input's storage seen at an element offset
// (Graph::alias_offsets) instead of a copy. Only the shape arithmetic is decided here; the
// rules on writes, lifetimes, graph boundaries and alignment are alias_reshapes'.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "graph/graph.h"

namespace wgx::graph {

struct Chunk {
    int32_t id;       // an output tensor of the call
    uint64_t offset;  // where it starts in the input, in elements
};

// The outputs of `call` with their offsets when `call` is one of the calls above, its
// arguments are well formed and every output has the shape of its piece; nullopt otherwise.
// Absent outputs (a -1 item in the output list) are left out.
std::optional<std::vector<Chunk>> contiguous_chunks(const Graph& graph, const OpCall& call);

}  // namespace wgx::graph
