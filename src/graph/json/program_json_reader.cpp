#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "graph/graph_check.h"
#include "graph/json/program_json.h"
#include "graph/util/checked.h"
#include "graph/util/text.h"

namespace wgx::graph {

namespace {

using Json = nlohmann::json;

class ProgramJsonReader {
  public:
    ProgramJsonReader(const Json& root, SharedBytes weights, std::string_view json_name,
                      std::string_view weights_name)
        : root_(root),
          weights_(std::move(weights)),
          file_(json_name),
          weights_name_(weights_name) {}

    Graph read() {
        if (!root_.is_object()) error("the top level is not a JSON object");
        read_version();
        const Json& values = member(root_, "values", "values", "the program");
        if (!values.is_array()) error("'values' is not an array");
        if (values.size() > kMaxValues) {
            error(cat("has ", values.size(), " values, more than the limit of ", kMaxValues));
        }
        for (size_t id = 0; id < values.size(); ++id) {
            graph_.values.push_back(read_value(values[id], id));
        }
        number_constants();
        if (const Json* chain = find(root_, "chain", "chain")) read_chain(*chain);
        graph_.input_ids =
            read_ids(member(root_, "inputIds", "input_ids", "the program"), "inputIds");
        graph_.output_ids =
            read_ids(member(root_, "outputIds", "output_ids", "the program"), "outputIds");
        if (const Json* plan = find(root_, "memoryPlan", "memory_plan")) check_pools(*plan);
        if (weights_) graph_.storage.push_back(weights_);
        graph_.origin = file_;
        check_graph(graph_, file_);
        return std::move(graph_);
    }

  private:
    [[noreturn]] void error(const std::string& what) const { fail(file_, what); }

    static const Json* find(const Json& object, const char* camel, const char* snake) {
        if (!object.is_object()) return nullptr;
        auto it = object.find(camel);
        if (it == object.end()) it = object.find(snake);
        return it == object.end() ? nullptr : &*it;
    }

    const Json& member(const Json& object, const char* camel, const char* snake,
                       const std::string& where) const {
        const Json* found = find(object, camel, snake);
        if (!found) error(cat(where, " has no '", camel, "'"));
        return *found;
    }

    void read_version() {
        const Json* version = find(root_, "version", "version");
        if (!version || !version->is_string()) error("missing or non-string 'version'");
        const std::string text = version->get<std::string>();
        if (text != "1" && text != "1.1") {
            error(cat("unsupported version '", text, "' (supported: \"1\", \"1.1\")"));
        }
    }

    int64_t integer(const Json& number, const std::string& what) const {
        if (number.is_number_integer() && !number.is_number_unsigned())
            return number.get<int64_t>();
        if (number.is_number_unsigned()) {
            const uint64_t value = number.get<uint64_t>();
            if (value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
                return static_cast<int64_t>(value);
            }
            error(cat(what, " is ", value, ", larger than a signed 64-bit integer"));
        }
        error(cat(what, " must be an integer, got ", number.dump()));
    }

    int32_t id_value(const Json& number, const std::string& what) const {
        const int64_t value = integer(number, what);
        if (value < -1 || value > std::numeric_limits<int32_t>::max()) {
            error(cat(what, " is ", value, ", not a value id"));
        }
        return static_cast<int32_t>(value);
    }

    // Doubles: JSON numbers, or "inf" / "-inf" / "nan" for what JSON cannot spell.
    double real(const Json& item, const std::string& what) const {
        if (item.is_number()) return item.get<double>();
        if (item.is_string()) {
            const std::string text = item.get<std::string>();
            if (text == "inf" || text == "Infinity") return std::numeric_limits<double>::infinity();
            if (text == "-inf" || text == "-Infinity")
                return -std::numeric_limits<double>::infinity();
            if (text == "nan" || text == "NaN") return std::numeric_limits<double>::quiet_NaN();
        }
        error(cat(what, " must be a number or \"inf\", \"-inf\", \"nan\", got ", item.dump()));
    }

    bool boolean(const Json& item, const std::string& what) const {
        if (!item.is_boolean()) error(cat(what, " must be true or false, got ", item.dump()));
        return item.get<bool>();
    }

