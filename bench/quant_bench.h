// 4-bit linear-layer micro-benchmarks: the decode GEMVs (one row) of Llama-3.2-1B's layers
// through et_vk.linear_q4gsw (float activations) and wgx.linear_dq8ca_q4gsw (8-bit dynamic
// activations, the qparams found in the kernel), group size 32, and one 127-row prefill. Each
// case is checked against a float64 CPU reference first; bytes count the packed weights, their
// float32 scales, the input and the output, so GB/s reads against the copy ceiling.
#pragma once

#include <string>
#include <vector>

#include "result.h"
#include "wgx/context.h"

namespace wgx::bench {

void bench_quant(Context& ctx, const MeasureOptions& options, const std::string& filter,
                 std::vector<Result>& rows);

}  // namespace wgx::bench
