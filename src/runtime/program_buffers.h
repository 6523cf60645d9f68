// The GPU memory of one program on one context: a buffer per memory pool, sized at the upper
// bounds the file gives, the constants uploaded once, and the program's state (tensors that an
// op writes in place, such as KV caches) kept from run to run. Tensors of a run are views of
// these buffers at that run's sizes.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "core/context_state.h"
#include "wgx/program.h"

namespace wgx::runtime {

class ProgramBuffers {
  public:
    // Allocates the pools and uploads the constants; throws LoadError for a constant that does
    // not fit its tensor.
    ProgramBuffers(ContextState& ctx, const Program& program);

    // Value `id` as a tensor with these dims (the file's, or a run's within them).
    Tensor tensor(int32_t id, const std::vector<int64_t>& dims);
    // Writes the initial contents of the state again (the file's bytes).
    void reset_state();
    // Whether the program has state (an op writes into one of its constants or inputs).
    bool has_state() const { return !state_.empty(); }

  private:
    [[noreturn]] void fail(const std::string& message) const;
    void allocate_pools();
    void upload_constant(int32_t id);

    ContextState& ctx_;
    const graph::Graph& graph_;
    std::map<int32_t, std::shared_ptr<BufferRef>> pools_;
    // Per value id: the buffer of a constant or of a tensor with memory of its own.
    std::vector<std::shared_ptr<BufferRef>> own_;
    std::vector<int32_t> state_;  // constants that ops write
};

}  // namespace wgx::runtime