    const Json& items_of(const Json& value, const std::string& what) const {
        const Json& items = member(value, "items", "items", what);
        if (!items.is_array()) error(cat(what, " 'items' is not an array"));
        return items;
    }

    const Json& scalar_of(const Json& value, const std::string& what) const {
        return member(value, "value", "value", what);
    }

    Value read_value(const Json& value, size_t id) {
        const std::string what = cat("value ", id);
        if (!value.is_object()) error(cat(what, " is not an object"));
        if (const Json* kind = find(value, "kind", "kind")) {
            if (!kind->is_string()) error(cat(what, " has a non-string 'kind'"));
            return read_typed(value, kind->get<std::string>(), what);
        }
        const Json* type = find(value, "type", "type");
        if (!type || !type->is_string()) error(cat(what, " has no string 'type'"));
        const std::string name = type->get<std::string>();
        if (name == "tensor") return read_tensor(value, what);
        if (name == "null") return Null{};
        if (name == "scalar") return untyped_scalar(scalar_of(value, what), what);
        if (name == "list") return untyped_list(items_of(value, what), what);
        error(cat(what, " has unknown type '", name, "' (expected tensor, scalar, list, null)"));
    }

    // Version 1 rules: JSON true/false -> Bool; a number written without fraction or exponent
    // -> Int; any other number -> Double; a string -> String.
    Value untyped_scalar(const Json& scalar, const std::string& what) const {
        if (scalar.is_boolean()) return Bool{scalar.get<bool>()};
        if (scalar.is_number_integer()) return Int{integer(scalar, what)};
        if (scalar.is_number_float()) return Double{scalar.get<double>()};
        if (scalar.is_string()) return String{scalar.get<std::string>()};
        error(cat(what, " has a scalar that is not a number, bool or string: ", scalar.dump()));
    }

    // Version 1 lists: all bools -> BoolList; all integers (or empty) -> IntList; numbers with
    // at least one non-integer -> DoubleList.
    Value untyped_list(const Json& items, const std::string& what) const {
        bool all_bool = !items.empty(), all_int = true, all_number = true;
        for (const Json& item : items) {
            all_bool = all_bool && item.is_boolean();
            all_int = all_int && item.is_number_integer();
            all_number = all_number && item.is_number();
        }
        if (all_bool) {
            BoolList list;
            for (const Json& item : items) list.items.push_back(item.get<bool>());
            return list;
        }
        if (all_int) {
            IntList list;
            for (size_t i = 0; i < items.size(); ++i) {
                list.items.push_back(integer(items[i], cat(what, " item ", i)));
            }
            return list;
        }
        if (all_number) {
            DoubleList list;
            for (const Json& item : items) list.items.push_back(item.get<double>());
            return list;
        }
        error(cat(what, " is a list mixing numbers, bools or other items: ", items.dump()));
    }

    Value read_typed(const Json& value, const std::string& kind, const std::string& what) {
        if (kind == "tensor") return read_tensor(value, what);
        if (kind == "null") return Null{};
        if (kind == "int") return Int{integer(scalar_of(value, what), what)};
        if (kind == "symint") return SymInt{integer(scalar_of(value, what), what)};
        if (kind == "double") return Double{real(scalar_of(value, what), what)};
        if (kind == "bool") return Bool{boolean(scalar_of(value, what), what)};
        if (kind == "string") {
            const Json& text = scalar_of(value, what);
            if (!text.is_string()) error(cat(what, " (string) has a non-string value"));
            return String{text.get<std::string>()};
        }
        if (kind == "int_list" || kind == "double_list" || kind == "bool_list" ||
            kind == "value_list") {
            const Json& items = items_of(value, what);
            if (kind == "int_list") {
                IntList list;
                for (size_t i = 0; i < items.size(); ++i) {
                    list.items.push_back(integer(items[i], cat(what, " item ", i)));
                }
                return list;
            }
            if (kind == "double_list") {
                DoubleList list;
                for (size_t i = 0; i < items.size(); ++i) {
                    list.items.push_back(real(items[i], cat(what, " item ", i)));
                }
                return list;
            }
            if (kind == "bool_list") {
                BoolList list;
                for (size_t i = 0; i < items.size(); ++i) {
                    list.items.push_back(boolean(items[i], cat(what, " item ", i)));
                }
                return list;
            }
            ValueList list;
            for (size_t i = 0; i < items.size(); ++i) {
                list.items.push_back(id_value(items[i], cat(what, " item ", i)));
            }
            return list;
        }
        error(cat(what, " has unknown kind '", kind, "'"));
    }

