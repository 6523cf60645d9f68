#include "graph/graph_check.h"

#include <algorithm>

#include "graph/util/checked.h"
#include "graph/util/text.h"

namespace wgx::graph {

uint64_t checked_numel(std::span<const int64_t> dims, std::string_view file,
                       const std::string& what) {
    for (int64_t dim : dims) {
        if (dim < 0) fail(file, cat(what, " has a negative dim in shape ", dim));
        if (dim == 0) return 0;
    }
    // Bound the element count so that even 8-byte elements stay within kMaxTensorBytes.
    constexpr uint64_t kMaxElements = kMaxTensorBytes / 8;
    uint64_t numel = 1;
    for (int64_t dim : dims) {
        auto product = checked_mul(numel, static_cast<uint64_t>(dim));
        if (!product || *product > kMaxElements) {
            std::vector<int64_t> shape(dims.begin(), dims.end());
            fail(file, cat(what, " has shape ", list_text(shape), " with more than ", kMaxElements,
                           " elements (limit ", kMaxTensorBytes, " bytes)"));
        }
        numel = *product;
    }
    return numel;
}

uint64_t host_nbytes(const Tensor& tensor) {
    uint64_t numel = 1;
    for (int64_t dim : tensor.dims) numel *= static_cast<uint64_t>(dim);
    return numel * host_size(tensor.dtype);
}

std::string_view value_kind_name(const Value& value) {
    struct Namer {
        std::string_view operator()(const Null&) const { return "null"; }
        std::string_view operator()(const Int&) const { return "int"; }
        std::string_view operator()(const Double&) const { return "double"; }
        std::string_view operator()(const Bool&) const { return "bool"; }
        std::string_view operator()(const String&) const { return "string"; }
        std::string_view operator()(const SymInt&) const { return "symint"; }
        std::string_view operator()(const IntList&) const { return "int_list"; }
        std::string_view operator()(const DoubleList&) const { return "double_list"; }
        std::string_view operator()(const BoolList&) const { return "bool_list"; }
        std::string_view operator()(const ValueList&) const { return "value_list"; }
        std::string_view operator()(const Tensor&) const { return "tensor"; }
    };
    return std::visit(Namer{}, value);
}

namespace {

void check_tensor(const Graph& graph, const Tensor& tensor, size_t id, std::string_view file) {
    const std::string what = cat("tensor value ", id);
    checked_numel(tensor.dims, file, what);
    if (tensor.mem_obj_id < -1 || tensor.mem_obj_id > kMaxPoolId) {
        fail(file, cat(what, " has memory pool id ", tensor.mem_obj_id, " (expected -1 .. ",
                       kMaxPoolId, ")"));
    }
    if (tensor.constant_id < -1 ||
        tensor.constant_id >= static_cast<int64_t>(graph.constants.size())) {
        fail(file, cat(what, " refers to constant ", tensor.constant_id, " but the graph has ",
                       graph.constants.size(), " constants"));
    }
    if (tensor.constant_id >= 0) {
        const Constant& constant = graph.constants[static_cast<size_t>(tensor.constant_id)];
        const uint64_t expected = host_nbytes(tensor);
        if (constant.bytes.size() != expected) {
            fail(file, cat(what, " (", dtype_name(tensor.dtype), " ", list_text(tensor.dims),
                           ") needs ", expected, " bytes but constant ", tensor.constant_id, " ('",
                           constant.key, "') has ", constant.bytes.size()));
        }
    }
}

}  // namespace

void check_graph(const Graph& graph, std::string_view file) {
    if (graph.values.size() > kMaxValues) {
        fail(file,
             cat("has ", graph.values.size(), " values, more than the limit of ", kMaxValues));
    }
    const auto value_count = static_cast<int64_t>(graph.values.size());
    auto in_range = [&](int64_t id) { return id >= 0 && id < value_count; };

    for (size_t id = 0; id < graph.values.size(); ++id) {
        const Value& value = graph.values[id];
        if (const auto* tensor = std::get_if<Tensor>(&value)) {
            check_tensor(graph, *tensor, id, file);
        } else if (const auto* list = std::get_if<ValueList>(&value)) {
            for (size_t i = 0; i < list->items.size(); ++i) {
                const int32_t item = list->items[i];
                if (item != -1 && !in_range(item)) {
                    fail(file, cat("value list ", id, " item ", i, " refers to value ", item,
                                   " but the graph has ", value_count, " values"));
                }
            }
        }
    }
    for (size_t op = 0; op < graph.chain.size(); ++op) {
        const OpCall& call = graph.chain[op];
        for (size_t i = 0; i < call.args.size(); ++i) {
            if (!in_range(call.args[i])) {
                fail(file, cat("op ", op, " (", call.name, ") argument ", i, " refers to value ",
                               call.args[i], " but the graph has ", value_count, " values"));
            }
        }
    }
    auto check_ids = [&](const std::vector<int32_t>& ids, const char* what) {
        for (size_t i = 0; i < ids.size(); ++i) {
            if (!in_range(ids[i])) {
                fail(file, cat(what, " ", i, " is value ", ids[i], " but the graph has ",
                               value_count, " values"));
            }
        }
    };
    check_ids(graph.input_ids, "input");
    check_ids(graph.output_ids, "output");
    check_alias_groups(graph, file);
}

namespace {

// The storage of alias group `g` is its first member (the tensor the others are views of),
// at offset 0: every member, at its offset (Graph::alias_offsets), must lie within it, and
// every offset must be a multiple of kAliasOffsetAlignment in GPU bytes, so the executor can
// bind the member on any device. Members are tensors of one dtype (checked by the caller).
void check_alias_extent(const Graph& graph, size_t g, std::string_view file) {
    const auto& group = graph.alias_groups[g];
    if (group.empty()) return;
    const int32_t root = group.front();
    const auto& first = std::get<Tensor>(graph.values[static_cast<size_t>(root)]);
    const uint64_t storage = host_nbytes(first) / host_size(first.dtype);
    if (alias_offset(graph, root) != 0) {
        fail(file, cat("alias group ", g, ": its first member, value ", root,
                       ", does not start at offset 0"));
    }
    for (int32_t id : group) {
        const auto& t = std::get<Tensor>(graph.values[static_cast<size_t>(id)]);
        const uint64_t n = host_nbytes(t) / host_size(t.dtype);
        const uint64_t offset = alias_offset(graph, id);
        const std::string what = cat("alias group ", g, ": value ", id);
        // Offsets come from a pass (or a test), never from a file; still, keep the sum exact.
        if (offset > storage || n > storage - offset) {
            fail(file,
                 cat(what, " (", dtype_name(t.dtype), " ", list_text(t.dims), " at element ",
                     offset, ") reaches past the end of value ", root, " (",
                     list_text(std::get<Tensor>(graph.values[static_cast<size_t>(root)]).dims),
                     ")"));
        }
        if (offset * device_size(t.dtype) % kAliasOffsetAlignment != 0) {
            fail(file, cat(what, " starts at GPU byte ", offset * device_size(t.dtype),
                           ", not a multiple of ", kAliasOffsetAlignment));
        }
    }
}

}  // namespace

void check_alias_groups(const Graph& graph, std::string_view file) {
    if (graph.alias_groups.empty()) return;
    const auto value_count = static_cast<int64_t>(graph.values.size());
    std::vector<int32_t> group_of(graph.values.size(), -1);
    std::vector<bool> boundary(graph.values.size(), false);
    for (int32_t id : graph.input_ids) boundary[static_cast<size_t>(id)] = true;
    for (int32_t id : graph.output_ids) boundary[static_cast<size_t>(id)] = true;

    for (size_t g = 0; g < graph.alias_groups.size(); ++g) {
        const auto& group = graph.alias_groups[g];
        const Tensor* first = nullptr;
        for (int32_t id : group) {
            const std::string what = cat("alias group ", g, ": value ", id);
            if (id < 0 || id >= value_count) {
                fail(file, cat(what, " is out of range (", value_count, " values)"));
            }
            const auto* t = std::get_if<Tensor>(&graph.values[static_cast<size_t>(id)]);
            if (!t) fail(file, cat(what, " is not a tensor"));
            if (t->constant_id >= 0) fail(file, cat(what, " is a constant"));
            if (t->dynamic_bound) fail(file, cat(what, " has a dynamic-bound shape"));
            if (boundary[static_cast<size_t>(id)])
                fail(file, cat(what, " is a graph input or output"));
            if (group_of[static_cast<size_t>(id)] >= 0) {
                fail(file,
                     cat(what, " is also in alias group ", group_of[static_cast<size_t>(id)]));
            }
            group_of[static_cast<size_t>(id)] = static_cast<int32_t>(g);
            if (!first) {
                first = t;
                continue;
            }
            if (t->dtype != first->dtype) {
                fail(file, cat(what, " (", dtype_name(t->dtype), " ", list_text(t->dims),
                               ") does not hold the same bytes as value ", group.front(), " (",
                               dtype_name(first->dtype), " ", list_text(first->dims), ")"));
            }
            if (t->mem_obj_id != first->mem_obj_id) {
                fail(file, cat(what, " is in memory pool ", t->mem_obj_id, " but value ",
                               group.front(), " in pool ", first->mem_obj_id));
            }
        }
        check_alias_extent(graph, g, file);
    }
    for (const auto& [id, offset] : graph.alias_offsets) {
        if (id < 0 || id >= value_count || group_of[static_cast<size_t>(id)] < 0) {
            fail(file, cat("alias offset ", offset, " is given for value ", id,
                           ", which is in no alias group"));
        }
    }

    // Per op: the groups it reads and the groups it writes (through value lists).
    std::vector<int> writes(graph.values.size(), 0);
    std::vector<int32_t> read, written;
    for (size_t op = 0; op < graph.chain.size(); ++op) {
        const auto& args = graph.chain[op].args;
        if (args.empty()) continue;
        read.clear();
        written.clear();
        for (size_t a = 0; a + 1 < args.size(); ++a) {
            for_each_arg_value(graph, args[a], [&](int32_t id) {
                if (group_of[static_cast<size_t>(id)] >= 0)
                    read.push_back(group_of[static_cast<size_t>(id)]);
            });
        }
        for_each_arg_value(graph, args.back(), [&](int32_t id) {
            const int32_t g = group_of[static_cast<size_t>(id)];
            if (g < 0) return;
            if (++writes[static_cast<size_t>(id)] > 1) {
                fail(file, cat("alias group ", g, ": value ", id,
                               " is written more than once (again by op ", op, ", ",
                               graph.chain[op].name, ")"));
            }
            written.push_back(g);
        });
        for (int32_t g : written) {
            if (std::find(read.begin(), read.end(), g) != read.end()) {
                fail(file,
                     cat("op ", op, " (", graph.chain[op].name, ") reads and writes alias group ",
                         g, " (one buffer bound writable and read-only in one dispatch)"));
            }
        }
    }
}

}  // namespace wgx::graph
