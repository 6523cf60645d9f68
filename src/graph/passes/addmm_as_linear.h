// Graph pass: a matrix product with a transposed matrix, as the portable (non-delegated)
// export writes linear layers - addmm(bias, x, permute_copy(W, [1, 0])) or
// mm(x, permute_copy(W, [1, 0])) - becomes aten.linear(x, W, bias), which reads W transposed in
// the GEMM. The transposed copy of W, made on every run before, is dropped, and the linear
// layer is then open to the epilogue fusions (passes/fuse_linear_epilogue). Taken when alpha
// and beta are 1, the bias is 1-D [N], and only this product reads the transposed copy.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Returns the number of products rewritten.
size_t addmm_as_linear(Graph& graph);

}  // namespace wgx::graph