    Value read_tensor(const Json& value, const std::string& what) {
        Tensor tensor;
        const Json& dtype = member(value, "dtype", "dtype", what);
        if (!dtype.is_string()) error(cat(what, " has a non-string dtype"));
        const auto parsed = parse_dtype(dtype.get<std::string>());
        if (!parsed) error(cat(what, " has unknown dtype '", dtype.get<std::string>(), "'"));
        tensor.dtype = *parsed;

        const Json& shape = member(value, "shape", "shape", what);
        if (!shape.is_array()) error(cat(what, " shape is not an array"));
        for (size_t i = 0; i < shape.size(); ++i) {
            tensor.dims.push_back(integer(shape[i], cat(what, " shape[", i, "]")));
        }
        const uint64_t nbytes = checked_numel(tensor.dims, file_, what) * host_size(tensor.dtype);

        if (const Json* pool = find(value, "memObjId", "mem_obj_id")) {
            const int64_t id = integer(*pool, cat(what, " memObjId"));
            if (id < -1 || id > kMaxPoolId) {
                error(cat(what, " has memObjId ", id, " (expected -1 .. ", kMaxPoolId, ")"));
            }
            tensor.mem_obj_id = static_cast<int32_t>(id);
        }
        if (const Json* flag = find(value, "dynamicBound", "dynamic_bound")) {
            tensor.dynamic_bound = boolean(*flag, cat(what, " dynamicBound"));
        }
        if (const Json* name = find(value, "name", "name")) {
            if (!name->is_string()) error(cat(what, " has a non-string name"));
            tensor.name = name->get<std::string>();
        }
        const Json* offset = find(value, "weightsOffset", "weights_offset");
        const Json* length = find(value, "weightsLength", "weights_length");
        if (!offset && !length) return tensor;
        if (!offset || !length)
            error(cat(what, " has only one of weightsOffset and weightsLength"));
        read_constant_ref(tensor, integer(*offset, what + " weightsOffset"),
                          integer(*length, what + " weightsLength"), nbytes, value, what);
        return tensor;
    }

    void read_constant_ref(Tensor& tensor, int64_t offset, int64_t length, uint64_t nbytes,
                           const Json& value, const std::string& what) {
        const uint64_t weights_size = weights_ ? weights_->size() : 0;
        if (offset < 0 || length < 0 ||
            !range_fits(static_cast<uint64_t>(offset), static_cast<uint64_t>(length),
                        weights_size)) {
            error(cat(what, " weights [offset ", offset, ", length ", length, "] lie outside ",
                      weights_name_, " (", weights_size, " bytes)"));
        }
        if (static_cast<uint64_t>(length) != nbytes) {
            error(cat(what, " (", dtype_name(tensor.dtype), " ", list_text(tensor.dims), ") needs ",
                      nbytes, " bytes but weightsLength is ", length));
        }
        std::string key = cat(weights_name_, "@", offset);
        if (const Json* named = find(value, "constantKey", "constant_key")) {
            if (!named->is_string()) error(cat(what, " has a non-string constantKey"));
            key = named->get<std::string>();
        }
        // Constant ids are numbered after all values are read (number_constants).
        const ConstantRef ref{static_cast<uint64_t>(offset), static_cast<uint64_t>(length), key};
        pending_.emplace_back(static_cast<size_t>(graph_.values.size()), ref);
        tensor.constant_id = 0;
    }

    // Constants get ids in (offset, length, key) order, one per distinct region, so a graph
    // written by write_program_json (constants back to back in id order) reads back unchanged.
    void number_constants() {
        std::map<ConstantRef, int32_t> ids;
        for (const auto& entry : pending_) ids.emplace(entry.second, 0);
        int32_t next = 0;
        for (auto& [ref, id] : ids) {
            id = next++;
            std::span<const uint8_t> all;
            if (weights_) all = std::span<const uint8_t>(*weights_);
            const auto bytes = all.subspan(static_cast<size_t>(std::get<0>(ref)),
                                           static_cast<size_t>(std::get<1>(ref)));
            graph_.constants.push_back({bytes, std::get<2>(ref)});
        }
        for (const auto& [value_id, ref] : pending_) {
            std::get<Tensor>(graph_.values[value_id]).constant_id = ids.at(ref);
        }
    }

