// The engine's program representation: what every reader (.pte with VkGraph delegates or kernel
// calls, program.json + weights.bin) produces and what the executor consumes. It is plain data
// with no GPU objects, so readers are testable (and fuzzable) without a device.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "wgx/dtype.h"

namespace wgx::graph {

struct Null {};
struct Int {
    int64_t value = 0;
};
struct Double {
    double value = 0;
};
struct Bool {
    bool value = false;
};
struct String {
    std::string value;
};
// A symbolic integer; `value` is its serialized (initial / upper-bound) value.
struct SymInt {
    int64_t value = 0;
};
struct IntList {
    std::vector<int64_t> items;
};
struct DoubleList {
    std::vector<double> items;
};
struct BoolList {
    std::vector<bool> items;
};
// Value ids (e.g. a list of tensors for cat, or ints mixed with SymInts). -1 means "none"
// (an absent optional tensor).
struct ValueList {
    std::vector<int32_t> items;
};

struct Tensor {
    DType dtype = DType::f32;    // element type as serialized (i64/f64 are narrowed on GPU)
    std::vector<int64_t> dims;   // upper-bound shape for dynamic-bound tensors
    int32_t constant_id = -1;    // index into Graph::constants, or -1
    int32_t mem_obj_id = -1;     // memory pool shared with other tensors, or -1 (own memory)
    bool dynamic_bound = false;  // dims are an upper bound (shape_dynamism DYNAMIC_BOUND)
    std::string name;            // optional: a fully qualified name when the file has one
};

using Value = std::variant<Null, Int, Double, Bool, String, SymInt, IntList, DoubleList, BoolList,
                           ValueList, Tensor>;

// One operator call. `name` uses the graph spelling "aten.add.Tensor" (namespace.op.overload);
// args are value ids in the op schema's order, output(s) last.
struct OpCall {
    std::string name;
    std::vector<int32_t> args;
    uint32_t debug_handle = 0;  // node id from the file, for messages
};

// Bytes of one constant tensor. They stay inside the bytes the graph keeps alive (`storage`),
// so no copy is made of large weights.
struct Constant {
    std::span<const uint8_t> bytes;
    std::string key;  // named-data key or other origin, for messages
};

struct Graph {
    std::vector<Value> values;
    std::vector<OpCall> chain;
    std::vector<int32_t> input_ids;
    std::vector<int32_t> output_ids;
    std::vector<Constant> constants;
    // Tensors that are views of one storage: each group holds a tensor and the contiguous
    // reshapes of it that passes/alias_reshapes turned into aliases (other shapes of the same
    // bytes). Readers leave it empty; the memory planner gives each group one pool and one
    // lifetime (memory_plan.h), and graph_check checks the rules a group must keep.
    std::vector<std::vector<int32_t>> alias_groups;
    // Members of an alias group that start inside the group's storage rather than at its
    // start: value id -> offset in elements (the group's one dtype). A split into contiguous
    // chunks (a channel split at batch 1) makes each chunk such a member; members not listed
    // start at 0. Every offset, in GPU bytes, is a multiple of kAliasOffsetAlignment, and
    // offset + size stays within the group's first member, which is at offset 0 and holds the
    // whole storage (graph_check).
    std::map<int32_t, uint64_t> alias_offsets;
    // Keeps constant bytes alive (the file's bytes, a weights.bin, a .ptd). Shared so a Graph
    // can be copied cheaply.
    std::vector<std::shared_ptr<const std::vector<uint8_t>>> storage;
    // Where the graph came from, e.g. "model.pte: method forward", for messages.
    std::string origin;
};

// The alignment of every alias offset in GPU bytes: WebGPU's minStorageBufferOffsetAlignment
// is a power of two of at most 256 on every device, so a tensor bound at a multiple of 256
// bytes is accepted everywhere. The passes cannot know the device; with this rule the
// executor never needs a fallback copy for an offset the device would refuse.
inline constexpr uint64_t kAliasOffsetAlignment = 256;

// The element offset of `id` within its alias group's storage (0 for every other value).
inline uint64_t alias_offset(const Graph& graph, int32_t id) {
    const auto it = graph.alias_offsets.find(id);
    return it == graph.alias_offsets.end() ? 0 : it->second;
}

// Calls f(id) for the value an op argument names, or, when that value is a list (cat's inputs,
// an op's several outputs), for each present item of it. Ids outside the graph are skipped.
template <typename F>
void for_each_arg_value(const Graph& graph, int32_t arg, F&& f) {
    if (arg < 0 || static_cast<size_t>(arg) >= graph.values.size()) return;
    if (const auto* list = std::get_if<ValueList>(&graph.values[static_cast<size_t>(arg)])) {
        for (int32_t item : list->items) {
            if (item >= 0 && static_cast<size_t>(item) < graph.values.size()) f(item);
        }
    } else {
        f(arg);
    }
}

}  // namespace wgx::graph
