#include "graph/run_sizes.h"

#include <fmt/format.h>

#include "graph/graph_check.h"
#include "graph/schema/size_rules.h"
#include "wgx/error.h"

namespace wgx::graph {

namespace {

int64_t numel_of(const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

std::string dims_text(const std::vector<int64_t>& dims) {
    return fmt::format("[{}]", fmt::join(dims, ", "));
}

}  // namespace

int32_t SizeCall::id(size_t i) const {
    if (i >= size()) fail(fmt::format("has no argument {}.", i));
    return call().args[i];
}

bool SizeCall::is_none(size_t i) const {
    if (i >= size()) return true;
    const int32_t v = call().args[i];
    return v < 0 || std::holds_alternative<Null>(graph_.values[static_cast<size_t>(v)]);
}

bool SizeCall::is_tensor(size_t i) const {
    if (is_none(i)) return false;
    return std::holds_alternative<Tensor>(graph_.values[static_cast<size_t>(id(i))]);
}

const std::vector<int64_t>& SizeCall::dims(size_t i) const {
    if (!is_tensor(i)) fail(fmt::format("argument {} is not a tensor.", i));
    return sizes_.dims[static_cast<size_t>(id(i))];
}

const std::vector<int64_t>& SizeCall::dims_of(int32_t value_id) const {
    if (value_id < 0 || static_cast<size_t>(value_id) >= graph_.values.size() ||
        !std::holds_alternative<Tensor>(graph_.values[static_cast<size_t>(value_id)])) {
        fail(fmt::format("value {} is not a tensor.", value_id));
    }
    return sizes_.dims[static_cast<size_t>(value_id)];
}

int64_t SizeCall::integer(size_t i) const {
    const Value& v = graph_.values[static_cast<size_t>(id(i))];
    if (std::holds_alternative<Int>(v) || std::holds_alternative<SymInt>(v)) {
        return sizes_.ints[static_cast<size_t>(id(i))];
    }
    if (const auto* d = std::get_if<Double>(&v)) return static_cast<int64_t>(d->value);
    if (const auto* b = std::get_if<Bool>(&v)) return b->value ? 1 : 0;
    fail(
        fmt::format("argument {} (value {}, {}) is not an integer.", i, id(i), value_kind_name(v)));
}

std::vector<int64_t> SizeCall::int_list(size_t i) const {
    const Value& v = graph_.values[static_cast<size_t>(id(i))];
    if (const auto* list = std::get_if<IntList>(&v)) return list->items;
    if (std::holds_alternative<Int>(v) || std::holds_alternative<SymInt>(v)) return {integer(i)};
    if (const auto* list = std::get_if<ValueList>(&v)) {
        std::vector<int64_t> out;
        for (int32_t item : list->items) {
            const bool is_int = item >= 0 && static_cast<size_t>(item) < graph_.values.size() &&
                                (std::holds_alternative<Int>(graph_.values[item]) ||
                                 std::holds_alternative<SymInt>(graph_.values[item]));
            if (!is_int) fail(fmt::format("argument {} mixes integers with other values.", i));
            out.push_back(sizes_.ints[static_cast<size_t>(item)]);
        }
        return out;
    }
    fail(fmt::format("argument {} (value {}, {}) is not a list of integers.", i, id(i),
                     value_kind_name(v)));
}

std::vector<int32_t> SizeCall::tensor_ids(size_t i) const {
    const Value& v = graph_.values[static_cast<size_t>(id(i))];
    if (std::holds_alternative<Tensor>(v)) return {id(i)};
    if (const auto* list = std::get_if<ValueList>(&v)) {
        std::vector<int32_t> out;
        for (int32_t item : list->items) {
            if (item >= 0) out.push_back(item);
        }
        for (int32_t item : out) dims_of(item);  // each must be a tensor
        return out;
    }
    fail(fmt::format("argument {} (value {}) is not a tensor list.", i, id(i)));
}

std::span<const std::byte> SizeCall::host_bytes(size_t i) const {
    const int32_t v = id(i);
    if (!sizes_.host[static_cast<size_t>(v)].empty()) {
        // A rule that reads values (not one that carries them on) makes the sizes depend on them.
        const int32_t origin = sizes_.host_origin[static_cast<size_t>(v)];
        if (origin >= 0 && reads_data_for_sizes(call().name)) {
            sizes_.input_values_read[static_cast<size_t>(origin)] = true;
        }
        return sizes_.host[static_cast<size_t>(v)];
    }
    if (const auto* t = std::get_if<Tensor>(&graph_.values[static_cast<size_t>(v)])) {
        if (t->constant_id >= 0) {
            return std::as_bytes(graph_.constants[static_cast<size_t>(t->constant_id)].bytes);
        }
    }
    return {};
}

void SizeCall::set_host_bytes(size_t i, std::vector<std::byte> bytes) {
    // Made from argument 0's bytes (a view or select of it): the same input's.
    const int32_t from = call().args.empty() ? -1 : call().args[0];
    sizes_.host_origin[static_cast<size_t>(id(i))] =
        from >= 0 ? sizes_.host_origin[static_cast<size_t>(from)] : -1;
    sizes_.host[static_cast<size_t>(id(i))] = std::move(bytes);
}

void SizeCall::set_dims(size_t i, std::vector<int64_t> dims) {
    set_dims_of(id(i), std::move(dims));
}

void SizeCall::set_dims_of(int32_t value_id, std::vector<int64_t> dims) {
    dims_of(value_id);  // a tensor
    const std::vector<int64_t>& planned =
        std::get<Tensor>(graph_.values[static_cast<size_t>(value_id)]).dims;
    for (int64_t d : dims) {
        if (d < 0)
            fail(fmt::format("gives value {} the negative size {}.", value_id, dims_text(dims)));
    }
    if (numel_of(dims) > numel_of(planned)) {
        fail(
            fmt::format("gives value {} the sizes {}, more elements than the {} it was planned "
                        "with.",
                        value_id, dims_text(dims), dims_text(planned)));
    }
    sizes_.dims[static_cast<size_t>(value_id)] = std::move(dims);
}

void SizeCall::set_int(size_t i, int64_t value) {
    const Value& v = graph_.values[static_cast<size_t>(id(i))];
    if (!std::holds_alternative<SymInt>(v) && !std::holds_alternative<Int>(v)) {
        fail(fmt::format("output value {} is not an integer ({}).", id(i), value_kind_name(v)));
    }
    sizes_.ints[static_cast<size_t>(id(i))] = value;
}

void SizeCall::same_dims(size_t from, size_t to) { set_dims(to, dims(from)); }

void SizeCall::fail(const std::string& message) const {
    throw LoadError(fmt::format("{}: op {} ({}): {}", graph_.origin, index_, call().name, message));
}

std::vector<RunInput> declared_inputs(const Graph& graph) {
    std::vector<RunInput> inputs;
    for (int32_t id : graph.input_ids) {
        inputs.push_back(
            RunInput{std::get<Tensor>(graph.values[static_cast<size_t>(id)]).dims, {}});
    }
    return inputs;
}

bool sizes_depend_on_data(const Graph& graph) {
    for (const OpCall& call : graph.chain) {
        if (reads_data_for_sizes(call.name)) return true;
    }
    return false;
}

namespace {

// Every argument but the output (the last) of an op without a size rule must have the sizes
// the file gives: its outputs keep the file's sizes, which then are right.
void check_unchanged(const Graph& graph, size_t index, const RunSizes& sizes) {
    const OpCall& call = graph.chain[index];
    for (size_t a = 0; a + 1 < call.args.size(); ++a) {
        for_each_arg_value(graph, call.args[a], [&](int32_t id) {
            const auto* t = std::get_if<Tensor>(&graph.values[static_cast<size_t>(id)]);
            if (t == nullptr || sizes.dims[static_cast<size_t>(id)] == t->dims) return;
            throw LoadError(fmt::format(
                "{}: op {} ({}) has no size rule, and its input value {} has the sizes {} in "
                "this run where the file gives {}.",
                graph.origin, index, call.name, id, dims_text(sizes.dims[static_cast<size_t>(id)]),
                dims_text(t->dims)));
        });
    }
}

// Whether an op's inputs include a value whose size or value changes between runs.
bool follows_dynamic(const Graph& graph, const OpCall& call, const std::vector<bool>& dynamic) {
    bool any = reads_data_for_sizes(call.name);
    for (size_t a = 0; a + 1 < call.args.size(); ++a) {
        for_each_arg_value(graph, call.args[a],
                           [&](int32_t id) { any = any || dynamic[static_cast<size_t>(id)]; });
    }
    return any;
}

// Per value: dynamic-bound inputs, and every output of an op that follows one.
std::vector<bool> dynamic_values(const Graph& graph) {
    std::vector<bool> dynamic(graph.values.size(), false);
    for (int32_t id : graph.input_ids) {
        dynamic[static_cast<size_t>(id)] = std::get<Tensor>(graph.values[id]).dynamic_bound;
    }
    for (const OpCall& call : graph.chain) {
        if (call.args.empty() || !follows_dynamic(graph, call, dynamic)) continue;
        for_each_arg_value(graph, call.args.back(),
                           [&](int32_t id) { dynamic[static_cast<size_t>(id)] = true; });
    }
    return dynamic;
}

}  // namespace

void mark_dynamic_values(Graph& graph) {
    // Plain programs hold symbolic integers as Int values that host ops overwrite; they are
    // SymInts as much as the Vulkan delegate's (live integers, recomputed every run).
    for (const OpCall& call : graph.chain) {
        if (!is_host_op(call.name) || call.args.empty() || call.args.back() < 0) continue;
        Value& out = graph.values[static_cast<size_t>(call.args.back())];
        if (const auto* x = std::get_if<Int>(&out)) out = SymInt{x->value};
    }
    const std::vector<bool> dynamic = dynamic_values(graph);
    for (size_t id = 0; id < graph.values.size(); ++id) {
        if (auto* t = std::get_if<Tensor>(&graph.values[id]); t && dynamic[id]) {
            t->dynamic_bound = true;
        }
    }
}

RunSizes infer_run_sizes(const Graph& graph, std::span<const RunInput> inputs) {
    RunSizes sizes;
    infer_run_sizes_into(graph, inputs, sizes);
    return sizes;
}

void infer_run_sizes_into(const Graph& graph, std::span<const RunInput> inputs, RunSizes& sizes) {
    if (inputs.size() != graph.input_ids.size()) {
        throw InvalidArgument(fmt::format("{}: expected {} inputs, got {}.", graph.origin,
                                          graph.input_ids.size(), inputs.size()));
    }
    const size_t n = graph.values.size();
    if (sizes.dims.size() != n || sizes.dynamic.size() != n) {
        sizes = RunSizes{};
        sizes.dims.resize(n);
        sizes.ints.resize(n, 0);
        sizes.host.resize(n);
        sizes.dynamic = dynamic_values(graph);
    }
    sizes.host_origin.assign(n, -1);
    sizes.input_values_read.assign(inputs.size(), false);
    for (size_t id = 0; id < n; ++id) {
        const Value& v = graph.values[id];
        if (const auto* t = std::get_if<Tensor>(&v)) {
            sizes.dims[id].assign(t->dims.begin(), t->dims.end());  // keeps its capacity
        }
        if (const auto* x = std::get_if<Int>(&v)) sizes.ints[id] = x->value;
        if (const auto* x = std::get_if<SymInt>(&v)) sizes.ints[id] = x->value;
        sizes.host[id].clear();
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
        const int32_t id = graph.input_ids[k];
        const auto& t = std::get<Tensor>(graph.values[static_cast<size_t>(id)]);
        const auto& got = inputs[k].dims;
        const std::string name =
            t.name.empty() ? fmt::format("input {}", k) : fmt::format("input {} ({})", k, t.name);
        if (got.size() != t.dims.size()) {
            throw InvalidArgument(fmt::format("{}: {} has rank {}, the program expects {} ({}).",
                                              graph.origin, name, got.size(), t.dims.size(),
                                              dims_text(t.dims)));
        }
        for (size_t d = 0; d < got.size(); ++d) {
            if (t.dynamic_bound ? (got[d] < 1 || got[d] > t.dims[d]) : got[d] != t.dims[d]) {
                throw InvalidArgument(fmt::format(
                    "{}: {} has size {} in dim {}, {} {} (the program expects {}{}).", graph.origin,
                    name, got[d], d,
                    t.dynamic_bound ? "outside 1 .. the bound" : "not the fixed size", t.dims[d],
                    dims_text(t.dims), t.dynamic_bound ? ", upper bounds" : ""));
            }
        }
        sizes.dims[static_cast<size_t>(id)] = got;
        sizes.host[static_cast<size_t>(id)].assign(inputs[k].host_bytes.begin(),
                                                   inputs[k].host_bytes.end());
        sizes.host_origin[static_cast<size_t>(id)] = static_cast<int32_t>(k);
    }
    // Only the part of the graph that follows a dynamic input or a symbolic integer
    // (mark_dynamic_values) runs its rules: an op whose arguments all keep the file's sizes
    // keeps the file's sizes for its outputs too, whatever shape a fused op's output was given.
    const std::vector<bool>& dynamic = sizes.dynamic;
    for (size_t i = 0; i < graph.chain.size(); ++i) {
        const OpCall& call = graph.chain[i];
        bool follows = follows_dynamic(graph, call, dynamic);
        if (carries_host_data(call.name) && !call.args.empty() && call.args[0] >= 0 &&
            !sizes.host[static_cast<size_t>(call.args[0])].empty()) {
            follows = true;
        }
        SizeRule rule = find_size_rule(call.name);
        if (rule != nullptr && (follows || is_host_op(call.name))) {
            SizeCall size_call(graph, i, sizes);
            rule(size_call);
        } else if (follows) {
            check_unchanged(graph, i, sizes);
        }
    }
}

}  // namespace wgx::graph