    void read_chain(const Json& chain) {
        if (!chain.is_array()) error("'chain' is not an array");
        for (size_t index = 0; index < chain.size(); ++index) {
            const Json& entry = chain[index];
            const std::string what = cat("op ", index);
            const Json& name = member(entry, "name", "name", what);
            if (!name.is_string()) error(cat(what, " has a non-string name"));
            OpCall op;
            op.name = name.get<std::string>();
            const Json& args = member(entry, "args", "args", what);
            if (!args.is_array()) error(cat(what, " (", op.name, ") args is not an array"));
            for (size_t i = 0; i < args.size(); ++i) {
                op.args.push_back(id_value(args[i], cat(what, " (", op.name, ") argument ", i)));
            }
            if (const Json* handle = find(entry, "debugHandle", "debug_handle")) {
                const int64_t value = integer(*handle, what + " debugHandle");
                if (value < 0 || value > std::numeric_limits<uint32_t>::max()) {
                    error(cat(what, " debugHandle ", value, " is not a 32-bit unsigned integer"));
                }
                op.debug_handle = static_cast<uint32_t>(value);
            }
            graph_.chain.push_back(std::move(op));
        }
    }

    std::vector<int32_t> read_ids(const Json& ids, const char* what) const {
        if (!ids.is_array()) error(cat("'", what, "' is not an array"));
        std::vector<int32_t> result;
        for (size_t i = 0; i < ids.size(); ++i) {
            result.push_back(id_value(ids[i], cat(what, "[", i, "]")));
        }
        return result;
    }

    // The memory plan is derived data; check it agrees with the tensors instead of trusting it.
    void check_pools(const Json& plan) const {
        const Json& pools = member(plan, "pools", "pools", "memoryPlan");
        if (!pools.is_array()) error("memoryPlan.pools is not an array");
        std::map<int64_t, uint64_t> sizes;
        for (size_t i = 0; i < pools.size(); ++i) {
            const std::string what = cat("memoryPlan.pools[", i, "]");
            const int64_t id = integer(member(pools[i], "id", "id", what), what + ".id");
            const int64_t size = integer(member(pools[i], "size", "size", what), what + ".size");
            if (size < 0) error(cat(what, " has negative size ", size));
            sizes[id] = static_cast<uint64_t>(size);
        }
        for (size_t id = 0; id < graph_.values.size(); ++id) {
            const auto* tensor = std::get_if<Tensor>(&graph_.values[id]);
            if (!tensor || tensor->mem_obj_id < 0 || tensor->constant_id >= 0) continue;
            auto it = sizes.find(tensor->mem_obj_id);
            if (it == sizes.end()) {
                error(cat("tensor value ", id, " uses memory pool ", tensor->mem_obj_id,
                          ", which memoryPlan.pools does not list"));
            }
            uint64_t numel = checked_numel(tensor->dims, file_, cat("tensor value ", id));
            const uint64_t needed = numel * device_size(tensor->dtype);
            if (it->second < needed) {
                error(cat("memory pool ", it->first, " has size ", it->second, " but tensor value ",
                          id, " in it needs ", needed, " bytes"));
            }
        }
    }

    using ConstantRef = std::tuple<uint64_t, uint64_t, std::string>;

    const Json& root_;
    SharedBytes weights_;
    std::string file_;
    std::string weights_name_;
    Graph graph_;
    std::vector<std::pair<size_t, ConstantRef>> pending_;
};

}  // namespace

Graph read_program_json(std::string_view json_text, SharedBytes weights, std::string_view json_name,
                        std::string_view weights_name) {
    Json root;
    try {
        root = Json::parse(json_text.begin(), json_text.end());
    } catch (const Json::exception& e) {
        fail(json_name, cat("is not valid JSON: ", e.what()));
    }
    return ProgramJsonReader(root, std::move(weights), json_name, weights_name).read();
}

}  // namespace wgx::graph
