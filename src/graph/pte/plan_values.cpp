#include "graph/pte/plan_values.h"

#include "graph/graph_check.h"
#include "graph/util/flatbuffer_check.h"
#include "graph/util/text.h"

namespace wgx::graph {

namespace fb = executorch_flatbuffer;

namespace {

class PlanValueConverter {
  public:
    PlanValueConverter(const PteFile& file, const fb::ExecutionPlan& plan,
                       const NamedDataSources& named, const std::set<int32_t>& dynamic_ints,
                       Budget& budget, Graph& graph)
        : file_(file), named_(named), dynamic_ints_(dynamic_ints), budget_(budget), graph_(graph) {
        values_ = plan.values();
        method_ = plan.name() ? plan.name()->str() : std::string();
    }

    void run() {
        if (!values_) return;
        budget_.charge(values_->size(), "values");
        graph_.values.reserve(values_->size());
        for (uint32_t id = 0; id < values_->size(); ++id) graph_.values.push_back(convert(id));
    }

  private:
    [[noreturn]] void error(const std::string& what) const {
        fail(file_.name(), cat("method '", method_, "': ", what));
    }

    int64_t count() const { return values_->size(); }

    const fb::EValue& evalue(int64_t id, const std::string& what) const {
        if (id < 0 || id >= count()) {
            error(cat(what, " refers to value ", id, " but the plan has ", count(), " values"));
        }
        return *values_->Get(static_cast<uint32_t>(id));
    }

    template <typename T, typename Items>
    std::vector<T> copy_items(const Items* items) {
        if (!items) return {};
        budget_.charge(items->size(), "list items");
        return copy_scalars<T>(items);
    }

    Value convert(uint32_t id) {
        const fb::EValue& value = *values_->Get(id);
        switch (value.val_type()) {
            case fb::KernelTypes::NONE: error(cat("value ", id, " has no type"));
            case fb::KernelTypes::Null: return Null{};
            case fb::KernelTypes::Int:
                if (auto* v = value.val_as_Int()) {
                    if (dynamic_ints_.count(static_cast<int32_t>(id))) return SymInt{v->int_val()};
                    return Int{v->int_val()};
                }
                break;
            case fb::KernelTypes::Bool:
                if (auto* v = value.val_as_Bool()) return Bool{v->bool_val()};
                break;
            case fb::KernelTypes::Double:
                if (auto* v = value.val_as_Double()) return Double{v->double_val()};
                break;
            case fb::KernelTypes::String:
                if (auto* v = value.val_as_String()) {
                    if (!v->string_val()) return String{};
                    budget_.charge(v->string_val()->size(), "strings");
                    return String{v->string_val()->str()};
                }
                break;
            case fb::KernelTypes::IntList:
                if (auto* v = value.val_as_IntList()) return int_list(v->items(), id);
                break;
            case fb::KernelTypes::DoubleList:
                if (auto* v = value.val_as_DoubleList()) {
                    return DoubleList{copy_items<double>(v->items())};
                }
                break;
            case fb::KernelTypes::BoolList:
                if (auto* v = value.val_as_BoolList()) {
                    BoolList list;
                    for (uint8_t item : copy_items<uint8_t>(v->items())) {
                        list.items.push_back(item != 0);
                    }
                    return list;
                }
                break;
            case fb::KernelTypes::TensorList:
                if (auto* v = value.val_as_TensorList()) return id_list(v->items(), id, false);
                break;
            case fb::KernelTypes::OptionalTensorList:
                if (auto* v = value.val_as_OptionalTensorList())
                    return id_list(v->items(), id, true);
                break;
            case fb::KernelTypes::Tensor:
                if (auto* v = value.val_as_Tensor()) return tensor(*v, id);
                break;
            default:
                error(cat("value ", id, " has unknown type tag ",
                          static_cast<int>(value.val_type())));
        }
        error(cat("value ", id, " is a ", fb::EnumNameKernelTypes(value.val_type()),
                  " without a body"));
    }

    // ExecuTorch boxes list elements: IntList items are ids of Int values, so that a list can
    // hold symbolic sizes computed at run time.
    Value int_list(const flatbuffers::Vector<int64_t>* items, uint32_t id) {
        const std::vector<int64_t> ids = copy_items<int64_t>(items);
        IntList constant;
        ValueList dynamic;
        bool is_dynamic = false;
        for (size_t i = 0; i < ids.size(); ++i) {
            const std::string what = cat("int list ", id, " item ", i);
            const fb::EValue& item = evalue(ids[i], what);
            const fb::Int* int_value = item.val_as_Int();
            if (!int_value) {
                error(cat(what, " refers to value ", ids[i], " of type ",
                          fb::EnumNameKernelTypes(item.val_type()), ", expected Int"));
            }
            constant.items.push_back(int_value->int_val());
            dynamic.items.push_back(static_cast<int32_t>(ids[i]));
            if (dynamic_ints_.count(static_cast<int32_t>(ids[i]))) is_dynamic = true;
        }
        if (is_dynamic) return dynamic;
        return constant;
    }

    Value id_list(const flatbuffers::Vector<int32_t>* items, uint32_t id, bool optional) {
        ValueList list{copy_items<int32_t>(items)};
        for (size_t i = 0; i < list.items.size(); ++i) {
            if (optional && list.items[i] == -1) continue;
            const std::string what =
                cat(optional ? "optional " : "", "tensor list ", id, " item ", i);
            const fb::EValue& item = evalue(list.items[i], what);
            const bool ok = item.val_type() == fb::KernelTypes::Tensor ||
                            (optional && item.val_type() == fb::KernelTypes::Null);
            if (!ok) {
                error(cat(what, " refers to value ", list.items[i], " of type ",
                          fb::EnumNameKernelTypes(item.val_type()), ", expected Tensor"));
            }
        }
        return list;
    }

