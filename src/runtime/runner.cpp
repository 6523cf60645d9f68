#include "wgx/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>

#include "core/context_state.h"
#include "graph/graph.h"
#include "graph/run_sizes.h"
#include "runtime/program_buffers.h"
#include "runtime/record_program.h"

namespace wgx {
namespace {

// Recordings kept per runner: an LLM needs two (the prompt's length and one token); a few more
// let prompts of a few lengths alternate without recording again.
constexpr size_t kMaxRecordings = 8;

// What decides a recording besides the symbolic integers its ops baked in: every tensor's
// sizes.
void sizes_key(const graph::Graph& graph, const graph::RunSizes& sizes, std::vector<int64_t>& key) {
    key.clear();
    for (size_t id = 0; id < graph.values.size(); ++id) {
        if (std::holds_alternative<graph::Tensor>(graph.values[id])) {
            key.push_back(static_cast<int64_t>(sizes.dims[id].size()));
            key.insert(key.end(), sizes.dims[id].begin(), sizes.dims[id].end());
        }
    }
}

}  // namespace

struct Runner::State {
    struct Recorded {
        std::vector<int64_t> key;  // sizes_key
        // The SymInts its ops read as plain values, and the values they had.
        std::vector<uint32_t> baked;
        std::vector<int64_t> baked_values;
        std::unique_ptr<RecordingState> recording;
        std::vector<Tensor> inputs, outputs;

        bool fits(const std::vector<int64_t>& k, const graph::RunSizes& sizes) const {
            if (k != key) return false;
            for (size_t i = 0; i < baked.size(); ++i) {
                if (sizes.ints[baked[i]] != baked_values[i]) return false;
            }
            return true;
        }
    };

    Context context;
    Program program;
    runtime::ProgramBuffers buffers;
    // Every SymInt's value in the run (RunSizes::ints as int32), read by the ops' live
    // integers (LiveInt::slot = value id); written before each submit.
    std::shared_ptr<BufferRef> live_buffer;
    Tensor live_ints;
    std::vector<int32_t> live_values;
    bool live_written = false;       // live_values are in live_ints
    std::vector<size_t> symint_ids;  // the values that are SymInts, found once at load
    std::vector<Recorded> recorded;  // most recently used last
    RunTimes last_times;
    // The last inferred sizes and key, kept so that the next run reuses their vectors, and what
    // the sizes were inferred from: each input's dims, and the bytes of those inputs whose
    // values the rules read (RunSizes::input_values_read). A run whose inputs match skips the
    // inference: a decode step prepared ahead (Generator) at its position, with any token.
    graph::RunSizes sizes;
    std::vector<int64_t> key;
    bool sizes_valid = false;
    std::vector<Shape> sizes_dims;
    std::vector<std::vector<std::byte>> sizes_bytes;

    bool sizes_hold(std::span<const HostTensor> inputs) const {
        if (!sizes_valid || inputs.size() != sizes_dims.size()) return false;
        for (size_t k = 0; k < inputs.size(); ++k) {
            if (inputs[k].shape != sizes_dims[k]) return false;
            if (sizes.input_values_read[k] &&
                !std::equal(inputs[k].bytes.begin(), inputs[k].bytes.end(), sizes_bytes[k].begin(),
                            sizes_bytes[k].end())) {
                return false;
            }
        }
        return true;
    }

    State(Context c, Program p)
        : context(std::move(c)), program(std::move(p)), buffers(*context.state(), program) {
        const auto n = static_cast<int64_t>(std::max<size_t>(4, program.graph().values.size()));
        live_buffer = context.state()->allocate(static_cast<uint64_t>(n) * 4, "live ints");
        live_ints = context.state()->make_tensor(live_buffer, 0, DType::i32, {n});
        live_values.assign(static_cast<size_t>(n), 0);
        const auto& values = program.graph().values;
        for (size_t id = 0; id < values.size(); ++id) {
            if (std::holds_alternative<graph::SymInt>(values[id])) symint_ids.push_back(id);
        }
    }

    // Only SymInts reach kernels as live integers (record_program.cpp); other integers, such
    // as a slice's end of INT64_MAX, are left out.
    void write_live_ints(const graph::RunSizes& sizes) {
        bool changed = !live_written;
        for (const size_t id : symint_ids) {
            if (id >= sizes.ints.size()) continue;
            const int64_t v = sizes.ints[id];
            if (v < INT32_MIN || v > INT32_MAX) {
                throw InvalidArgument(fmt::format(
                    "{}: value {} is {} in this run, beyond the 32-bit integers kernels read.",
                    program.graph().origin, id, v));
            }
            changed = changed || live_values[id] != static_cast<int32_t>(v);
            live_values[id] = static_cast<int32_t>(v);
        }
        // The buffer holds them already when a step prepared ahead wrote them (Generator).
        if (changed) live_ints.set_data(live_values);
        live_written = true;
    }

    // The recording for these inputs' sizes, made now when there is none (inputs checked).
    Recorded& recording_for(std::span<const HostTensor> inputs);

