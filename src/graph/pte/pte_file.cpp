#include "graph/pte/pte_file.h"

#include <cstring>

#include "graph/util/checked.h"
#include "graph/util/flatbuffer_check.h"
#include "graph/util/text.h"

namespace wgx::graph {

namespace fb = executorch_flatbuffer;

namespace {

// Four bytes as text when printable, else as hex, for "wrong magic" messages.
std::string magic_text(std::span<const uint8_t> bytes, size_t at) {
    if (bytes.size() < at + 4) return "(missing)";
    std::string text = "'";
    bool printable = true;
    for (size_t i = 0; i < 4; ++i) {
        const uint8_t c = bytes[at + i];
        if (c < 0x20 || c > 0x7e) printable = false;
        text += static_cast<char>(c);
    }
    if (printable) return text + "'";
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex = "0x";
    for (size_t i = 0; i < 4; ++i) {
        hex += kHex[bytes[at + i] >> 4];
        hex += kHex[bytes[at + i] & 15];
    }
    return hex;
}

}  // namespace

std::string NamedDataSources::describe() const {
    std::string text;
    if (program)
        text = cat("named data of ", program->file, " (", program->entries.size(), " keys)");
    if (external) {
        text += cat(text.empty() ? "" : " and ", external->file, " (", external->entries.size(),
                    " keys)");
    } else {
        text += " (no .ptd file given)";
    }
    return text;
}

PteFile::PteFile(SharedBytes bytes, std::string name)
    : bytes_(std::move(bytes)), name_(std::move(name)) {
    if (!bytes_) fail(name_, "no bytes");
    std::span<const uint8_t> file(*bytes_);
    if (file.size() < 8) {
        fail(name_, cat("is ", file.size(), " bytes, too small to be a .pte (at least 8 needed)"));
    }
    if (std::memcmp(file.data() + 4, "ET12", 4) != 0) {
        fail(name_, cat("is not an ExecuTorch program: bytes 4..8 are ", magic_text(file, 4),
                        ", expected 'ET12'"));
    }
    header_ = read_extended_header(file, name_);
    const size_t program_size = header_ ? static_cast<size_t>(header_->program_size) : file.size();

    // std::vector storage is 16-byte aligned, but a caller's buffer might not be: copy then.
    storage_.push_back(bytes_);
    std::span<const uint8_t> region = file.first(program_size);
    if (reinterpret_cast<uintptr_t>(region.data()) % 16 != 0) {
        auto copy = share_bytes(std::vector<uint8_t>(region.begin(), region.end()));
        region = std::span<const uint8_t>(*copy);
        storage_.push_back(std::move(copy));
    }
    verify_flatbuffer(
        region, [](flatbuffers::Verifier& v) { return fb::VerifyProgramBuffer(v); }, name_,
        cat("the program flatbuffer (bytes 0..", program_size, ")"));
    program_ = fb::GetProgram(region.data());
    read_named_data();
}

void PteFile::read_named_data() {
    named_data_.file = name_;
    const auto* entries = program_->named_data();
    if (!entries) return;
    for (uint32_t i = 0; i < entries->size(); ++i) {
        const fb::NamedData* entry = entries->Get(i);
        if (!entry->key()) fail(name_, cat("named data entry ", i, " has no key"));
        const std::string key = entry->key()->str();
        auto bytes = segment(entry->segment_index(), cat("named data '", key, "'"));
        named_data_.entries.emplace(key, bytes);  // the first of duplicate keys wins
    }
}

std::vector<std::string> PteFile::method_names() const {
    std::vector<std::string> names;
    if (const auto* plans = program_->execution_plan()) {
        for (const fb::ExecutionPlan* plan : *plans) {
            names.push_back(plan->name() ? plan->name()->str() : std::string());
        }
    }
    return names;
}

const fb::ExecutionPlan& PteFile::plan(std::string_view method) const {
    if (const auto* plans = program_->execution_plan()) {
        for (const fb::ExecutionPlan* plan : *plans) {
            if (plan->name() && plan->name()->string_view() == method) return *plan;
        }
    }
    fail(name_,
         cat("has no method '", method, "'; available methods: ", list_text(method_names())));
}

std::span<const uint8_t> PteFile::segment(uint64_t index, const std::string& purpose) const {
    const auto* segments = program_->segments();
    const uint64_t count = segments ? segments->size() : 0;
    if (index >= count) {
        fail(name_,
             cat(purpose, " refers to segment ", index, " but the file has ", count, " segments"));
    }
    if (!header_) {
        fail(name_, cat(purpose, " refers to segment ", index,
                        " but the file has no extended header (eh00) to locate segment data"));
    }
    const fb::DataSegment* segment = segments->Get(static_cast<uint32_t>(index));
    const auto start = checked_add(header_->segment_base_offset, segment->offset());
    if (!start || !range_fits(*start, segment->size(), bytes_->size())) {
        fail(name_,
             cat(purpose, ": segment ", index, " [offset ", segment->offset(), ", size ",
                 segment->size(), "] relative to the segment base ", header_->segment_base_offset,
                 " lies past the end of the file (", bytes_->size(), " bytes; truncated?)"));
    }
    return std::span<const uint8_t>(*bytes_).subspan(static_cast<size_t>(*start),
                                                     static_cast<size_t>(segment->size()));
}

std::span<const uint8_t> PteFile::delegate_payload(const fb::BackendDelegate& delegate,
                                                   const std::string& purpose) const {
    const fb::BackendDelegateDataReference* processed = delegate.processed();
    if (!processed) fail(name_, cat(purpose, " has no processed data reference"));
    switch (processed->location()) {
        case fb::DataLocation::INLINE: {
            const auto* inline_data = program_->backend_delegate_data();
            const uint32_t count = inline_data ? inline_data->size() : 0;
            if (processed->index() >= count) {
                fail(name_, cat(purpose, " refers to inline delegate data ", processed->index(),
                                " but the program has ", count, " entries"));
            }
            const auto* data = inline_data->Get(processed->index())->data();
            if (!data) return {};
            return {data->data(), data->size()};
        }
        case fb::DataLocation::SEGMENT: return segment(processed->index(), purpose);
    }
    fail(name_, cat(purpose, " has unknown data location ", static_cast<int>(processed->location()),
                    " (expected INLINE 0 or SEGMENT 1)"));
}

std::span<const uint8_t> PteFile::subsegment(const fb::SubsegmentOffsets& offsets, uint32_t index,
                                             uint64_t nbytes, const std::string& purpose) const {
    const auto* list = offsets.offsets();
    const uint32_t count = list ? list->size() : 0;
    if (index >= count) {
        fail(name_,
             cat(purpose, " has data index ", index, " but the segment lists ", count, " offsets"));
    }
    auto segment_bytes = segment(offsets.segment_index(), purpose);
    const uint64_t offset = scalar_at(*list, index);
    if (!range_fits(offset, nbytes, segment_bytes.size())) {
        fail(name_, cat(purpose, " needs ", nbytes, " bytes at offset ", offset, " of segment ",
                        offsets.segment_index(), ", which has ", segment_bytes.size(), " bytes"));
    }
    return segment_bytes.subspan(static_cast<size_t>(offset), static_cast<size_t>(nbytes));
}

std::span<const uint8_t> PteFile::constant(uint32_t data_buffer_idx, uint64_t nbytes,
                                           const std::string& purpose) const {
    const fb::SubsegmentOffsets* constant_segment = program_->constant_segment();
    if (constant_segment && constant_segment->offsets() &&
        constant_segment->offsets()->size() > 0) {
        return subsegment(*constant_segment, data_buffer_idx, nbytes, purpose);
    }
    // Files from before September 2024 keep constants inline in the flatbuffer.
    const auto* buffers = program_->constant_buffer();
    const uint32_t count = buffers ? buffers->size() : 0;
    if (data_buffer_idx >= count) {
        fail(name_, cat(purpose, " has data index ", data_buffer_idx,
                        " but the program has no constant segment offsets and ", count,
                        " inline constant buffers"));
    }
    const auto* storage = buffers->Get(data_buffer_idx)->storage();
    const uint64_t size = storage ? storage->size() : 0;
    if (nbytes > size) {
        fail(name_, cat(purpose, " needs ", nbytes, " bytes but inline constant buffer ",
                        data_buffer_idx, " has ", size));
    }
    return {storage ? storage->data() : nullptr, static_cast<size_t>(nbytes)};
}

std::span<const uint8_t> PteFile::mutable_data(uint64_t segments_idx, uint32_t data_buffer_idx,
                                               uint64_t nbytes, const std::string& purpose) const {
    const auto* all = program_->mutable_data_segments();
    const uint64_t count = all ? all->size() : 0;
    if (segments_idx >= count) {
        fail(name_, cat(purpose, " refers to mutable data segment list ", segments_idx,
                        " but the program has ", count));
    }
    return subsegment(*all->Get(static_cast<uint32_t>(segments_idx)), data_buffer_idx, nbytes,
                      purpose);
}

}  // namespace wgx::graph
