#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "graph/json/program_json.h"

namespace wgx::graph {

namespace {

using Json = nlohmann::ordered_json;

// JSON has no infinities or NaN; the typed format spells them as strings.
Json real(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return value;
}

Json scalar(const char* kind, Json value) {
    return Json{{"type", "scalar"}, {"kind", kind}, {"value", std::move(value)}};
}

Json list(const char* kind, Json items) {
    return Json{{"type", "list"}, {"kind", kind}, {"items", std::move(items)}};
}

struct WeightsRegion {
    uint64_t offset = 0;
    uint64_t length = 0;
};

class ProgramJsonWriter {
  public:
    explicit ProgramJsonWriter(const Graph& graph) : graph_(graph) {}

    ProgramJson write() {
        write_constants();
        Json root;
        root["version"] = "1.1";
        root["chain"] = chain();
        root["values"] = values();
        root["inputIds"] = graph_.input_ids;
        root["outputIds"] = graph_.output_ids;
        root["memoryPlan"] = memory_plan();
        // FlatBuffers strings should be UTF-8 but a file can hold any bytes; JSON cannot, so
        // invalid sequences become U+FFFD rather than failing the conversion.
        return {root.dump(1, ' ', false, Json::error_handler_t::replace), std::move(weights_)};
    }

  private:
    // Referenced constants, back to back in constant-id order (no padding, like the seed).
    void write_constants() {
        std::vector<bool> used(graph_.constants.size(), false);
        for (const Value& value : graph_.values) {
            if (const auto* tensor = std::get_if<Tensor>(&value);
                tensor && tensor->constant_id >= 0) {
                used[static_cast<size_t>(tensor->constant_id)] = true;
            }
        }
        for (size_t id = 0; id < graph_.constants.size(); ++id) {
            if (!used[id]) continue;
            const auto bytes = graph_.constants[id].bytes;
            regions_[static_cast<int32_t>(id)] = {weights_.size(), bytes.size()};
            weights_.insert(weights_.end(), bytes.begin(), bytes.end());
        }
    }

    Json chain() const {
        Json ops = Json::array();
        for (const OpCall& op : graph_.chain) {
            Json entry{{"name", op.name}, {"args", op.args}};
            if (op.debug_handle != 0) entry["debugHandle"] = op.debug_handle;
            ops.push_back(std::move(entry));
        }
        return ops;
    }

    Json tensor(const Tensor& tensor) const {
        Json entry{{"type", "tensor"}, {"shape", tensor.dims}, {"dtype", dtype_name(tensor.dtype)}};
        if (tensor.mem_obj_id >= 0) entry["memObjId"] = tensor.mem_obj_id;
        if (tensor.constant_id >= 0) {
            const WeightsRegion region = regions_.at(tensor.constant_id);
            entry["weightsOffset"] = region.offset;
            entry["weightsLength"] = region.length;
            entry["constantKey"] = graph_.constants[static_cast<size_t>(tensor.constant_id)].key;
        }
        if (tensor.dynamic_bound) entry["dynamicBound"] = true;
        if (!tensor.name.empty()) entry["name"] = tensor.name;
        return entry;
    }

    Json values() const {
        Json result = Json::array();
        for (const Value& value : graph_.values) {
            result.push_back(std::visit([&](const auto& v) { return encode(v); }, value));
        }
        return result;
    }

    Json encode(const Null&) const { return Json{{"type", "null"}}; }
    Json encode(const Int& v) const { return scalar("int", v.value); }
    Json encode(const SymInt& v) const { return scalar("symint", v.value); }
    Json encode(const Double& v) const { return scalar("double", real(v.value)); }
    Json encode(const Bool& v) const { return scalar("bool", v.value); }
    Json encode(const String& v) const { return scalar("string", v.value); }
    Json encode(const IntList& v) const { return list("int_list", v.items); }
    Json encode(const BoolList& v) const {
        Json items = Json::array();
        for (bool item : v.items) items.push_back(item);
        return list("bool_list", std::move(items));
    }
    Json encode(const DoubleList& v) const {
        Json items = Json::array();
        for (double item : v.items) items.push_back(real(item));
        return list("double_list", std::move(items));
    }
    Json encode(const ValueList& v) const { return list("value_list", v.items); }
    Json encode(const Tensor& v) const { return tensor(v); }

    // Pool sizes in device bytes (int64 stored as int32, float64 as float32), as the GPU needs.
    Json memory_plan() const {
        std::map<int32_t, uint64_t> sizes;
        for (const Value& value : graph_.values) {
            const auto* t = std::get_if<Tensor>(&value);
            if (!t || t->mem_obj_id < 0 || t->constant_id >= 0) continue;
            uint64_t numel = 1;
            for (int64_t dim : t->dims) numel *= static_cast<uint64_t>(dim);
            uint64_t& size = sizes[t->mem_obj_id];
            size = std::max(size, numel * device_size(t->dtype));
        }
        Json pools = Json::array();
        for (const auto& [id, size] : sizes) pools.push_back(Json{{"id", id}, {"size", size}});
        return Json{{"pools", std::move(pools)}};
    }

    const Graph& graph_;
    std::vector<uint8_t> weights_;
    std::map<int32_t, WeightsRegion> regions_;
};

}  // namespace

ProgramJson write_program_json(const Graph& graph) { return ProgramJsonWriter(graph).write(); }

}  // namespace wgx::graph