    Recorded& record(std::vector<int64_t> key, const graph::RunSizes& sizes) {
        const graph::Graph& graph = program.graph();
        Recorded r;
        r.key = std::move(key);
        r.recording = std::make_unique<RecordingState>(*context.state());
        r.recording->set_live_ints(live_buffer, live_ints.numel());
        runtime::RunTensors tensors(buffers, sizes, graph.values.size());
        r.baked = runtime::record_ops(program, tensors, *r.recording, /*live_symints=*/true);
        for (uint32_t id : r.baked) r.baked_values.push_back(sizes.ints[id]);
        for (int32_t id : graph.input_ids) r.inputs.push_back(tensors[id]);
        for (int32_t id : graph.output_ids) r.outputs.push_back(tensors[id]);
        if (recorded.size() == kMaxRecordings) recorded.erase(recorded.begin());
        recorded.push_back(std::move(r));
        return recorded.back();
    }
};

Runner::Runner(Context context, Program program) {
    context.state()->ensure_usable();
    const DeviceInfo& device = context.device_info();
    if (program.float16() && !device.features.shader_f16) {
        throw InvalidArgument(fmt::format(
            "{}: the program was loaded to run in float16, but adapter {} lacks shader-f16.",
            program.origin(), device.adapter.name));
    }
    state_ = std::make_unique<State>(std::move(context), std::move(program));
}

Runner::~Runner() = default;
Runner::Runner(Runner&&) noexcept = default;
Runner& Runner::operator=(Runner&&) noexcept = default;

Runner::State::Recorded& Runner::State::recording_for(std::span<const HostTensor> inputs) {
    State& s = *this;
    s.context.state()->ensure_usable();
    const graph::Graph& graph = s.program.graph();
    const auto& want = s.program.inputs();
    if (inputs.size() != want.size()) {
        throw InvalidArgument(fmt::format("{}: expected {} inputs, got {}.", graph.origin,
                                          want.size(), inputs.size()));
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
        const HostTensor& in = inputs[k];
        if (in.dtype != want[k].dtype) {
            throw InvalidArgument(fmt::format("{}: input {} is {}, the program expects {}.",
                                              graph.origin, k, dtype_name(in.dtype),
                                              dtype_name(want[k].dtype)));
        }
        const int64_t numel = checked_numel(in.shape, fmt::format("input {}", k));
        if (in.bytes.size() != static_cast<size_t>(numel) * host_size(in.dtype)) {
            throw InvalidArgument(fmt::format("{}: input {} has {} bytes of data; {} {} needs {}.",
                                              graph.origin, k, in.bytes.size(),
                                              dtype_name(in.dtype), shape_string(in.shape),
                                              static_cast<size_t>(numel) * host_size(in.dtype)));
        }
    }
    if (!s.sizes_hold(inputs)) {
        s.sizes_valid = false;
        std::vector<graph::RunInput> run_inputs;
        for (const HostTensor& in : inputs)
            run_inputs.push_back(graph::RunInput{in.shape, in.bytes});
        graph::infer_run_sizes_into(graph, run_inputs, s.sizes);
        sizes_key(graph, s.sizes, s.key);
        s.sizes_dims.clear();
        s.sizes_bytes.clear();
        for (size_t k = 0; k < inputs.size(); ++k) {
            s.sizes_dims.push_back(inputs[k].shape);
            s.sizes_bytes.emplace_back();
            if (s.sizes.input_values_read[k]) {
                s.sizes_bytes.back().assign(inputs[k].bytes.begin(), inputs[k].bytes.end());
            }
        }
        s.sizes_valid = true;
    }
    const graph::RunSizes& sizes = s.sizes;
    std::vector<int64_t>& key = s.key;
    s.write_live_ints(sizes);

    State::Recorded* r = nullptr;
    for (size_t i = 0; i < s.recorded.size(); ++i) {
        if (s.recorded[i].fits(key, sizes)) {
            // Most recently used last.
            std::rotate(s.recorded.begin() + static_cast<std::ptrdiff_t>(i),
                        s.recorded.begin() + static_cast<std::ptrdiff_t>(i) + 1, s.recorded.end());
            r = &s.recorded.back();
            break;
        }
    }
    if (r == nullptr) r = &s.record(key, sizes);
    return *r;
}

void Runner::prepare(std::span<const HostTensor> inputs) { state_->recording_for(inputs); }

std::vector<Tensor> Runner::run(std::span<const HostTensor> inputs) {
    using Clock = std::chrono::steady_clock;
    const auto ms = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    const auto t0 = Clock::now();
    State::Recorded& r = state_->recording_for(inputs);
    const auto t1 = Clock::now();
    for (size_t k = 0; k < inputs.size(); ++k) r.inputs[k].set_bytes(inputs[k].bytes);
    const auto t2 = Clock::now();
    state_->context.state()->set_last_submission(r.recording->submit());
    state_->last_times = {ms(t0, t1), ms(t1, t2), r.recording->last_submit_ms(),
                          r.recording->last_encode_ahead_ms()};
    return r.outputs;
}

RunTimes Runner::last_run_times() const { return state_->last_times; }

Profile Runner::profile(std::span<const HostTensor> inputs) {
    state_->context.state()->ensure_usable();
    State::Recorded& r = state_->recording_for(inputs);
    for (size_t k = 0; k < inputs.size(); ++k) r.inputs[k].set_bytes(inputs[k].bytes);
    Profile out;
    out.dispatches = r.recording->profile(out.inside_passes);
    return out;
}

void Runner::reset_state() {
    state_->context.state()->ensure_usable();
    state_->buffers.reset_state();
}

bool Runner::has_state() const { return state_->buffers.has_state(); }
size_t Runner::recordings() const { return state_->recorded.size(); }
const Program& Runner::program() const { return state_->program; }
Context& Runner::context() { return state_->context; }

}  // namespace wgx
