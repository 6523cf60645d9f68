// Device ceilings measured on the device itself: memory bandwidth from a vec4 copy kernel and
// arithmetic throughput from an FMA-bound kernel (f32, and f16 where the device has
// shader-f16). Kernels' numbers are reported as fractions of these.
#pragma once

#include <vector>

#include "result.h"
#include "wgx/context.h"

namespace wgx::bench {

// Appends the ceiling rows to `rows` and returns the ceilings (0 where a kernel failed its check).
Ceilings measure_ceilings(Context& ctx, const MeasureOptions& options, std::vector<Result>& rows);

}  // namespace wgx::bench
