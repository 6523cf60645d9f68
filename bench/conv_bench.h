// Convolution micro-benchmarks through aten.convolution.default on layer shapes from real
// models (batch 1, NCHW): 3x3 stride 1 and 2, 1x1 (pointwise and strided), depthwise 3x3 and
// 5x5 at stride 1 and 2, and the 7x7/2 and 3x3/2 stems. Each is checked against a float64 CPU
// convolution over every output before it is timed.
#pragma once

#include <string>
#include <vector>

#include "result.h"
#include "wgx/context.h"

namespace wgx::bench {

// `filter`: keep only cases whose name contains it (empty: all). `dtype`: float32, or float16
// tensors (float32 arithmetic; rows named "... f16", bytes counted at 2 per element).
void bench_conv(Context& ctx, const MeasureOptions& options, const std::string& filter, DType dtype,
                std::vector<Result>& rows);

}  // namespace wgx::bench
