// An opened .pte file: the verified Program flatbuffer plus checked access to its segments,
// named data, delegate payloads and constant data. Everything returned points into the file's
// bytes (see storage()); nothing is copied.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graph/pte/extended_header.h"
#include "graph/pte/named_data.h"
#include "graph/util/bytes.h"
#include "program_generated.h"

namespace wgx::graph {

class PteFile {
  public:
    // Checks the identifier, the extended header and the flatbuffer; builds the named data map.
    // Throws LoadError naming `name` on any problem.
    PteFile(SharedBytes bytes, std::string name);

    const std::string& name() const { return name_; }
    uint64_t bytes_size() const { return bytes_->size(); }
    const executorch_flatbuffer::Program& program() const { return *program_; }
    const std::optional<ExtendedHeader>& extended_header() const { return header_; }
    const NamedDataMap& named_data() const { return named_data_; }
    // Buffers that the spans handed out point into; a Graph built from this file keeps them.
    const std::vector<SharedBytes>& storage() const { return storage_; }

    std::vector<std::string> method_names() const;
    // The plan called `method`; the error lists the available names.
    const executorch_flatbuffer::ExecutionPlan& plan(std::string_view method) const;

    // Bytes of segment `index`; `purpose` says who asked, for messages.
    std::span<const uint8_t> segment(uint64_t index, const std::string& purpose) const;
    // The processed payload of a delegate (inline data or a segment).
    std::span<const uint8_t> delegate_payload(
        const executorch_flatbuffer::BackendDelegate& delegate, const std::string& purpose) const;
    // `nbytes` of constant `data_buffer_idx` from the constant segment (or the deprecated
    // inline constant buffer).
    std::span<const uint8_t> constant(uint32_t data_buffer_idx, uint64_t nbytes,
                                      const std::string& purpose) const;
    // `nbytes` of the initial value of a mutable tensor (Program.mutable_data_segments).
    std::span<const uint8_t> mutable_data(uint64_t segments_idx, uint32_t data_buffer_idx,
                                          uint64_t nbytes, const std::string& purpose) const;

  private:
    std::span<const uint8_t> subsegment(const executorch_flatbuffer::SubsegmentOffsets& offsets,
                                        uint32_t index, uint64_t nbytes,
                                        const std::string& purpose) const;
    void read_named_data();

    SharedBytes bytes_;
    std::string name_;
    std::vector<SharedBytes> storage_;
    std::optional<ExtendedHeader> header_;
    const executorch_flatbuffer::Program* program_ = nullptr;
    NamedDataMap named_data_;
};

}  // namespace wgx::graph
