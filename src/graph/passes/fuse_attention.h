// Graph pass: scaled dot-product attention as exported (bmm of q and k^T, softmax over the
// keys, optionally PyTorch's guard that zeroes rows whose scores are all -inf, bmm with v)
// becomes one wgx.attention call. q, k and v are followed back through reshapes, permutes,
// selects and scalar multiplies (passes/strided_view.h), so the call reads them where the
// projection wrote them and the copies that cut them out, now unread, are dropped. Taken when
// the kernel's sizes hold (at most 256 keys, head sizes up to 128; ops/matmul/attention.cpp).
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Returns the number of attention blocks replaced.
size_t fuse_attention(Graph& graph);

}  // namespace wgx::graph
