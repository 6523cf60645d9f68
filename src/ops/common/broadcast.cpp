#include "ops/common/broadcast.h"

#include <algorithm>

namespace wgx::ops {

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
    size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) {
        int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1) return std::nullopt;
        out[i] = std::max(da, db);
    }
    return out;
}

std::array<uint32_t, kMaxRank> broadcast_strides(const Shape& in, const Shape& out) {
    std::array<uint32_t, kMaxRank> strides{};
    // Work in the output's rank, right-aligned, then place into the last out.size() slots.
    const size_t lead = out.size() - in.size();
    uint64_t stride = 1;
    for (size_t i = out.size(); i-- > 0;) {
        uint32_t s = 0;
        if (i >= lead) {
            int64_t d = in[i - lead];
            s = d == 1 ? 0 : static_cast<uint32_t>(stride);
            stride *= static_cast<uint64_t>(d);
        }
        strides[kMaxRank - out.size() + i] = s;
    }
    return strides;
}

std::array<uint32_t, kMaxRank> padded_sizes(const Shape& shape) {
    std::array<uint32_t, kMaxRank> sizes;
    sizes.fill(1);
    for (size_t i = 0; i < shape.size(); ++i) {
        sizes[kMaxRank - shape.size() + i] = static_cast<uint32_t>(shape[i]);
    }
    return sizes;
}

}  // namespace wgx::ops
