#include "graph/vkgraph/vh00_header.h"

#include <cstring>

#include "graph/util/bytes.h"
#include "graph/util/checked.h"
#include "graph/util/text.h"

namespace wgx::graph {

VkHeader read_vk_header(std::span<const uint8_t> blob, std::string_view file,
                        const std::string& where) {
    if (blob.size() < kVkHeaderLength) {
        fail(file, cat(where, ": payload is ", blob.size(), " bytes, too small for a VH00 header (",
                       kVkHeaderLength, ")"));
    }
    if (std::memcmp(blob.data() + 4, "VH00", 4) != 0) {
        fail(file, cat(where, ": no VH00 header (bytes 4..8 of the payload are not 'VH00')"));
    }
    const uint8_t* p = blob.data();
    VkHeader header;
    header.length = read_u16_le(p + 8);
    header.flatbuffer_offset = read_u32_le(p + 10);
    header.flatbuffer_size = read_u32_le(p + 14);
    header.bytes_offset = read_u32_le(p + 18);
    header.bytes_size = read_u64_le(p + 22);

    const std::string fields =
        cat(" (header length ", header.length, ", flatbuffer offset ", header.flatbuffer_offset,
            ", flatbuffer size ", header.flatbuffer_size, ", bytes offset ", header.bytes_offset,
            ", bytes size ", header.bytes_size, ", payload size ", blob.size(), ")");
    if (header.length < kVkHeaderLength || header.length > blob.size()) {
        fail(file, cat(where, ": VH00 header length must be in [", kVkHeaderLength,
                       ", payload size]", fields));
    }
    if (header.flatbuffer_offset < header.length) {
        fail(file, cat(where, ": VH00 flatbuffer offset is inside the header", fields));
    }
    if (header.flatbuffer_size == 0) {
        fail(file, cat(where, ": VH00 flatbuffer size is 0", fields));
    }
    if (!range_fits(header.flatbuffer_offset, header.flatbuffer_size, blob.size())) {
        fail(file, cat(where, ": VH00 flatbuffer runs past the end of the payload", fields));
    }
    if (uint64_t{header.bytes_offset} <
        uint64_t{header.flatbuffer_offset} + uint64_t{header.flatbuffer_size}) {
        fail(file, cat(where, ": VH00 constant bytes start inside the flatbuffer", fields));
    }
    if (header.bytes_offset > blob.size()) {
        fail(file, cat(where, ": VH00 constant bytes start past the end of the payload", fields));
    }
    if (header.bytes_size == 0) {
        header.bytes_size = blob.size() - header.bytes_offset;
    } else if (!range_fits(header.bytes_offset, header.bytes_size, blob.size())) {
        fail(file, cat(where, ": VH00 constant bytes run past the end of the payload", fields));
    }
    return header;
}

}  // namespace wgx::graph
