#include "graph/vkgraph/vkgraph_reader.h"

#include <limits>

#include "graph/graph_check.h"
#include "graph/util/budget.h"
#include "graph/util/bytes.h"
#include "graph/util/checked.h"
#include "graph/util/flatbuffer_check.h"
#include "graph/util/text.h"
#include "graph/vkgraph/vh00_header.h"
#include "vkgraph_generated.h"

namespace wgx::graph {

namespace vk = vkgraph;

namespace {

class VkGraphReader {
  public:
    VkGraphReader(const vk::VkGraph& root, std::span<const uint8_t> constant_area,
                  const NamedDataSources& named, std::string_view file, std::string where,
                  uint64_t input_size)
        : root_(root),
          constant_area_(constant_area),
          named_(named),
          file_(file),
          where_(std::move(where)),
          budget_(std::string(file), input_size) {}

    Graph read() {
        read_constants();
        read_values();
        read_chain();
        graph_.input_ids = read_ids(root_.input_ids(), "input id");
        graph_.output_ids = read_ids(root_.output_ids(), "output id");
        graph_.origin = cat(file_, ": ", where_);
        return std::move(graph_);
    }

  private:
    [[noreturn]] void error(const std::string& what) const { fail(file_, cat(where_, ": ", what)); }

    int32_t value_count() const {
        return root_.values() ? static_cast<int32_t>(root_.values()->size()) : 0;
    }

    void check_value_id(int64_t id, const std::string& what) const {
        if (id < 0 || id >= value_count()) {
            error(cat(what, " refers to value ", id, " but the VkGraph has ", value_count(),
                      " values"));
        }
    }

    void read_constants() {
        const auto* constants = root_.constants();
        if (!constants) return;
        budget_.charge(constants->size(), "constants");
        for (uint32_t i = 0; i < constants->size(); ++i) {
            const vk::VkBytes* entry = constants->Get(i);
            if (entry->offset() == std::numeric_limits<uint64_t>::max()) {
                graph_.constants.push_back(named_constant(*entry, i));
                continue;
            }
            if (!range_fits(entry->offset(), entry->length(), constant_area_.size())) {
                error(cat("constant ", i, " [offset ", entry->offset(), ", length ",
                          entry->length(), "] lies outside the payload's constant area of ",
                          constant_area_.size(), " bytes"));
            }
            graph_.constants.push_back(
                {constant_area_.subspan(static_cast<size_t>(entry->offset()),
                                        static_cast<size_t>(entry->length())),
                 cat("inline@", entry->offset())});
        }
    }

    Constant named_constant(const vk::VkBytes& entry, uint32_t index) const {
        if (!entry.named_key() || entry.named_key()->size() == 0) {
            error(cat("constant ", index,
                      " is stored as named data (offset UINT64_MAX) but has "
                      "no named key"));
        }
        const std::string key = entry.named_key()->str();
        auto bytes = named_.find(key);
        if (!bytes) {
            error(cat("constant ", index, " needs named data key '", key, "', not found in the ",
                      named_.describe()));
        }
        if (bytes->size() < entry.length()) {
            error(cat("constant ", index, " ('", key, "') has length ", entry.length(),
                      " but its named data holds only ", bytes->size(), " bytes"));
        }
        return {bytes->first(static_cast<size_t>(entry.length())), key};
    }

    void read_values() {
        const auto* values = root_.values();
        if (!values) return;
        budget_.charge(values->size(), "values");
        graph_.values.reserve(values->size());
        for (uint32_t id = 0; id < values->size(); ++id) {
            graph_.values.push_back(read_value(*values->Get(id), id));
        }
    }

    template <typename T, typename Items>
    std::vector<T> copy_items(const Items* items, const char* what) {
        if (!items) return {};
        budget_.charge(items->size(), what);
        return copy_scalars<T>(items);
    }

    Value read_value(const vk::VkValue& value, uint32_t id) {
        switch (value.value_type()) {
            case vk::GraphTypes::NONE: error(cat("value ", id, " has no type"));
            case vk::GraphTypes::Null: return Null{};
            case vk::GraphTypes::Int:
                if (auto* v = value.value_as_Int()) return Int{v->int_val()};
                break;
            case vk::GraphTypes::Double:
                if (auto* v = value.value_as_Double()) return Double{v->double_val()};
                break;
            case vk::GraphTypes::Bool:
                if (auto* v = value.value_as_Bool()) return Bool{v->bool_val()};
                break;
            case vk::GraphTypes::String:
                if (auto* v = value.value_as_String()) {
                    const auto* text = v->string_val();
                    if (!text) return String{};
                    budget_.charge(text->size(), "strings");
                    return String{text->str()};
                }
                break;
            case vk::GraphTypes::SymInt:
                if (auto* v = value.value_as_SymInt()) return SymInt{v->value()};
                break;
            case vk::GraphTypes::IntList:
                if (auto* v = value.value_as_IntList()) {
                    return IntList{copy_items<int64_t>(v->items(), "list items")};
                }
                break;
            case vk::GraphTypes::DoubleList:
                if (auto* v = value.value_as_DoubleList()) {
                    return DoubleList{copy_items<double>(v->items(), "list items")};
                }
                break;
            case vk::GraphTypes::BoolList:
                if (auto* v = value.value_as_BoolList()) {
                    BoolList list;
                    for (uint8_t item : copy_items<uint8_t>(v->items(), "list items")) {
                        list.items.push_back(item != 0);
                    }
                    return list;
                }
                break;
            case vk::GraphTypes::ValueList:
                if (auto* v = value.value_as_ValueList()) {
                    ValueList list{copy_items<int32_t>(v->items(), "list items")};
                    for (size_t i = 0; i < list.items.size(); ++i) {
                        check_value_id(list.items[i], cat("value list ", id, " item ", i));
                    }
                    return list;
                }
                break;
            case vk::GraphTypes::VkTensor:
                if (auto* v = value.value_as_VkTensor()) return read_tensor(*v, id);
                break;
            default:
                error(cat("value ", id, " has unknown type tag ",
                          static_cast<int>(value.value_type())));
        }
        error(cat("value ", id, " is a ", vk::EnumNameGraphTypes(value.value_type()),
                  " without a body"));
    }

