// Graph pass: the dynamic activation quantization of an 8da4w export moves into its linear
// layers. ExecuTorch writes, before each et_vk.linear_dq8ca_q4gsw, a
// torchao.choose_qparams_affine of the layer's input (per row, ASYMMETRIC, int8 -128..127) whose
// scale and zero point only that layer reads (or, for q/k/v and w1/w3, only the layers of the
// same input). Each such call is dropped and its readers become wgx.linear_dq8ca_q4gsw, which
// finds the row's scale and zero point itself by the same formulas: 113 dispatches fewer in a
// 1B model's decode step (docs/PERFORMANCE.md). A choose_qparams_affine call of any other form,
// or whose outputs anything else reads, is left alone.
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgx::graph {

// Rewrites `graph` in place; returns how many choose_qparams_affine calls were folded.
size_t fuse_dynamic_quant(Graph& graph);

}  // namespace wgx::graph
