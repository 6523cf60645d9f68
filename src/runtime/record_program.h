// Records a program's ops, at one run's sizes, into a recording: every op validated and its
// pipelines and bind groups made, over the program's buffers.
#pragma once

#include <vector>

#include "core/context_state.h"
#include "graph/run_sizes.h"
#include "runtime/program_buffers.h"
#include "wgx/program.h"

namespace wgx::runtime {

// The program's tensors at the run's sizes, made as the ops need them.
class RunTensors {
  public:
    RunTensors(ProgramBuffers& buffers, const graph::RunSizes& sizes, size_t values)
        : buffers_(buffers), sizes_(sizes), tensors_(values) {}
    const Tensor& operator[](int32_t id) {
        if (!tensors_[id].defined()) tensors_[id] = buffers_.tensor(id, sizes_.dims[id]);
        return tensors_[id];
    }
    const graph::RunSizes& sizes() const { return sizes_; }

  private:
    ProgramBuffers& buffers_;
    const graph::RunSizes& sizes_;
    std::vector<Tensor> tensors_;
};

// Records every op of the chain but the host ops (whose work the sizes already hold). Throws
// LoadError / GpuError naming the op; the caller undoes a partial recording.
//
// With `live_symints`, each SymInt argument is a live integer (LiveInt) whose slot is its value
// id: the recording's live_ints buffer must hold every value's integer (RunSizes::ints) at those
// slots. Returns the value ids of the SymInts some op read as plain values: the recording is
// right only while they keep this run's values.
std::vector<uint32_t> record_ops(const Program& program, RunTensors& tensors,
                                 RecordingState& recording, bool live_symints);

}  // namespace wgx::runtime
