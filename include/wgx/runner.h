// A program made ready on one context to run many times: with sizes that change between runs
// (within the upper bounds the file gives, DESIGN §8) and with state that stays on the GPU from
// run to run (the KV caches of an LLM).
//
// Each run takes its inputs from host memory (their sizes and, for programs whose sizes follow
// an input's values, their data decide what runs), finds every tensor's sizes on the CPU,
// replays the recording made for those sizes (recording it the first time) and returns the
// outputs. Buffers are allocated once at the bounds; nothing is allocated per run.
//
// State: tensors that an op writes in place (ExecuTorch's KV caches) start with the file's
// contents and keep what each run wrote; reset_state() writes the file's contents again. Two
// Runners never share state, even over one Program.
//
// Threads: a Runner follows its Context's rule (one thread at a time).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "wgx/context.h"
#include "wgx/program.h"
#include "wgx/tensor.h"

namespace wgx {

// One input of a run in host memory: host layout of `dtype` (8-byte int64, ...), row-major.
struct HostTensor {
    DType dtype = DType::f32;
    Shape shape;
    std::span<const std::byte> bytes;

    template <typename T>
    static HostTensor of(std::span<const T> data, Shape shape) {
        static_assert(!std::is_same_v<T, bool>);
        HostTensor t;
        t.dtype = dtype_of<T>();
        t.shape = std::move(shape);
        t.bytes = std::as_bytes(data);
        return t;
    }

  private:
    template <typename T>
    static constexpr DType dtype_of() {
        if constexpr (std::is_same_v<T, float>)
            return DType::f32;
        else if constexpr (std::is_same_v<T, int64_t>)
            return DType::i64;
        else if constexpr (std::is_same_v<T, int32_t>)
            return DType::i32;
        else if constexpr (std::is_same_v<T, double>)
            return DType::f64;
        else if constexpr (std::is_same_v<T, uint16_t>)
            return DType::f16;
        else
            static_assert(sizeof(T) == 0, "no dtype for this host type");
    }
};

// Where the host's time of the last Runner::run went, in milliseconds: finding its recording
// (the sizes inferred from the inputs, the recording looked up), writing the inputs, the
// submission (the encoding included when it was not done ahead), and encoding the next run
// ahead after the submission, while the GPU works.
struct RunTimes {
    double prepare_ms = 0, write_ms = 0, submit_ms = 0, encode_ahead_ms = 0;
};

class Runner {
  public:
    // Allocates the program's buffers on `context` and uploads its constants. Throws like
    // Context::record(Program) for a program the device cannot run.
    Runner(Context context, Program program);
    ~Runner();
    Runner(Runner&&) noexcept;
    Runner& operator=(Runner&&) noexcept;

    // Runs once with `inputs` (the program's order). An input of the wrong dtype or rank, or a
    // size beyond its bound, is an InvalidArgument naming the input, the dim and the bound.
    // The outputs are views of the runner's buffers at this run's sizes, valid until the next
    // run (read them, or copy them, before that). The work is submitted, not waited for.
    std::vector<Tensor> run(std::span<const HostTensor> inputs);
    std::vector<Tensor> run(std::initializer_list<HostTensor> inputs) {
        return run(std::span<const HostTensor>(inputs.begin(), inputs.size()));
    }
    // Records the work for these inputs' sizes without running it (what the first run with
    // these sizes would do first), so that the run after it only replays.
    void prepare(std::span<const HostTensor> inputs);
    // Runs once like run(), with GPU timestamps around every dispatch, and returns each
    // dispatch's time (Context::profile; needs the timestamp-query feature). Waits for the GPU.
    Profile profile(std::span<const HostTensor> inputs);
    // Writes the state's initial contents again (the next run starts as the first did).
    void reset_state();
    // Whether the program has state.
    bool has_state() const;
    // The host's time of the last run() by phase.
    RunTimes last_run_times() const;
    // How many recordings (one per distinct set of sizes) the runner holds now.
    size_t recordings() const;

    const Program& program() const;
    Context& context();

  private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace wgx
