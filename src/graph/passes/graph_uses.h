// What the graph passes need to know about values: who reads and writes each one, and the
// scalars held by constants and scalar values. Shared by the fusion passes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "graph/schema/fused_ops.h"

namespace wgx::graph {

// Reads and writes of each value over the chain: an op's last argument is its output (or a
// list of outputs); every other argument, and the items of lists among them, are read.
struct Uses {
    std::map<int32_t, int> reads, writes;
    std::map<int32_t, size_t> reader;  // the (last) op reading the value
    std::map<int32_t, size_t> writer;  // the (last) op writing the value
    std::set<int32_t> graph_outputs;

    int read_count(int32_t id) const;
    int write_count(int32_t id) const;
    // Written once, read once (by `reader`), not a graph output: it can vanish when its
    // producer and reader merge.
    bool private_to_one_reader(int32_t id) const;
};
Uses count_uses(const Graph& graph);

const Tensor* tensor_at(const Graph& graph, int32_t id);
// Whether `a` and `b` are both tensors, of one dtype and the same dims.
bool same_tensor_type(const Graph& graph, int32_t a, int32_t b);
// The element count of a tensor of `dims`: 0 when a dim is 0, else their product, or -1 when a
// dim is negative or the product overflows. graph_check bounds the product only for tensor
// shapes without a zero dim (one with a zero is empty whatever the others say), and shapes in
// int lists (a reshape's target) are not bounded at all, so the passes count through this
// instead of multiplying dims themselves.
int64_t element_count(const std::vector<int64_t>& dims);

// An Int or Double value as a double; nullopt for anything else.
std::optional<double> number_at(const Graph& graph, int32_t id);
// An absent optional: id -1 or a Null value.
bool is_null(const Graph& graph, int32_t id);
// The single element of a one-element float or integer constant tensor, seen through the
// copies an exporter wraps around scalars (clone, _to_dim_order_copy of a constant);
// nullopt when `id` is not such a value.
std::optional<double> constant_scalar(const Graph& graph, const Uses& uses, int32_t id);

// The bounds a clamping activation applies to its first argument (relu: [0, none], hardtanh,
// clamp with number or absent bounds); nullopt when `op` is not one of them.
struct ClampBounds {
    std::optional<double> lo, hi;
};
std::optional<ClampBounds> clamp_bounds(const Graph& graph, const OpCall& op);

// The activation a fused op's epilogue applies for an activation call of one input and one
// output (silu for aten.silu, hardswish for aten.hardswish); none for any other call.
schema::Activation epilogue_activation(const OpCall& op);

// Appends a Double (or, for nullopt, a Null) value and returns its id.
int32_t append_number(Graph& graph, std::optional<double> v);

// Rewrites of a chain gathered while it is scanned, then applied at once: groups of calls
// replaced by one call placed at the group's last position. The placed call runs later than
// the first call of its group did, so the tensors it reads may live longer than the file's
// memory plan assumed: apply() clears their pool ids (list items included), and
// assign_memory_pools (run after the passes) gives them pools of their own. Callers must only
// group calls whose inputs are not written in between (write_count <= 1).
class ChainEdit {
  public:
    explicit ChainEdit(const Graph& graph) : taken_(graph.chain.size(), false) {}
    // Whether call i already belongs to a group.
    bool taken(size_t i) const { return taken_[i]; }
    void replace(const std::vector<size_t>& calls, OpCall fused);
    // Rebuilds graph.chain; returns the number of groups replaced.
    size_t apply(Graph& graph);

  private:
    std::vector<bool> taken_;
    std::map<size_t, OpCall> placed_;  // last index of a group -> its call
};

// Removes the calls `removable` accepts (calls with no effect but their output tensor) whose
// output nothing reads any more and is not a graph output, until none is left (a removed call
// can leave its own input unread); returns how many. Passes use it for the copies a rewrite
// left behind.
size_t drop_unread_calls(Graph& graph, const std::function<bool(const OpCall&)>& removable);

// drop_unread_calls for copies (clone, _to_dim_order_copy), e.g. the wrapped scalars of a
// rewritten activation.
size_t drop_unread_copies(Graph& graph);

}  // namespace wgx::graph
