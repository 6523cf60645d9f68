#include "ops/common/row_split.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "wgx/error.h"

namespace wgx::ops {

std::vector<RowRange> split_rows(const DeviceLimits& limits, int64_t rows, uint64_t row_bytes,
                                 std::initializer_list<uint64_t> also_row_bytes,
                                 std::string_view what) {
    const uint64_t max = limits.max_storage_binding_bytes;
    if (rows <= 0 || row_bytes == 0 || uint64_t(rows) <= max / row_bytes) return {{0, rows}};
    // At least 16 bytes: the GEMM reads vec4<f32> from the start of its bindings, whatever
    // alignment a driver reports.
    const uint64_t align = std::max<uint64_t>(16, limits.min_storage_offset_alignment);
    // The fewest rows after which every tensor's offset is a multiple of `align` again.
    uint64_t step = align / std::gcd(align, row_bytes);
    for (uint64_t b : also_row_bytes) step = std::lcm(step, align / std::gcd(align, b));
    const uint64_t fit = max / row_bytes / step * step;
    if (fit == 0) {
        throw InvalidArgument(fmt::format(
            "{}: {} rows of {} bytes are larger than one storage binding "
            "(maxStorageBufferBindingSize {} bytes), and the smallest part that keeps the "
            "binding offsets aligned ({} rows, for an alignment of {} bytes) takes {} bytes, "
            "more than that.",
            what, rows, row_bytes, max, step, align, step * row_bytes));
    }
    std::vector<RowRange> parts;
    for (int64_t first = 0; first < rows; first += int64_t(fit)) {
        parts.push_back({first, std::min<int64_t>(int64_t(fit), rows - first)});
    }
    return parts;
}

}  // namespace wgx::ops
