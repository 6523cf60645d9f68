#include "synthetic.h"

#include <cstring>

namespace wgx::test {

namespace fb = executorch_flatbuffer;
namespace vk = vkgraph;

namespace {

void put_u16(Bytes& out, size_t at, uint16_t v) {
    for (size_t i = 0; i < 2; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void put_u32(Bytes& out, size_t at, uint32_t v) {
    for (size_t i = 0; i < 4; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void put_u64(Bytes& out, size_t at, uint64_t v) {
    for (size_t i = 0; i < 8; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
size_t align_up(size_t n, size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// VkGraphWriter

int32_t VkGraphWriter::add(vk::GraphTypes type, flatbuffers::Offset<void> body) {
    values_.push_back(vk::CreateVkValue(fbb_, type, body));
    return static_cast<int32_t>(values_.size() - 1);
}

int32_t VkGraphWriter::null_value() {
    return add(vk::GraphTypes::Null, vk::CreateNull(fbb_).Union());
}
int32_t VkGraphWriter::int_value(int64_t v) {
    return add(vk::GraphTypes::Int, vk::CreateInt(fbb_, v).Union());
}
int32_t VkGraphWriter::double_value(double v) {
    return add(vk::GraphTypes::Double, vk::CreateDouble(fbb_, v).Union());
}
int32_t VkGraphWriter::bool_value(bool v) {
    return add(vk::GraphTypes::Bool, vk::CreateBool(fbb_, v).Union());
}
int32_t VkGraphWriter::string_value(const std::string& v) {
    return add(vk::GraphTypes::String, vk::CreateStringDirect(fbb_, v.c_str()).Union());
}
int32_t VkGraphWriter::symint(int32_t v) {
    return add(vk::GraphTypes::SymInt, vk::CreateSymInt(fbb_, v).Union());
}
int32_t VkGraphWriter::int_list(const std::vector<int64_t>& items) {
    return add(vk::GraphTypes::IntList, vk::CreateIntListDirect(fbb_, &items).Union());
}
int32_t VkGraphWriter::double_list(const std::vector<double>& items) {
    return add(vk::GraphTypes::DoubleList, vk::CreateDoubleListDirect(fbb_, &items).Union());
}
int32_t VkGraphWriter::bool_list(const std::vector<bool>& items) {
    std::vector<uint8_t> raw(items.begin(), items.end());
    return add(vk::GraphTypes::BoolList, vk::CreateBoolListDirect(fbb_, &raw).Union());
}
int32_t VkGraphWriter::value_list(const std::vector<int32_t>& items) {
    return add(vk::GraphTypes::ValueList, vk::CreateValueListDirect(fbb_, &items).Union());
}
int32_t VkGraphWriter::tensor(vk::VkDataType type, const std::vector<uint32_t>& dims,
                              int32_t constant_id, int32_t mem_obj_id) {
    auto body = vk::CreateVkTensorDirect(fbb_, type, &dims, constant_id, mem_obj_id);
    return add(vk::GraphTypes::VkTensor, body.Union());
}
int32_t VkGraphWriter::untyped_value(uint8_t tag) {
    return add(static_cast<vk::GraphTypes>(tag), vk::CreateNull(fbb_).Union());
}

int32_t VkGraphWriter::inline_constant(const Bytes& bytes) {
    const uint64_t offset = constant_area_.size();
    constant_area_.insert(constant_area_.end(), bytes.begin(), bytes.end());
    constant_area_.resize(align_up(constant_area_.size(), 16), 0);
    constants_.push_back(vk::CreateVkBytes(fbb_, offset, bytes.size()));
    return static_cast<int32_t>(constants_.size() - 1);
}

int32_t VkGraphWriter::named_constant(const std::string& key, uint64_t length) {
    constants_.push_back(vk::CreateVkBytesDirect(fbb_, UINT64_MAX, length, key.c_str()));
    return static_cast<int32_t>(constants_.size() - 1);
}

void VkGraphWriter::op(const std::string& name, const std::vector<int32_t>& args,
                       uint32_t node_id) {
    chain_.push_back(vk::CreateOperatorCallDirect(fbb_, node_id, name.c_str(), &args));
}

Bytes vh00_header(uint16_t length, uint32_t fb_offset, uint32_t fb_size, uint32_t bytes_offset,
                  uint64_t bytes_size) {
    Bytes header(32, 0);
    std::memcpy(header.data() + 4, "VH00", 4);
    put_u16(header, 8, length);
    put_u32(header, 10, fb_offset);
    put_u32(header, 14, fb_size);
    put_u32(header, 18, bytes_offset);
    put_u64(header, 22, bytes_size);
    return header;
}

Bytes VkGraphWriter::finish() {
    auto graph = vk::CreateVkGraphDirect(fbb_, "0", &chain_, &values_, &inputs, &outputs,
                                         &constants_, nullptr);
    fbb_.Finish(graph, vk::VkGraphIdentifier());
    const Bytes flatbuffer(fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize());

    const size_t fb_offset = 32;
    const size_t bytes_offset = fb_offset + align_up(flatbuffer.size(), 16);
    Bytes payload = vh00_header(30, fb_offset, static_cast<uint32_t>(flatbuffer.size()),
                                static_cast<uint32_t>(bytes_offset), constant_area_.size());
    payload.insert(payload.end(), flatbuffer.begin(), flatbuffer.end());
    payload.resize(bytes_offset, 0);
    payload.insert(payload.end(), constant_area_.begin(), constant_area_.end());
    return payload;
}

// ---------------------------------------------------------------------------------------------
// PteWriter

PteWriter::PteWriter() : fbb_(1024) {}

int32_t PteWriter::add(fb::KernelTypes type, flatbuffers::Offset<void> body) {
    values_.push_back(fb::CreateEValue(fbb_, type, body));
    return static_cast<int32_t>(values_.size() - 1);
}

int32_t PteWriter::null_value() { return add(fb::KernelTypes::Null, fb::CreateNull(fbb_).Union()); }
int32_t PteWriter::int_value(int64_t v) {
    return add(fb::KernelTypes::Int, fb::CreateInt(fbb_, v).Union());
}
int32_t PteWriter::double_value(double v) {
    return add(fb::KernelTypes::Double, fb::CreateDouble(fbb_, v).Union());
}
int32_t PteWriter::bool_value(bool v) {
    return add(fb::KernelTypes::Bool, fb::CreateBool(fbb_, v).Union());
}
int32_t PteWriter::string_value(const std::string& v) {
    return add(fb::KernelTypes::String, fb::CreateStringDirect(fbb_, v.c_str()).Union());
}
int32_t PteWriter::int_list(const std::vector<int64_t>& items) {
    std::vector<int64_t> ids;
    for (int64_t item : items) ids.push_back(int_value(item));
    return int_list_of_ids(ids);
}
int32_t PteWriter::int_list_of_ids(const std::vector<int64_t>& ids) {
    return add(fb::KernelTypes::IntList, fb::CreateIntListDirect(fbb_, &ids).Union());
}
int32_t PteWriter::double_list(const std::vector<double>& items) {
    return add(fb::KernelTypes::DoubleList, fb::CreateDoubleListDirect(fbb_, &items).Union());
}
int32_t PteWriter::bool_list(const std::vector<bool>& items) {
    std::vector<uint8_t> raw(items.begin(), items.end());
    return add(fb::KernelTypes::BoolList, fb::CreateBoolListDirect(fbb_, &raw).Union());
}
int32_t PteWriter::tensor_list(const std::vector<int32_t>& ids) {
    return add(fb::KernelTypes::TensorList, fb::CreateTensorListDirect(fbb_, &ids).Union());
}
int32_t PteWriter::optional_tensor_list(const std::vector<int32_t>& ids) {
    return add(fb::KernelTypes::OptionalTensorList,
               fb::CreateOptionalTensorListDirect(fbb_, &ids).Union());
}
int32_t PteWriter::tensor(fb::ScalarType type, const std::vector<int32_t>& sizes,
                          const TensorOptions& options) {
    flatbuffers::Offset<fb::AllocationDetails> allocation = 0;
    if (options.planned) {
        allocation = fb::CreateAllocationDetails(fbb_, 1, options.memory_offset, 0);
    }
    flatbuffers::Offset<fb::ExtraTensorInfo> extra = 0;
    if (!options.fqn.empty() || options.external) {
        extra = fb::CreateExtraTensorInfoDirect(
            fbb_, 0, options.fqn.c_str(),
            options.external ? fb::TensorDataLocation::EXTERNAL : fb::TensorDataLocation::SEGMENT);
    }
    std::vector<uint8_t> order = options.dim_order;
    if (order.empty()) {
        for (size_t i = 0; i < sizes.size(); ++i) order.push_back(static_cast<uint8_t>(i));
    }
    auto body =
        fb::CreateTensorDirect(fbb_, type, 0, &sizes, &order, false, options.data_buffer_idx,
                               allocation, 0, options.dynamism, extra);
    return add(fb::KernelTypes::Tensor, body.Union());
}
int32_t PteWriter::untyped_value(uint8_t tag) {
    return add(static_cast<fb::KernelTypes>(tag), fb::CreateNull(fbb_).Union());
}

uint32_t PteWriter::constant_data(const Bytes& bytes) {
    constant_offsets_.push_back(constant_segment_bytes_.size());
    constant_segment_bytes_.insert(constant_segment_bytes_.end(), bytes.begin(), bytes.end());
    constant_segment_bytes_.resize(align_up(constant_segment_bytes_.size(), 16), 0);
    constant_segment_ = 0;  // placed at finish
    return static_cast<uint32_t>(constant_offsets_.size() - 1);
}

uint32_t PteWriter::inline_constant_data(const Bytes& bytes) {
    if (inline_constants_.empty()) inline_constants_.emplace_back();  // index 0 is reserved
    inline_constants_.push_back(bytes);
    return static_cast<uint32_t>(inline_constants_.size() - 1);
}

uint32_t PteWriter::segment(const Bytes& bytes) {
    segments_.push_back(bytes);
    return static_cast<uint32_t>(segments_.size() - 1);
}

void PteWriter::named_data(const std::string& key, const Bytes& bytes) {
    named_.emplace_back(key, segment(bytes));
}

int32_t PteWriter::op(const std::string& name, const std::string& overload) {
    operators_.push_back(fb::CreateOperatorDirect(fbb_, name.c_str(), overload.c_str()));
    return static_cast<int32_t>(operators_.size() - 1);
}

int32_t PteWriter::delegate(const std::string& id, const Bytes& payload, bool in_segment) {
    uint32_t index = 0;
    fb::DataLocation location = fb::DataLocation::INLINE;
    if (in_segment) {
        index = segment(payload);
        location = fb::DataLocation::SEGMENT;
    } else {
        inline_delegate_data_.push_back(payload);
        index = static_cast<uint32_t>(inline_delegate_data_.size() - 1);
    }
    auto reference = fb::CreateBackendDelegateDataReference(fbb_, location, index);
    delegates_.push_back(fb::CreateBackendDelegateDirect(fbb_, id.c_str(), reference, nullptr));
    return static_cast<int32_t>(delegates_.size() - 1);
}

void PteWriter::instruction(fb::InstructionArguments type, flatbuffers::Offset<void> body) {
    instructions_.push_back(fb::CreateInstruction(fbb_, type, body));
}
void PteWriter::kernel_call(int32_t op_index, const std::vector<int32_t>& args) {
    instruction(fb::InstructionArguments::KernelCall,
                fb::CreateKernelCallDirect(fbb_, op_index, &args).Union());
}
void PteWriter::delegate_call(int32_t delegate_index, const std::vector<int32_t>& args) {
    instruction(fb::InstructionArguments::DelegateCall,
                fb::CreateDelegateCallDirect(fbb_, delegate_index, &args).Union());
}
void PteWriter::move_call(int32_t from, int32_t to) {
    instruction(fb::InstructionArguments::MoveCall, fb::CreateMoveCall(fbb_, from, to).Union());
}
void PteWriter::free_call(int32_t value) {
    instruction(fb::InstructionArguments::FreeCall, fb::CreateFreeCall(fbb_, value).Union());
}
void PteWriter::jump_false_call(int32_t cond, int32_t destination) {
    instruction(fb::InstructionArguments::JumpFalseCall,
                fb::CreateJumpFalseCall(fbb_, cond, destination).Union());
}
void PteWriter::raw_instruction(uint8_t tag) {
    instruction(static_cast<fb::InstructionArguments>(tag), fb::CreateFreeCall(fbb_, 0).Union());
}

void PteWriter::end_plan(const std::string& name) {
    std::vector<flatbuffers::Offset<fb::Chain>> chains = {
        fb::CreateChainDirect(fbb_, &inputs, &outputs, &instructions_, nullptr)};
    std::vector<int64_t> buffer_sizes = {0};
    plans_.push_back(fb::CreateExecutionPlanDirect(fbb_, name.c_str(), 0, &values_, &inputs,
                                                   &outputs, &chains, &operators_, &delegates_,
                                                   &buffer_sizes));
    values_.clear();
    instructions_.clear();
    operators_.clear();
    delegates_.clear();
    inputs.clear();
    outputs.clear();
}

Bytes PteWriter::finish(bool force_header) {
    if (plans_.empty() || !values_.empty() || !instructions_.empty()) end_plan("forward");

    std::vector<Bytes> segments = segments_;
    std::optional<uint32_t> constant_segment;
    if (constant_segment_) {
        constant_segment = static_cast<uint32_t>(segments.size());
        segments.push_back(constant_segment_bytes_);
    }
    constexpr size_t kSegmentAlignment = 128;
    std::vector<flatbuffers::Offset<fb::DataSegment>> segment_tables;
    size_t segment_data_size = 0;
    for (const Bytes& segment : segments) {
        segment_data_size = align_up(segment_data_size, kSegmentAlignment);
        segment_tables.push_back(fb::CreateDataSegment(fbb_, segment_data_size, segment.size()));
        segment_data_size += segment.size();
    }

    std::vector<flatbuffers::Offset<fb::Buffer>> constant_buffers;
    for (const Bytes& bytes : inline_constants_) {
        constant_buffers.push_back(fb::CreateBufferDirect(fbb_, &bytes));
    }
    std::vector<flatbuffers::Offset<fb::BackendDelegateInlineData>> inline_data;
    for (const Bytes& bytes : inline_delegate_data_) {
        inline_data.push_back(fb::CreateBackendDelegateInlineDataDirect(fbb_, &bytes));
    }
    flatbuffers::Offset<fb::SubsegmentOffsets> constants = 0;
    if (constant_segment) {
        constants = fb::CreateSubsegmentOffsetsDirect(fbb_, *constant_segment, &constant_offsets_);
    }
    std::vector<flatbuffers::Offset<fb::NamedData>> named;
    for (const auto& [key, index] : named_) {
        named.push_back(fb::CreateNamedDataDirect(fbb_, key.c_str(), index));
    }
    auto program = fb::CreateProgramDirect(fbb_, 0, &plans_,
                                           constant_buffers.empty() ? nullptr : &constant_buffers,
                                           inline_data.empty() ? nullptr : &inline_data,
                                           segment_tables.empty() ? nullptr : &segment_tables,
                                           constants, nullptr, named.empty() ? nullptr : &named);
    fbb_.Finish(program, fb::ProgramIdentifier());
    Bytes file(fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize());
    if (segments.empty() && !force_header) return file;

    // Insert the eh00 header after byte 8 and move the root offset past it, as ExecuTorch's
    // serializer does; every other flatbuffer offset is relative and stays valid.
    constexpr size_t kHeaderLength = 32;
    Bytes header(kHeaderLength, 0);
    const uint64_t program_size = file.size() + kHeaderLength;
    const uint64_t segment_base = align_up(program_size, kSegmentAlignment);
    std::memcpy(header.data(), "eh00", 4);
    put_u32(header, 4, kHeaderLength);
    put_u64(header, 8, program_size);
    put_u64(header, 16, segment_base);
    put_u64(header, 24, segment_data_size);
    file.insert(file.begin() + 8, header.begin(), header.end());
    uint32_t root = 0;
    std::memcpy(&root, file.data(), 4);
    put_u32(file, 0, root + kHeaderLength);

    file.resize(segment_base, 0);
    for (size_t i = 0; i < segments.size(); ++i) {
        file.resize(segment_base + align_up(file.size() - segment_base, kSegmentAlignment), 0);
        file.insert(file.end(), segments[i].begin(), segments[i].end());
    }
    return file;
}

// ---------------------------------------------------------------------------------------------
// .ptd

Bytes ptd_file(const std::vector<std::pair<std::string, Bytes>>& entries) {
    namespace ft = flat_tensor_flatbuffer;
    constexpr size_t kAlignment = 128;
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<flatbuffers::Offset<ft::DataSegment>> segments;
    std::vector<flatbuffers::Offset<ft::NamedData>> named;
    Bytes data;
    for (size_t i = 0; i < entries.size(); ++i) {
        data.resize(align_up(data.size(), kAlignment), 0);
        segments.push_back(ft::CreateDataSegment(fbb, data.size(), entries[i].second.size()));
        data.insert(data.end(), entries[i].second.begin(), entries[i].second.end());
        named.push_back(
            ft::CreateNamedDataDirect(fbb, entries[i].first.c_str(), static_cast<uint32_t>(i)));
    }
    fbb.Finish(ft::CreateFlatTensorDirect(fbb, 0, &segments, &named), ft::FlatTensorIdentifier());
    Bytes file(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());

    // FH01 header (40 bytes, padded to 48) injected after byte 8, as the serializer does.
    constexpr size_t kPaddedHeader = 48;
    const uint64_t flatbuffer_size = file.size();
    const uint64_t segment_base = align_up(flatbuffer_size + kPaddedHeader, kAlignment);
    Bytes header(kPaddedHeader, 0);
    std::memcpy(header.data(), "FH01", 4);
    put_u32(header, 4, 40);
    put_u64(header, 8, kPaddedHeader);
    put_u64(header, 16, flatbuffer_size);
    put_u64(header, 24, segment_base);
    put_u64(header, 32, data.size());
    file.insert(file.begin() + 8, header.begin(), header.end());
    uint32_t root = 0;
    std::memcpy(&root, file.data(), 4);
    put_u32(file, 0, root + kPaddedHeader);
    file.resize(segment_base, 0);
    file.insert(file.end(), data.begin(), data.end());
    return file;
}

}  // namespace wgx::test
