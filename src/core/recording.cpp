#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>

#include "core/context_state.h"
#include "core/dispatch_geometry.h"
#include "gpu/encoder.h"

namespace wgx {

UniformArena::Slice UniformArena::push(gpu::Device& device, std::span<const std::byte> bytes) {
    const uint64_t align =
        std::max<uint32_t>(16, device.info().limits.min_uniform_offset_alignment);
    uint64_t size = (bytes.size() + 15) / 16 * 16;
    if (size > kChunkBytes) {
        throw InvalidArgument(fmt::format("A uniform struct of {} bytes is larger than {} bytes.",
                                          bytes.size(), kChunkBytes));
    }
    uint64_t offset = (used_ + align - 1) / align * align;
    if (chunks_.empty() || offset + size > kChunkBytes) {
        chunks_.push_back(
            device.create_buffer(kChunkBytes, gpu::BufferUsage::uniform, "wgx uniforms"));
        offset = 0;
    }
    std::vector<std::byte> padded(size, std::byte{0});
    std::copy(bytes.begin(), bytes.end(), padded.begin());
    device.write_buffer(chunks_.back().get(), offset, padded.data(), size);
    used_ = offset + size;
    return Slice{chunks_.back().get(), offset, size};
}

namespace {
// WGX_ENCODE_AHEAD=0 turns encoding ahead off, to measure what it gives.
bool encode_ahead_enabled() {
    const char* env = std::getenv("WGX_ENCODE_AHEAD");
    return !(env && std::string_view(env) == "0");
}
}  // namespace

RecordingState::RecordingState(ContextState& ctx)
    : ctx_(ctx), encode_ahead_(encode_ahead_enabled()) {}

void RecordingState::add_dispatch(const Kernel& kernel, std::span<const Binding> bindings,
                                  Grid grid) {
    if (!kernel.defined()) throw InvalidArgument("dispatch: the kernel is empty.");
    const std::string& label = kernel.label().empty() ? kernel.impl().label : kernel.label();
    const DeviceLimits& limits = ctx_.device().info().limits;
    for (uint32_t n : {grid.x, grid.y, grid.z}) {
        if (n == 0 || n > limits.max_workgroups_per_dimension) {
            throw InvalidArgument(fmt::format(
                "{}: a dispatch of {}x{}x{} workgroups is outside the device limit (1..{} per "
                "dimension).",
                label, grid.x, grid.y, grid.z, limits.max_workgroups_per_dimension));
        }
    }
    std::vector<gpu::BufferBinding> entries;
    entries.reserve(bindings.size());
    for (size_t i = 0; i < bindings.size(); ++i) {
        const Binding& b = bindings[i];
        gpu::BufferBinding e;
        e.binding = static_cast<uint32_t>(i);
        if (b.is_uniform()) {
            auto slice = uniforms_.push(ctx_.device(), b.uniform_bytes());
            e.buffer = slice.buffer;
            e.offset = slice.offset;
            e.size = slice.size;
        } else {
            const detail::TensorImpl& t = usable(b.tensor(), label);
            if (t.ctx.get() != &ctx_) {
                throw InvalidArgument(
                    fmt::format("{}: binding {} is a tensor of another context.", label, i));
            }
            if (t.offset % limits.min_storage_offset_alignment != 0) {
                throw InvalidArgument(fmt::format(
                    "{}: binding {} starts at byte {}, not a multiple of the device's storage "
                    "offset alignment ({}).",
                    label, i, t.offset, limits.min_storage_offset_alignment));
            }
            if (t.padded_bytes() > limits.max_storage_binding_bytes) {
                throw InvalidArgument(fmt::format(
                    "{}: binding {} ({} {}) takes {} bytes, more than the device's "
                    "maxStorageBufferBindingSize ({} bytes); this op does not bind such a "
                    "tensor in parts.",
                    label, i, dtype_name(t.dtype), shape_string(t.shape), t.padded_bytes(),
                    limits.max_storage_binding_bytes));
            }
            e.buffer = t.raw();
            e.offset = t.offset;
            e.size = t.padded_bytes();
        }
        entries.push_back(e);
    }
    DispatchCommand cmd;
    cmd.kernel = kernel.impl_ptr();
    cmd.group = ctx_.device().create_bind_group(label, cmd.kernel->pipeline.get(), entries);
    cmd.grid = grid;
    cmd.scope = scope_;
    cmd.label = label;
    changed();
    commands_.push_back(std::move(cmd));
}

void RecordingState::add_copy(const Tensor& src, const Tensor& dst) {
    const detail::TensorImpl& s = usable(src, "copy");
    const detail::TensorImpl& d = usable(dst, "copy");
    if (s.ctx.get() != &ctx_ || d.ctx.get() != &ctx_) {
        throw InvalidArgument("copy: both tensors must belong to this context.");
    }
    if (storage_dtype(s.dtype) != storage_dtype(d.dtype) || s.numel != d.numel) {
        throw InvalidArgument(fmt::format(
            "copy: source ({} {}) and destination ({} {}) differ in dtype or element count.",
            dtype_name(s.dtype), shape_string(s.shape), dtype_name(d.dtype),
            shape_string(d.shape)));
    }
    changed();
    commands_.push_back(CopyCommand{s.buffer, s.offset, d.buffer, d.offset, s.padded_bytes()});
}

Tensor RecordingState::add_scratch(DType dtype, const Shape& shape) {
    const int64_t numel = checked_numel(shape, "scratch tensor");
    const uint64_t bytes = static_cast<uint64_t>(numel) * device_size(dtype);
    // The smallest free buffer that holds it, moved to the end of the free ones and then out
    // of them; else a new one.
    size_t best = scratch_free_;
    for (size_t i = 0; i < scratch_free_; ++i) {
        if (scratch_[i]->size >= bytes &&
            (best == scratch_free_ || scratch_[i]->size < scratch_[best]->size)) {
            best = i;
        }
    }
    if (best < scratch_free_) {
        std::swap(scratch_[best], scratch_[scratch_free_ - 1]);
        --scratch_free_;
        return ctx_.make_tensor(scratch_[scratch_free_], 0, dtype, shape);
    }
    scratch_.push_back(ctx_.allocate(bytes, "wgx scratch"));
    return ctx_.make_tensor(scratch_.back(), 0, dtype, shape);
}

void RecordingState::end_op() { scratch_free_ = scratch_.size(); }

namespace {

// Submission chunks of a run, in commands: the first small, then doubling up to a cap.
constexpr size_t kFirstChunk = 16;
constexpr size_t kMaxChunk = 256;

void encode_command(gpu::Encoder& encoder, const Command& c) {
    if (const auto* d = std::get_if<DispatchCommand>(&c)) {
        encoder.dispatch(d->kernel->pipeline.get(), d->group.get(), d->grid.x, d->grid.y,
                         d->grid.z);
    } else {
        const auto& copy = std::get<CopyCommand>(c);
        encoder.copy(copy.src->buffer.get(), copy.src_offset, copy.dst->buffer.get(),
                     copy.dst_offset, copy.size);
    }
}

}  // namespace

uint64_t RecordingState::submit_in_chunks() {
    // The GPU starts on a command buffer only once it is submitted, and encoding costs the CPU
    // several microseconds per dispatch: one buffer for the whole run
    // would leave the GPU idle for all of it. Chunks that start small and double let the GPU
    // begin after the first few dispatches while the CPU encodes the rest, with only a few
    // submissions (each has a cost of its own). Queue order keeps the chunks in sequence.
    // What it measured: docs/PERFORMANCE.md#chunked-submission.
    std::optional<gpu::Encoder> encoder;
    encoder.emplace(ctx_.device());
    size_t chunk = kFirstChunk, in_chunk = 0;
    for (size_t i = 0; i < commands_.size(); ++i) {
        encode_command(*encoder, commands_[i]);
        if (++in_chunk == chunk && i + 1 < commands_.size()) {
            encoder->submit();
            encoder.emplace(ctx_.device());
            in_chunk = 0;
            chunk = std::min(chunk * 2, kMaxChunk);
        }
    }
    return encoder->submit();
}

uint64_t RecordingState::submit() {
    // A WebGPU command buffer runs once, so a replayed recording is encoded again for every
    // run. Encoding the next run right after submitting this one does that work while the GPU
    // runs, and the next submit starts the GPU at once on the whole run. The commands do not
    // depend on tensor contents (queue writes between runs land before the next submission),
    // only on the recording, hence the version check. A recording submitted only once (a new
    // photo size, a one-off op) is not encoded ahead: only a submit that repeats the previous
    // one's commands predicts another.
    using Clock = std::chrono::steady_clock;
    const auto ms_since = [](Clock::time_point t) {
        return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    };
    const auto t0 = Clock::now();
    uint64_t submission;
    const bool replay = last_submitted_version_ == version_;
    if (ahead_ && ahead_version_ == version_) {
        gpu::CommandBuffer commands = std::move(ahead_);
        submission = ctx_.device().submit(commands.get());
    } else {
        ahead_ = gpu::CommandBuffer();
        submission = submit_in_chunks();
    }
    last_submitted_version_ = version_;
    last_submit_ms_ = ms_since(t0);
    last_encode_ahead_ms_ = 0;
    if (replay && encode_ahead_) {
        const auto t1 = Clock::now();
        gpu::Encoder encoder(ctx_.device());
        encode(encoder);
        ahead_ = encoder.finish();
        ahead_version_ = version_;
        last_encode_ahead_ms_ = ms_since(t1);
    }
    return submission;
}

std::vector<DispatchTime> RecordingState::profile(bool& inside_passes) {
    gpu::Encoder encoder(ctx_.device(), gpu::Encoder::Timing::per_dispatch);
    encode(encoder);
    ctx_.set_last_submission(encoder.submit());
    std::vector<double> ns = encoder.dispatch_times_ns();
    inside_passes = encoder.timed_inside_passes();
    std::vector<DispatchTime> times;
    size_t i = 0;
    for (const Command& c : commands_) {
        if (const auto* d = std::get_if<DispatchCommand>(&c)) {
            times.push_back({d->scope, d->label, ns.at(i++) * 1e-6});
        }
    }
    return times;
}

void RecordingState::encode(gpu::Encoder& encoder) const {
    for (const Command& c : commands_) encode_command(encoder, c);
}

void RecordingState::changed() {
    ++version_;
    ahead_ = gpu::CommandBuffer();
}

void RecordingState::clear() {
    changed();
    commands_.clear();
    scratch_.clear();
    scratch_free_ = 0;
    uniforms_.clear();
}

void RecordingState::set_live_ints(std::shared_ptr<BufferRef> buffer, int64_t count) {
    live_ints_ = std::move(buffer);
    live_count_ = count;
}

Tensor RecordingState::live_ints() {
    if (!live_ints_) {
        live_count_ = 4;
        live_ints_ = ctx_.allocate(16, "live ints (none)");  // WebGPU zero-fills new buffers
    }
    return ctx_.make_tensor(live_ints_, 0, DType::i32, {live_count_});
}

void RecordingState::truncate(size_t count) {
    if (count < commands_.size()) {
        changed();
        commands_.erase(commands_.begin() + count, commands_.end());
    }
}

const DeviceInfo& Recorder::device() const { return state_.ctx().device().info(); }

uint32_t Recorder::workgroup_size(uint32_t preferred) const {
    return clamp_workgroup_size(preferred, device().limits);
}

Grid Recorder::grid_1d(uint64_t invocations, uint32_t workgroup_size) const {
    return fold_grid(invocations, workgroup_size, device().limits.max_workgroups_per_dimension);
}

Kernel Recorder::kernel(std::string_view label, std::string wgsl,
                        std::initializer_list<Override> overrides) {
    return Kernel(
        state_.ctx().kernel(label, std::move(wgsl),
                            std::span<const Override>(overrides.begin(), overrides.size()),
                            state_.builtin_op()),
        std::string(label));
}

void Recorder::dispatch(const Kernel& kernel, std::initializer_list<Binding> bindings, Grid grid) {
    state_.add_dispatch(kernel, std::span<const Binding>(bindings.begin(), bindings.size()), grid);
}

void Recorder::dispatch(const Kernel& kernel, std::span<const Binding> bindings, Grid grid) {
    state_.add_dispatch(kernel, bindings, grid);
}

void Recorder::copy(const Tensor& src, const Tensor& dst) { state_.add_copy(src, dst); }

Binding Recorder::live_ints() const { return Binding(state_.live_ints()); }

Tensor Recorder::scratch(DType dtype, const Shape& shape) {
    return state_.add_scratch(dtype, shape);
}

}  // namespace wgx
