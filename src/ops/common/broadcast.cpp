#include "ops/common/broadcast.h"

#include <vector>

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

size_t coalesce_dims(std::array<uint32_t, kMaxRank>& sizes,
                     std::initializer_list<std::array<uint32_t, kMaxRank>*> strides) {
    // Kept dims, innermost first.
    std::array<uint32_t, kMaxRank> new_sizes{};
    std::vector<std::array<uint32_t, kMaxRank>> new_strides(strides.size());
    size_t kept = 0;
    for (size_t d = kMaxRank; d-- > 0;) {
        if (sizes[d] == 1) continue;
        bool merge = kept > 0;
        size_t k = 0;
        for (const auto* s : strides) {
            // Dim d is outside the kept dim (kept - 1) when its stride is the kept one's
            // stride times the kept dim's size.
            if (merge &&
                uint64_t((*s)[d]) != uint64_t(new_strides[k][kept - 1]) * new_sizes[kept - 1]) {
                merge = false;
            }
            ++k;
        }
        if (merge) {
            new_sizes[kept - 1] *= sizes[d];
            continue;
        }
        k = 0;
        for (const auto* s : strides) new_strides[k++][kept] = (*s)[d];
        new_sizes[kept++] = sizes[d];
    }
    if (kept == 0) {  // every dim of size 1: one element
        new_sizes[0] = 1;
        for (auto& s : new_strides) s[0] = 0;
        kept = 1;
    }
    sizes.fill(1);
    for (auto* s : strides) s->fill(0);
    for (size_t i = 0; i < kept; ++i) {
        sizes[kMaxRank - 1 - i] = new_sizes[i];
        size_t k = 0;
        for (auto* s : strides) (*s)[kMaxRank - 1 - i] = new_strides[k++][i];
    }
    return kept;
}

}  // namespace wgx::ops
