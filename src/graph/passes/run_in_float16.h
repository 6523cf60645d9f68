// Graph pass: runs a program's float32 work in float16 (storage), for adapters with shader-f16.
// Halving the bytes every kernel moves is what speeds up the bandwidth-bound parts of a model
// (depthwise convolutions, elementwise chains, copies); the kernels still compute in float32.
//
//   - a float32 tensor becomes float16 when the ops writing it take float16
//     (`Op::accepts_float16`), a float32 constant when the ops reading it do (its bytes are
//     converted once, here);
//   - the program's inputs and outputs stay float32 (the caller's data);
//   - where a float16 value meets an op without a float16 kernel, or a float32 value meets an
//     op with one, a conversion (aten._to_copy) is added before the op, made once and shared
//     by the later readers; a program output that a float16 op writes is converted after it.
// Lifetimes of the file's values only shrink, so its memory plan still holds; the new values
// get pools from assign_memory_pools.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "graph/graph.h"

namespace wgx::graph {

struct Float16Stats {
    size_t tensors = 0;      // values retyped to float16 (constants included)
    size_t constants = 0;    // constant values among them
    size_t conversions = 0;  // _to_copy calls added
};

// `accepts_float16(op name)` tells which ops take float16 tensors.
Float16Stats run_in_float16(Graph& graph,
                            const std::function<bool(std::string_view)>& accepts_float16);

}  // namespace wgx::graph
