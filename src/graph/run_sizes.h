// The sizes of one run of a program whose sizes change between runs (DESIGN §8): the actual
// dims of every tensor and the actual value of every integer, found on the CPU from the actual
// input sizes before anything is recorded. Memory stays planned at the upper bounds the file
// gives; each op's size rule (schema/size_rules.h) says how its outputs follow its inputs, and
// the symbolic-integer ops (sym_size, symint arithmetic, select_as_symint) are evaluated here
// rather than on the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace wgx::graph {

// One input of a run: its actual dims and, for inputs whose values decide sizes
// (select_as_symint reads them), its bytes in host layout.
struct RunInput {
    std::vector<int64_t> dims;
    std::span<const std::byte> host_bytes;  // empty: the values are not known on the CPU
};

struct RunSizes {
    // Per value id: the actual dims of a tensor (empty for other values).
    std::vector<std::vector<int64_t>> dims;
    // Per value id: the actual value of an Int or SymInt (0 for other values).
    std::vector<int64_t> ints;
    // Per value id: a tensor's bytes (host layout) when the CPU knows them: the inputs given
    // with data, and what a few ops make of them (select, view), so that a scalar read of a
    // cache position (_local_scalar_dense) needs no GPU read-back. Empty when unknown.
    std::vector<std::vector<std::byte>> host;
    // Per value id: whether it follows a dynamic input or a symbolic integer (the part of the
    // graph whose rules run), found once for the graph and kept by infer_run_sizes_into.
    std::vector<bool> dynamic;
    // Per value id: the program input whose bytes its host bytes are (carried through views and
    // selects), or -1.
    std::vector<int32_t> host_origin;
    // Per program input: whether a rule read its values (select_as_symint, _local_scalar_dense
    // of it or of a view of it), so that these sizes hold for any inputs of the same dims and
    // the same bytes of those inputs.
    std::vector<bool> input_values_read;
};

// The sizes a run with these inputs (in the program's input order) has. Throws LoadError naming
// the op and the value when a rule finds sizes it cannot follow (an op without a size rule whose
// inputs differ from the sizes the file gives, a size beyond its planned bound, a
// select_as_symint of a value that only the GPU knows).
RunSizes infer_run_sizes(const Graph& graph, std::span<const RunInput> inputs);
// The same into `sizes`: a RunSizes of an earlier run of the same graph keeps its vectors (no
// allocation for values whose sizes hold) and its `dynamic`, as a runner calls it every run.
void infer_run_sizes_into(const Graph& graph, std::span<const RunInput> inputs, RunSizes& sizes);

// The inputs of a run at the sizes the file gives (their bounds), without data.
std::vector<RunInput> declared_inputs(const Graph& graph);

// Marks every tensor whose sizes may change from run to run as dynamic-bound (its dims are then
// upper bounds): those that follow a dynamic-bound input or a symbolic integer through the
// chain. Run at load, before the passes, which leave such tensors as they are (a reshape of one
// stays a call, so its size rule runs).
void mark_dynamic_values(Graph& graph);

// Whether some op of the graph reads an input's data to find a size (select_as_symint): such
// a program needs the input bytes for every run.
bool sizes_depend_on_data(const Graph& graph);

}  // namespace wgx::graph