    DType dtype_of(vk::VkDataType type, uint32_t id) const {
        switch (type) {
            case vk::VkDataType::BOOL: return DType::boolean;
            case vk::VkDataType::UINT8: return DType::u8;
            case vk::VkDataType::INT8: return DType::i8;
            case vk::VkDataType::INT32: return DType::i32;
            case vk::VkDataType::FLOAT16: return DType::f16;
            case vk::VkDataType::FLOAT32: return DType::f32;
            case vk::VkDataType::FLOAT64: return DType::f64;
            case vk::VkDataType::INT64: return DType::i64;
            case vk::VkDataType::UNSET: break;
        }
        error(cat("tensor value ", id, " has data type ", static_cast<int>(type),
                  type == vk::VkDataType::UNSET ? " (UNSET)" : " (unknown)",
                  "; expected BOOL, UINT8, INT8, INT32, FLOAT16, FLOAT32, FLOAT64 or INT64"));
    }

    Tensor read_tensor(const vk::VkTensor& source, uint32_t id) {
        Tensor tensor;
        tensor.dtype = dtype_of(source.datatype(), id);
        for (uint32_t dim : copy_items<uint32_t>(source.dims(), "dims")) {
            tensor.dims.push_back(dim);
        }
        checked_numel(tensor.dims, file_, cat(where_, ": tensor value ", id));
        // Negative ids mean "none"; the schema default (0) is a real id, so no special case.
        if (source.constant_id() >= 0) {
            if (static_cast<size_t>(source.constant_id()) >= graph_.constants.size()) {
                error(cat("tensor value ", id, " refers to constant ", source.constant_id(),
                          " but the VkGraph has ", graph_.constants.size(), " constants"));
            }
            tensor.constant_id = source.constant_id();
        }
        tensor.mem_obj_id = source.mem_obj_id() >= 0 ? source.mem_obj_id() : -1;
        return tensor;
    }

    void read_chain() {
        const auto* chain = root_.chain();
        if (!chain) return;
        budget_.charge(chain->size(), "ops");
        for (uint32_t index = 0; index < chain->size(); ++index) {
            const vk::OperatorCall* call = chain->Get(index);
            if (!call->name()) error(cat("op ", index, " has no name"));
            OpCall op;
            op.name = call->name()->str();
            budget_.charge(op.name.size(), "op names");
            op.args = copy_items<int32_t>(call->args(), "op arguments");
            op.debug_handle = call->node_id();
            for (size_t i = 0; i < op.args.size(); ++i) {
                check_value_id(op.args[i], cat("op ", index, " (", op.name, ") argument ", i));
            }
            graph_.chain.push_back(std::move(op));
        }
    }

    std::vector<int32_t> read_ids(const flatbuffers::Vector<uint32_t>* ids, const char* what) {
        std::vector<int32_t> result;
        if (!ids) return result;
        budget_.charge(ids->size(), what);
        for (uint32_t i = 0; i < ids->size(); ++i) {
            check_value_id(ids->Get(i), cat(what, " ", i));
            result.push_back(static_cast<int32_t>(ids->Get(i)));
        }
        return result;
    }

    const vk::VkGraph& root_;
    std::span<const uint8_t> constant_area_;
    const NamedDataSources& named_;
    std::string_view file_;
    std::string where_;
    Budget budget_;
    Graph graph_;
};

}  // namespace

Graph read_vkgraph(std::span<const uint8_t> blob, const NamedDataSources& named,
                   std::string_view file, const std::string& where) {
    const VkHeader header = read_vk_header(blob, file, where);
    AlignedBytes flatbuffer(blob.subspan(header.flatbuffer_offset, header.flatbuffer_size));
    verify_flatbuffer(
        flatbuffer.view(), [](flatbuffers::Verifier& v) { return vk::VerifyVkGraphBuffer(v); },
        file, cat(where, ": the VkGraph flatbuffer at payload offset ", header.flatbuffer_offset));
    const vk::VkGraph* root = vk::GetVkGraph(flatbuffer.view().data());
    auto constant_area = blob.subspan(header.bytes_offset, static_cast<size_t>(header.bytes_size));

    Graph graph =
        VkGraphReader(*root, constant_area, named, file, where, header.flatbuffer_size).read();
    check_graph(graph, cat(file, ": ", where));
    return graph;
}

}  // namespace wgx::graph
