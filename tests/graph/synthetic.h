// Builders for synthetic .pte files and Vulkan delegate payloads, written with the generated
// FlatBuffers builders, so reader tests do not depend on exported fixtures alone.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flat_tensor_generated.h"
#include "graph/util/bytes.h"
#include "program_generated.h"
#include "vkgraph_generated.h"

namespace wgx::test {

using Bytes = std::vector<uint8_t>;

template <typename T>
Bytes bytes_of(const std::vector<T>& items) {
    Bytes out(items.size() * sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), items.data(), out.size());
    return out;
}

// A VH00 + VkGraph payload.
class VkGraphWriter {
  public:
    int32_t null_value();
    int32_t int_value(int64_t v);
    int32_t double_value(double v);
    int32_t bool_value(bool v);
    int32_t string_value(const std::string& v);
    int32_t symint(int32_t v);
    int32_t int_list(const std::vector<int64_t>& items);
    int32_t double_list(const std::vector<double>& items);
    int32_t bool_list(const std::vector<bool>& items);
    int32_t value_list(const std::vector<int32_t>& items);
    int32_t tensor(vkgraph::VkDataType type, const std::vector<uint32_t>& dims,
                   int32_t constant_id = -1, int32_t mem_obj_id = -1);
    // A value with no type / an unknown union tag, for error tests.
    int32_t untyped_value(uint8_t tag);

    int32_t inline_constant(const Bytes& bytes);                      // returns the constant id
    int32_t named_constant(const std::string& key, uint64_t length);  // offset UINT64_MAX

    void op(const std::string& name, const std::vector<int32_t>& args, uint32_t node_id = 0);
    std::vector<uint32_t> inputs, outputs;

    // The payload: VH00 header padded to 32, flatbuffer, constants (16-byte aligned).
    Bytes finish();

  private:
    int32_t add(vkgraph::GraphTypes type, flatbuffers::Offset<void> body);
    flatbuffers::FlatBufferBuilder fbb_;
    std::vector<flatbuffers::Offset<vkgraph::VkValue>> values_;
    std::vector<flatbuffers::Offset<vkgraph::OperatorCall>> chain_;
    std::vector<flatbuffers::Offset<vkgraph::VkBytes>> constants_;
    Bytes constant_area_;
};

// Writes a VH00 header for the given fields (for header error tests).
Bytes vh00_header(uint16_t length, uint32_t fb_offset, uint32_t fb_size, uint32_t bytes_offset,
                  uint64_t bytes_size);

struct TensorOptions {
    uint32_t data_buffer_idx = 0;
    bool planned = false;        // has allocation_info
    uint32_t memory_offset = 0;  // its offset in memory id 1, when planned
    executorch_flatbuffer::TensorShapeDynamism dynamism =
        executorch_flatbuffer::TensorShapeDynamism::STATIC;
    std::string fqn;
    bool external = false;
    std::vector<uint8_t> dim_order;
};

// A .pte with one or more execution plans.
class PteWriter {
  public:
    PteWriter();

    int32_t null_value();
    int32_t int_value(int64_t v);
    int32_t double_value(double v);
    int32_t bool_value(bool v);
    int32_t string_value(const std::string& v);
    // Boxed like ExecuTorch does: one Int value per item plus the IntList of their ids.
    int32_t int_list(const std::vector<int64_t>& items);
    int32_t int_list_of_ids(const std::vector<int64_t>& ids);
    int32_t double_list(const std::vector<double>& items);
    int32_t bool_list(const std::vector<bool>& items);
    int32_t tensor_list(const std::vector<int32_t>& ids);
    int32_t optional_tensor_list(const std::vector<int32_t>& ids);
    int32_t tensor(executorch_flatbuffer::ScalarType type, const std::vector<int32_t>& sizes,
                   const TensorOptions& options = {});
    int32_t untyped_value(uint8_t tag);

    // Constant data in the constant segment; returns its data_buffer_idx.
    uint32_t constant_data(const Bytes& bytes);
    // Constant data in the deprecated inline constant_buffer; returns its data_buffer_idx.
    uint32_t inline_constant_data(const Bytes& bytes);
    uint32_t segment(const Bytes& bytes);
    void named_data(const std::string& key, const Bytes& bytes);

    int32_t op(const std::string& name, const std::string& overload);
    int32_t delegate(const std::string& id, const Bytes& payload, bool in_segment);

    void kernel_call(int32_t op_index, const std::vector<int32_t>& args);
    void delegate_call(int32_t delegate_index, const std::vector<int32_t>& args);
    void move_call(int32_t from, int32_t to);
    void free_call(int32_t value);
    void jump_false_call(int32_t cond, int32_t destination);
    void raw_instruction(uint8_t tag);

    std::vector<int32_t> inputs, outputs;

    // Closes the current plan under `name`; values, instructions etc. start afresh.
    void end_plan(const std::string& name);
    // Adds the eh00 header (with segments) when any segment exists or `force_header`.
    Bytes finish(bool force_header = false);

  private:
    int32_t add(executorch_flatbuffer::KernelTypes type, flatbuffers::Offset<void> body);
    void instruction(executorch_flatbuffer::InstructionArguments type,
                     flatbuffers::Offset<void> body);

    flatbuffers::FlatBufferBuilder fbb_;
    std::vector<flatbuffers::Offset<executorch_flatbuffer::ExecutionPlan>> plans_;
    std::vector<flatbuffers::Offset<executorch_flatbuffer::EValue>> values_;
    std::vector<flatbuffers::Offset<executorch_flatbuffer::Instruction>> instructions_;
    std::vector<flatbuffers::Offset<executorch_flatbuffer::Operator>> operators_;
    std::vector<flatbuffers::Offset<executorch_flatbuffer::BackendDelegate>> delegates_;
    std::vector<Bytes> segments_;
    std::vector<Bytes> inline_delegate_data_;
    std::vector<Bytes> inline_constants_;
    std::vector<std::pair<std::string, uint32_t>> named_;
    std::vector<uint64_t> constant_offsets_{0};
    std::optional<uint32_t> constant_segment_;
    Bytes constant_segment_bytes_;
};

// A .ptd (FlatTensor) file holding one segment per entry.
Bytes ptd_file(const std::vector<std::pair<std::string, Bytes>>& entries);

inline graph::SharedBytes share(Bytes bytes) { return graph::share_bytes(std::move(bytes)); }

}  // namespace wgx::test
