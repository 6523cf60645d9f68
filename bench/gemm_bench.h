// GEMM micro-benchmarks through the engine's ops (mm, linear, bmm), and the tile-variant sweep
// of the GEMM kernel (--sweep). Every case is checked against a float64 CPU reference first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "result.h"
#include "wgx/context.h"

namespace wgx::bench {

// Square mm, skinny linear (batch 1), ViT-sized linear and attention-shaped bmm. `filter`: keep
// only cases whose name contains it (empty: all). `dtype`: float32, or float16 tensors (float32
// arithmetic; rows named "... f16", bytes counted at 2 per element).
void bench_gemm(Context& ctx, const MeasureOptions& options, const std::string& filter, DType dtype,
                std::vector<Result>& rows);

// A sweep problem: C [batch, M, N] = A [batch, M, K] @ B [batch, K, N].
struct SweepShape {
    int64_t batch = 1, M = 0, K = 0, N = 0;
};
// "4096" (square) or "MxKxN" or "BxMxKxN"; throws wgx::InvalidArgument otherwise.
SweepShape parse_sweep_shape(const std::string& text);

// Every GEMM variant that fits the device (and the kernel used before them) on each shape.
void sweep_gemm(Context& ctx, const MeasureOptions& options, const std::vector<SweepShape>& shapes,
                const std::vector<uint32_t>& splits, std::vector<Result>& rows);

}  // namespace wgx::bench
