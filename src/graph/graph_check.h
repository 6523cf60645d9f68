// Structural checks shared by every reader, run on the finished Graph: ids in range, constants
// consistent with their tensors, sizes that fit in memory arithmetic. After this passes, code
// that walks a Graph may index values, constants and dims without further checks.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace wgx::graph {

// The largest tensor a file may describe. No device holds more; the limit also keeps every
// later byte computation (numel * element size, pool sizes) far from overflow.
inline constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 40;

// Pool ids above this are rejected, so that renumbering pools (delegates inlined one after the
// other, new pools from the memory planner) can never overflow.
inline constexpr int32_t kMaxPoolId = int32_t{1} << 30;

// Graphs with more values are rejected (no real program comes close); with kMaxPoolId it
// leaves room for the memory planner to give every value a pool of its own.
inline constexpr size_t kMaxValues = size_t{1} << 28;

// Elements of a tensor with these dims, or a LoadError naming `what` when a dim is negative or
// the size exceeds kMaxTensorBytes for 8-byte elements.
uint64_t checked_numel(std::span<const int64_t> dims, std::string_view file,
                       const std::string& what);

// Bytes of the tensor in host layout (numel * host_size). Assumes a checked Graph.
uint64_t host_nbytes(const Tensor& tensor);

// Throws a LoadError naming `file` and the first problem found.
void check_graph(const Graph& graph, std::string_view file);

// The rules of Graph::alias_groups (tensors viewing one storage), a LoadError naming `file`
// and the group otherwise: members are non-constant, static-shape tensors of one dtype, each
// within the group's first member (its storage, at offset 0) at its own offset (Graph::
// alias_offsets, whose ids must all be members; 256-byte aligned on the GPU), neither graph
// inputs nor outputs, each in one group, written at most once,
// and all without a pool or all in the same one; no op reads a member of a group while it
// writes a member of the same group (WebGPU forbids binding one buffer both writable and
// read-only in a dispatch). Part of check_graph; the memory planner runs it again.
void check_alias_groups(const Graph& graph, std::string_view file);

// "tensor", "int", ... for messages.
std::string_view value_kind_name(const Value& value);

}  // namespace wgx::graph
