// The optional "eh00" extended header of a .pte, found at byte 8 (inside the flatbuffer, just
// after the root offset and the file identifier). It is present when the file has segments and
// tells where the program flatbuffer ends and where segment data starts.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace wgx::graph {

struct ExtendedHeader {
    uint32_t length = 0;
    uint64_t program_size = 0;         // bytes of the flatbuffer, header included
    uint64_t segment_base_offset = 0;  // where segment offsets count from
    uint64_t segment_data_size = 0;    // 0 in headers older than the field
};

// nullopt when bytes 8..12 are not "eh00"; a LoadError naming `file` when the header is there
// but malformed or points outside the file.
std::optional<ExtendedHeader> read_extended_header(std::span<const uint8_t> bytes,
                                                   std::string_view file);

}  // namespace wgx::graph
