// Dispatch geometry shared by every op: workgroup sizes within the device limits and grids
// folded under the per-dimension workgroup limit.
#pragma once

#include <cstdint>

#include "wgx/device.h"
#include "wgx/op.h"

namespace wgx {

// The largest power of two <= preferred that the device allows in one 1-D workgroup.
uint32_t clamp_workgroup_size(uint32_t preferred, const DeviceLimits& limits);

// ceil(invocations / workgroup_size) workgroups laid out as x * y with x <= max_per_dim.
// Throws InvalidArgument when even the 2-D fold does not fit.
Grid fold_grid(uint64_t invocations, uint32_t workgroup_size, uint32_t max_per_dim);

constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace wgx
