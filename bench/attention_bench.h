// Attention micro-benchmarks: wgx.attention on the shapes the fusion pass hands it (q, k and v
// cut from one packed projection by strides), checked against a float64 CPU reference first,
// so each change to attention.wgsl can be measured kernel by kernel before the models. Kernels
// read from files (attention_variant.h) run on the same cases beside the built-in one.
#pragma once

#include <string>
#include <vector>

#include "attention_variant.h"
#include "measure.h"
#include "result.h"
#include "wgx/wgx.h"

namespace wgx::bench {

// `filter`: keep only cases whose name contains it (empty: all). `dtype`: float32, or float16
// tensors (float32 arithmetic; rows named "... f16"). `variants`: each case runs with the
// built-in op and then with each of them (rows named after the file), and a few check cases
// (odd sizes, transposed views, fully masked rows, the largest sizes) follow, briefly timed.
void bench_attention(Context& ctx, const MeasureOptions& options, const std::string& filter,
                     DType dtype, const std::vector<AttentionVariant>& variants,
                     std::vector<Result>& rows);

}  // namespace wgx::bench
