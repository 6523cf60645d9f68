// Which kernel a convolution runs as, chosen from its sizes and the device's limits alone (no
// GPU work, so tests/unit/cpu tests it without a device). conv2d.cpp records each method.
#pragma once

#include <cstdint>
#include <string_view>

#include "ops/conv/conv_problem.h"

namespace wgx::ops {

enum class ConvMethod {
    pointwise_gemm,         // 1x1, stride 1, unpadded, ungrouped: the GEMM on the input itself
    implicit_gemm,          // other ungrouped, not transposed: the GEMM gathering the unfold
    grouped_implicit_gemm,  // grouped, several input channels per group, one image
    im2col_gemm,            // WGX_IMPLICIT_GEMM=0: unfold into a scratch, then the GEMM
    depthwise_tiled,        // depthwise through workgroup memory (CPU adapters)
    depthwise,              // one input channel and < 4 output channels per group
    direct,                 // everything else, transposed included
};

// The names above, for messages and tests.
std::string_view to_string(ConvMethod m);

// What the choice reads of the device.
struct ConvLimits {
    bool cpu_adapter = false;  // AdapterType::cpu
    uint32_t max_workgroups_per_dimension = 0;
    uint64_t max_storage_binding_bytes = 0;
    uint64_t max_buffer_bytes = 0;
    // The direct kernels' workgroup size: Recorder::workgroup_size(64).
    uint32_t workgroup_size = 0;
};

// The first method, in the order above, that the problem and the limits allow. The GEMM
// methods need their grid (32 x 32 output tiles, one image or group per z) within the limits;
// `implicit_gemm_enabled` is false under WGX_IMPLICIT_GEMM=0 (read by the caller).
ConvMethod choose_conv_method(const ConvProblem& problem, const ConvLimits& limits,
                              bool implicit_gemm_enabled);

}  // namespace wgx::ops
