// Attention micro-benchmarks: wgx.attention on the shapes the fusion pass hands it (q, k and v
// cut from one packed projection by strides), checked against a float64 CPU reference first,
// so each change to attention.wgsl can be measured kernel by kernel before the models.
#pragma once

#include <string>
#include <vector>

#include "measure.h"
#include "result.h"
#include "wgx/wgx.h"

namespace wgx::bench {

// `filter`: keep only cases whose name contains it (empty: all). `dtype`: float32, or float16
// tensors (float32 arithmetic; rows named "... f16").
void bench_attention(Context& ctx, const MeasureOptions& options, const std::string& filter,
                     DType dtype, std::vector<Result>& rows);

}  // namespace wgx::bench
