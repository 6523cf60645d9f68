#include "graph/pte/extended_header.h"

#include <cstring>

#include "graph/util/bytes.h"
#include "graph/util/checked.h"
#include "graph/util/text.h"

namespace wgx::graph {

namespace {

constexpr size_t kHeaderStart = 8;
constexpr uint32_t kMinimumLength = 24;       // magic, length, program size, segment base
constexpr uint32_t kWithDataSizeLength = 32;  // ... plus segment data size

}  // namespace

std::optional<ExtendedHeader> read_extended_header(std::span<const uint8_t> bytes,
                                                   std::string_view file) {
    if (bytes.size() < kHeaderStart + 4 ||
        std::memcmp(bytes.data() + kHeaderStart, "eh00", 4) != 0) {
        return std::nullopt;
    }
    if (bytes.size() < kHeaderStart + kMinimumLength) {
        fail(file, cat("truncated extended header: the file has ", bytes.size(),
                       " bytes, the eh00 header needs ", kHeaderStart + kMinimumLength));
    }
    const uint8_t* head = bytes.data() + kHeaderStart;
    ExtendedHeader header;
    header.length = read_u32_le(head + 4);
    if (header.length < kMinimumLength) {
        fail(file, cat("extended header at byte 8 has length ", header.length,
                       ", expected at least ", kMinimumLength));
    }
    if (!range_fits(kHeaderStart, header.length, bytes.size())) {
        fail(file, cat("extended header at byte 8 has length ", header.length,
                       " but the file has only ", bytes.size(), " bytes"));
    }
    header.program_size = read_u64_le(head + 8);
    header.segment_base_offset = read_u64_le(head + 16);
    if (header.length >= kWithDataSizeLength) header.segment_data_size = read_u64_le(head + 24);

    if (header.program_size < kHeaderStart + header.length || header.program_size > bytes.size()) {
        fail(file, cat("extended header says the program is ", header.program_size,
                       " bytes, but the file has ", bytes.size(),
                       " bytes (truncated?) and the header alone ends at byte ",
                       kHeaderStart + header.length));
    }
    if (header.segment_base_offset < header.program_size ||
        header.segment_base_offset > bytes.size()) {
        fail(file, cat("extended header segment base offset ", header.segment_base_offset,
                       " is outside [program size ", header.program_size, ", file size ",
                       bytes.size(), "] (truncated?)"));
    }
    if (!range_fits(header.segment_base_offset, header.segment_data_size, bytes.size())) {
        fail(file, cat("extended header says segment data spans ", header.segment_data_size,
                       " bytes from byte ", header.segment_base_offset, ", past the end of the ",
                       bytes.size(), "-byte file (truncated?)"));
    }
    return header;
}

}  // namespace wgx::graph
