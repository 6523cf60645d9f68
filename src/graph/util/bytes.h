// Byte buffers shared between a file reader and the Graph that keeps constants alive, plus
// little-endian field reads and an alignment guard for FlatBuffers.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace wgx::graph {

using SharedBytes = std::shared_ptr<const std::vector<uint8_t>>;

inline SharedBytes share_bytes(std::vector<uint8_t> bytes) {
    return std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
}

inline uint16_t read_u16_le(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

inline uint32_t read_u32_le(const uint8_t* p) {
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
           (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

inline uint64_t read_u64_le(const uint8_t* p) {
    return static_cast<uint64_t>(read_u32_le(p)) |
           (static_cast<uint64_t>(read_u32_le(p + 4)) << 32);
}

// The generated FlatBuffers accessors read scalars through plain pointer casts, and the
// verifier checks alignment relative to the buffer start only. A flatbuffer found at an odd
// offset of a file (a fuzzed segment offset, say) is therefore copied to aligned memory
// before it is verified and read; well-formed files are used in place.
class AlignedBytes {
  public:
    explicit AlignedBytes(std::span<const uint8_t> bytes) {
        constexpr uintptr_t kAlignment = 16;
        if (reinterpret_cast<uintptr_t>(bytes.data()) % kAlignment == 0) {
            view_ = bytes;
            return;
        }
        copy_.resize((bytes.size() + sizeof(Block) - 1) / sizeof(Block));
        if (!bytes.empty()) std::memcpy(copy_.data(), bytes.data(), bytes.size());
        view_ = {reinterpret_cast<const uint8_t*>(copy_.data()), bytes.size()};
    }
    AlignedBytes(const AlignedBytes&) = delete;
    AlignedBytes& operator=(const AlignedBytes&) = delete;

    std::span<const uint8_t> view() const { return view_; }

  private:
    struct alignas(16) Block {
        uint8_t bytes[16];
    };
    std::vector<Block> copy_;
    std::span<const uint8_t> view_;
};

}  // namespace wgx::graph
