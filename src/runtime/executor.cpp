// Records a Program into a Context's recording: its buffers made (runtime/program_buffers.h),
// inputs copied in, every op prepared at the sizes the file gives, outputs copied out.
#include <fmt/format.h>

#include "core/context_state.h"
#include "graph/graph.h"
#include "graph/graph_check.h"
#include "graph/run_sizes.h"
#include "runtime/program_buffers.h"
#include "runtime/record_program.h"
#include "wgx/context.h"

namespace wgx {
namespace {

std::string describe_tensor(DType dtype, const Shape& shape) {
    return fmt::format("{} {}", dtype_name(dtype), shape_string(shape));
}

// Everything one recording of a program needs, built once.
class ProgramRecorder {
  public:
    ProgramRecorder(ContextState& ctx, const Program& program)
        : ctx_(ctx), program_(program), graph_(program.graph()) {}

    void record(std::span<const Tensor> io) {
        check_io(io);
        const DeviceInfo& device = ctx_.device().info();
        if (program_.float16() && !device.features.shader_f16) {
            throw InvalidArgument(fmt::format(
                "{}: the program was loaded to run in float16, but adapter {} lacks shader-f16.",
                graph_.origin, device.adapter.name));
        }
        if (graph::sizes_depend_on_data(graph_)) {
            throw InvalidArgument(fmt::format(
                "{}: some sizes follow the values of an input (select_as_symint), which a "
                "recording into a context cannot know: run it with wgx::Runner.",
                graph_.origin));
        }
        // Every input at the sizes the file gives; dynamic dims run at their upper bound.
        const graph::RunSizes sizes =
            graph::infer_run_sizes(graph_, graph::declared_inputs(graph_));
        runtime::ProgramBuffers buffers(ctx_, program_);
        runtime::RunTensors tensors(buffers, sizes, graph_.values.size());
        for (size_t i = 0; i < graph_.input_ids.size(); ++i) {
            ctx_.recording().add_copy(io[i], tensors[graph_.input_ids[i]]);
        }
        runtime::record_ops(program_, tensors, ctx_.recording(), /*live_symints=*/false);
        for (size_t i = 0; i < graph_.output_ids.size(); ++i) {
            ctx_.recording().add_copy(tensors[graph_.output_ids[i]],
                                      io[graph_.input_ids.size() + i]);
        }
    }

  private:
    void check_io(std::span<const Tensor> io) const {
        const auto& ins = program_.inputs();
        const auto& outs = program_.outputs();
        if (io.size() != ins.size() + outs.size()) {
            throw InvalidArgument(fmt::format(
                "{}: expected {} tensors ({} inputs then {} outputs), got {}.", graph_.origin,
                ins.size() + outs.size(), ins.size(), outs.size(), io.size()));
        }
        for (size_t i = 0; i < io.size(); ++i) {
            bool is_input = i < ins.size();
            const TensorInfo& want = is_input ? ins[i] : outs[i - ins.size()];
            std::string which =
                is_input ? fmt::format("input {}", i) : fmt::format("output {}", i - ins.size());
            const Tensor& got = io[i];
            if (!got.defined()) {
                throw InvalidArgument(
                    fmt::format("{}: {} is an empty tensor.", graph_.origin, which));
            }
            if (got.impl().ctx.get() != &ctx_) {
                throw InvalidArgument(
                    fmt::format("{}: {} belongs to another context.", graph_.origin, which));
            }
            bool beyond_bound = false;
            if (want.dynamic_bound && got.shape().size() == want.shape.size()) {
                for (size_t d = 0; d < want.shape.size(); ++d) {
                    beyond_bound |= got.shape()[d] > want.shape[d];
                }
            }
            if (beyond_bound) {
                throw InvalidArgument(fmt::format(
                    "{}: {} has shape {}, beyond the upper bound {} the program was exported with.",
                    graph_.origin, which, shape_string(got.shape()), shape_string(want.shape)));
            }
            if (got.dtype() != want.dtype || got.shape() != want.shape) {
                throw InvalidArgument(fmt::format(
                    "{}: {} is {}, the program expects {}{}.", graph_.origin, which,
                    describe_tensor(got.dtype(), got.shape()),
                    describe_tensor(want.dtype, want.shape),
                    want.dynamic_bound ? " (dynamic dims run at their upper bound)" : ""));
            }
        }
    }

    ContextState& ctx_;
    const Program& program_;
    const graph::Graph& graph_;
};

}  // namespace

Context& Context::record(const Program& program, std::span<const Tensor> io) {
    state_->ensure_usable();
    size_t before = state_->recording().size();
    try {
        ProgramRecorder(*state_, program).record(io);
    } catch (...) {
        state_->recording().truncate(before);
        throw;
    }
    return *this;
}

Context& Context::record(const Program& program, std::initializer_list<Tensor> io) {
    return record(program, std::span<const Tensor>(io.begin(), io.end()));
}

}  // namespace wgx
