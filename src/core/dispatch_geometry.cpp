#include "core/dispatch_geometry.h"

#include <fmt/format.h>

#include <algorithm>

namespace wgx {

uint32_t clamp_workgroup_size(uint32_t preferred, const DeviceLimits& limits) {
    uint32_t cap =
        std::min({preferred, limits.max_workgroup_invocations, limits.max_workgroup_size_x});
    uint32_t size = 1;
    while (size * 2 <= cap) size *= 2;
    return size;
}

Grid fold_grid(uint64_t invocations, uint32_t workgroup_size, uint32_t max_per_dim) {
    uint64_t groups = std::max<uint64_t>(1, ceil_div(invocations, workgroup_size));
    if (groups <= max_per_dim) return Grid{static_cast<uint32_t>(groups), 1, 1};
    uint64_t y = ceil_div(groups, max_per_dim);
    if (y > max_per_dim) {
        throw InvalidArgument(fmt::format(
            "{} invocations need {} workgroups of {}, more than a 2-D grid of {} x {} allows.",
            invocations, groups, workgroup_size, max_per_dim, max_per_dim));
    }
    // Spread evenly so the last row is not mostly idle.
    uint64_t x = ceil_div(groups, y);
    return Grid{static_cast<uint32_t>(x), static_cast<uint32_t>(y), 1};
}

}  // namespace wgx