    DType dtype_of(fb::ScalarType type, const std::string& what) const {
        switch (type) {
            case fb::ScalarType::BYTE: return DType::u8;
            case fb::ScalarType::CHAR: return DType::i8;
            case fb::ScalarType::INT: return DType::i32;
            case fb::ScalarType::LONG: return DType::i64;
            case fb::ScalarType::HALF: return DType::f16;
            case fb::ScalarType::FLOAT: return DType::f32;
            case fb::ScalarType::DOUBLE: return DType::f64;
            case fb::ScalarType::BOOL: return DType::boolean;
            default: break;
        }
        const char* name = fb::EnumNameScalarType(type);
        error(cat(what, " has scalar type ", (name && *name) ? name : "(unknown)", " (",
                  static_cast<int>(type),
                  "), which wgx does not support (supported: BYTE, CHAR, "
                  "INT, LONG, HALF, FLOAT, DOUBLE, BOOL)"));
    }

    Tensor tensor(const fb::Tensor& source, uint32_t id) {
        const fb::ExtraTensorInfo* extra = source.extra_tensor_info();
        Tensor tensor;
        if (extra && extra->fully_qualified_name()) {
            budget_.charge(extra->fully_qualified_name()->size(), "strings");
            tensor.name = extra->fully_qualified_name()->str();
        }
        const std::string what = tensor.name.empty()
                                     ? cat("tensor value ", id)
                                     : cat("tensor value ", id, " ('", tensor.name, "')");

        tensor.dtype = dtype_of(source.scalar_type(), what);
        for (int32_t dim : copy_items<int32_t>(source.sizes())) tensor.dims.push_back(dim);
        const uint64_t nbytes =
            checked_numel(tensor.dims, file_.name(), what) * host_size(tensor.dtype);
        if (source.storage_offset() != 0) {
            error(cat(what, " has storage offset ", source.storage_offset(),
                      " (only 0 is supported)"));
        }
        check_dim_order(source, tensor, what);
        switch (source.shape_dynamism()) {
            case fb::TensorShapeDynamism::STATIC: break;
            case fb::TensorShapeDynamism::DYNAMIC_BOUND: tensor.dynamic_bound = true; break;
            default:
                error(cat(what, " has unbounded dynamic shape (shape_dynamism ",
                          static_cast<int>(source.shape_dynamism()),
                          "); only static and upper-bounded shapes are supported"));
        }

        const bool external = extra && extra->location() == fb::TensorDataLocation::EXTERNAL;
        if (external) {
            if (tensor.name.empty())
                error(cat(what, " has EXTERNAL data but no fully qualified name"));
            tensor.constant_id =
                add_constant(external_bytes(tensor.name, nbytes, what), tensor.name);
        } else if (source.data_buffer_idx() > 0) {
            const std::string key =
                tensor.name.empty() ? cat("constant ", source.data_buffer_idx()) : tensor.name;
            if (source.allocation_info()) {
                // A mutable tensor with an initial value (e.g. a KV cache). The Graph has no
                // notion of mutable state, so it reads as a constant holding that value.
                const uint64_t list = extra ? extra->mutable_data_segments_idx() : 0;
                tensor.constant_id = add_constant(
                    file_.mutable_data(list, source.data_buffer_idx(), nbytes, what), key);
            } else {
                tensor.constant_id =
                    add_constant(file_.constant(source.data_buffer_idx(), nbytes, what), key);
            }
        }
        return tensor;
    }

    void check_dim_order(const fb::Tensor& source, const Tensor& tensor, const std::string& what) {
        const auto* order = source.dim_order();
        if (!order || order->size() == 0) return;
        std::vector<int> dims(order->begin(), order->end());
        bool contiguous = dims.size() == tensor.dims.size();
        for (size_t i = 0; contiguous && i < dims.size(); ++i) {
            contiguous = dims[i] == static_cast<int>(i);
        }
        if (!contiguous) {
            error(cat(what, " has dim order ", list_text(dims), " for shape ",
                      list_text(tensor.dims),
                      "; only contiguous tensors (dim order 0, 1, 2, ...) are supported for now"));
        }
    }

    std::span<const uint8_t> external_bytes(const std::string& key, uint64_t nbytes,
                                            const std::string& what) const {
        auto bytes = named_.find(key);
        if (!bytes) {
            error(cat(what, " has EXTERNAL data under key '", key, "', not found in the ",
                      named_.describe()));
        }
        if (bytes->size() != nbytes) {
            error(cat(what, " needs ", nbytes, " bytes but external data '", key, "' has ",
                      bytes->size()));
        }
        return *bytes;
    }

    int32_t add_constant(std::span<const uint8_t> bytes, const std::string& key) {
        graph_.constants.push_back({bytes, key});
        return static_cast<int32_t>(graph_.constants.size() - 1);
    }

    const PteFile& file_;
    const NamedDataSources& named_;
    const std::set<int32_t>& dynamic_ints_;
    Budget& budget_;
    Graph& graph_;
    const flatbuffers::Vector<flatbuffers::Offset<fb::EValue>>* values_ = nullptr;
    std::string method_;
};

}  // namespace

void convert_plan_values(const PteFile& file, const fb::ExecutionPlan& plan,
                         const NamedDataSources& named, const std::set<int32_t>& dynamic_ints,
                         Budget& budget, Graph& graph) {
    PlanValueConverter(file, plan, named, dynamic_ints, budget, graph).run();
}

}  // namespace wgx::graph
