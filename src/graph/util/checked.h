// Overflow-safe arithmetic for offsets and sizes read from untrusted files. Every offset or
// size that comes from a file goes through these before it is used to index memory.
#pragma once

#include <cstdint>
#include <optional>

namespace wgx::graph {

inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
    uint64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
    return sum;
}

inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
    uint64_t product = 0;
    if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
    return product;
}

// True when [offset, offset + size) lies inside [0, total).
inline bool range_fits(uint64_t offset, uint64_t size, uint64_t total) {
    return offset <= total && size <= total - offset;
}

}  // namespace wgx::graph
