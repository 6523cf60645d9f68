// Graph pass: chains of permute_copy become one call. permute(permute(x, p1), p2) reads x
// once and writes the final tensor once, as permute(x, p1 then p2) does, and the tensor in
// between vanishes when nothing else reads it. vit permutes its attention output three times
// in a row ([2, 0, 1, 3], [1, 2, 0, 3], [2, 0, 1, 3]); two of those calls go.
//
// When the composed permutation moves only size-1 dims (the identity among them), the chain
// becomes a view_copy instead: it keeps the bytes in order, and alias_reshapes (run later)
// can turn it into an alias.
//
// A chain links a permute to the next only when its output is written once, read once (by
// that permute, as its input) and is not a graph output; x must be written at most once, so
// that reading it later (at the last call's place) sees the same values.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Rewrites `graph` in place; returns how many calls left the chain.
size_t compose_permutes(Graph& graph);

}  // namespace wgx::graph
