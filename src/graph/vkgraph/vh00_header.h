// The "VH00" header at the start of a Vulkan delegate payload. It locates the VkGraph
// flatbuffer and the raw constant bytes that follow it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace wgx::graph {

struct VkHeader {
    uint16_t length = 0;
    uint32_t flatbuffer_offset = 0;
    uint32_t flatbuffer_size = 0;
    uint32_t bytes_offset = 0;
    uint64_t bytes_size = 0;  // a stored 0 means "the rest of the blob" (as the WebGPU runtime)
};

inline constexpr size_t kVkHeaderLength = 30;

// Checks the magic and every range against `blob`; a LoadError names `file` and `where`.
VkHeader read_vk_header(std::span<const uint8_t> blob, std::string_view file,
                        const std::string& where);

}  // namespace wgx::graph
