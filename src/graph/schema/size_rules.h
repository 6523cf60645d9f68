// How each op's output sizes follow its inputs (DESIGN §8): one rule per op name, GPU-free, run
// on the CPU before a run whose sizes differ from the ones the file gives (graph/run_sizes.h).
// Host ops are the symbolic-integer ops (sym_size, symint arithmetic, select_as_symint): their
// rule is all they do, and no GPU kernel runs for them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace wgx::graph {

struct RunSizes;
struct RunInput;

// One op call as its size rule sees it: the actual sizes of its arguments, and setters for its
// outputs. Errors name the op and its position in the chain.
class SizeCall {
  public:
    SizeCall(const Graph& graph, size_t index, RunSizes& sizes)
        : graph_(graph), index_(index), sizes_(sizes) {}

    const OpCall& call() const { return graph_.chain[index_]; }
    const Graph& graph() const { return graph_; }
    size_t size() const { return call().args.size(); }
    int32_t id(size_t i) const;
    bool is_none(size_t i) const;
    bool is_tensor(size_t i) const;
    // The actual dims of tensor argument i, or of any tensor value.
    const std::vector<int64_t>& dims(size_t i) const;
    const std::vector<int64_t>& dims_of(int32_t value_id) const;
    // The actual value of an Int/SymInt argument; a Double or Bool as an integer.
    int64_t integer(size_t i) const;
    // An IntList, or a ValueList of Ints and SymInts, at their actual values (one Int or SymInt
    // as a list of one).
    std::vector<int64_t> int_list(size_t i) const;
    // The tensor ids of a ValueList argument (or the one id of a tensor argument).
    std::vector<int32_t> tensor_ids(size_t i) const;
    // The host bytes of tensor argument i when the CPU knows them (a run input given with its
    // data, or a constant), else empty.
    std::span<const std::byte> host_bytes(size_t i) const;
    // Records the bytes the CPU now knows of output tensor i.
    void set_host_bytes(size_t i, std::vector<std::byte> bytes);

    void set_dims(size_t i, std::vector<int64_t> dims);
    void set_dims_of(int32_t value_id, std::vector<int64_t> dims);
    void set_int(size_t i, int64_t value);
    // Shorthands: output i (the last argument when omitted) has argument j's dims.
    void same_dims(size_t from, size_t to);
    [[noreturn]] void fail(const std::string& message) const;

  private:
    const Graph& graph_;
    size_t index_;
    RunSizes& sizes_;
};

using SizeRule = void (*)(SizeCall& call);

// The rule of an op name, or nullptr when the op has none (its outputs keep the file's sizes,
// which is right only while its inputs do too).
SizeRule find_size_rule(std::string_view op);

// Whether `op` runs on the CPU only (sym_size, symint arithmetic, select_as_symint, size
// assertions): the runtime records nothing for it.
bool is_host_op(std::string_view op);

// Whether `op` finds a size from a tensor's data (select_as_symint, _local_scalar_dense).
bool reads_data_for_sizes(std::string_view op);

// Whether `op`'s rule also computes its output's bytes when the CPU knows its input's (select,
// view): such an op's rule runs whenever its input's data is known.
bool carries_host_data(std::string_view op);

// The broadcast of two shapes (numpy rules); throws through `call` when they do not broadcast.
std::vector<int64_t> broadcast_dims(const SizeCall& call, const std::vector<int64_t>& a,
                                    const std::vector<int64_t>& b);

}  // namespace wgx::graph
