#include "graph/pte/ptd_file.h"

#include <cstring>

#include "flat_tensor_generated.h"
#include "graph/util/checked.h"
#include "graph/util/flatbuffer_check.h"
#include "graph/util/text.h"

namespace wgx::graph {

namespace ft = flat_tensor_flatbuffer;

namespace {

constexpr size_t kHeaderStart = 8;
constexpr uint32_t kHeaderLength = 40;  // magic, length, 4 x u64

struct PtdHeader {
    uint64_t flatbuffer_offset = 0;
    uint64_t flatbuffer_size = 0;
    uint64_t segment_base_offset = 0;
    uint64_t segment_data_size = 0;
};

PtdHeader read_header(std::span<const uint8_t> file, const std::string& name) {
    if (file.size() < kHeaderStart + kHeaderLength) {
        fail(name, cat("is ", file.size(), " bytes, too small for a .ptd file (at least ",
                       kHeaderStart + kHeaderLength, ")"));
    }
    if (std::memcmp(file.data() + 4, "FT01", 4) != 0) {
        fail(name, "is not a FlatTensor (.ptd) file: bytes 4..8 are not 'FT01'");
    }
    const uint8_t* head = file.data() + kHeaderStart;
    if (std::memcmp(head, "FH01", 4) != 0) {
        fail(name, "has no 'FH01' header at byte 8 (older .ptd layouts are not supported)");
    }
    const uint32_t length = read_u32_le(head + 4);
    if (length < kHeaderLength) {
        fail(name, cat("FH01 header length ", length, " < ", kHeaderLength));
    }
    PtdHeader header{read_u64_le(head + 8), read_u64_le(head + 16), read_u64_le(head + 24),
                     read_u64_le(head + 32)};
    // The header sits inside the flatbuffer; the flatbuffer covers [0, offset + size).
    const auto flatbuffer_end = checked_add(header.flatbuffer_offset, header.flatbuffer_size);
    if (!flatbuffer_end || *flatbuffer_end > header.segment_base_offset ||
        header.segment_base_offset > file.size()) {
        fail(name, cat("FH01 header: flatbuffer [", header.flatbuffer_offset, " + ",
                       header.flatbuffer_size, "] and segment base ", header.segment_base_offset,
                       " do not fit in the ", file.size(), "-byte file (truncated?)"));
    }
    if (!range_fits(header.segment_base_offset, header.segment_data_size, file.size())) {
        fail(name, cat("FH01 header: segment data of ", header.segment_data_size,
                       " bytes from byte ", header.segment_base_offset,
                       " runs past the end of the ", file.size(), "-byte file (truncated?)"));
    }
    return header;
}

}  // namespace

NamedDataMap read_ptd(const SharedBytes& bytes, const std::string& name) {
    if (!bytes) fail(name, "no bytes");
    std::span<const uint8_t> file(*bytes);
    const PtdHeader header = read_header(file, name);
    const auto flatbuffer_size = header.flatbuffer_offset + header.flatbuffer_size;

    AlignedBytes aligned(file.first(static_cast<size_t>(flatbuffer_size)));
    verify_flatbuffer(
        aligned.view(), [](flatbuffers::Verifier& v) { return ft::VerifyFlatTensorBuffer(v); },
        name, "the FlatTensor flatbuffer");
    const ft::FlatTensor* root = ft::GetFlatTensor(aligned.view().data());

    NamedDataMap map;
    map.file = name;
    const auto* segments = root->segments();
    const uint32_t segment_count = segments ? segments->size() : 0;
    const auto* entries = root->named_data();
    if (!entries) return map;
    for (uint32_t i = 0; i < entries->size(); ++i) {
        const ft::NamedData* entry = entries->Get(i);
        if (!entry->key()) fail(name, cat("named data entry ", i, " has no key"));
        const std::string key = entry->key()->str();
        const uint32_t index = entry->segment_index();
        if (index >= segment_count) {
            fail(name, cat("named data '", key, "' refers to segment ", index, " but the file has ",
                           segment_count, " segments"));
        }
        const ft::DataSegment* segment = segments->Get(index);
        const auto start = checked_add(header.segment_base_offset, segment->offset());
        if (!start || !range_fits(*start, segment->size(), file.size())) {
            fail(name, cat("named data '", key, "': segment ", index, " [offset ",
                           segment->offset(), ", size ", segment->size(),
                           "] lies past the end of the file (", file.size(), " bytes)"));
        }
        map.entries.emplace(
            key, file.subspan(static_cast<size_t>(*start), static_cast<size_t>(segment->size())));
    }
    return map;
}

}  // namespace wgx::graph
