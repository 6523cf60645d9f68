#include <fmt/format.h>

#include <algorithm>

#include "base/log.h"
#include "core/context_state.h"

namespace wgx {

ContextState::ContextState(std::shared_ptr<gpu::Device> device)
    : device_(std::move(device)), recording_(std::make_unique<RecordingState>(*this)) {}

void ContextState::ensure_usable() const {
    if (destroyed_) throw Error("The context was destroyed; it cannot be used any more.");
    device_->check();
}

std::shared_ptr<BufferRef> ContextState::allocate(uint64_t bytes, std::string_view label) {
    ensure_usable();
    // A buffer may exceed one storage binding (maxStorageBufferBindingSize): the ops that take
    // such tensors bind them in parts (ops/common/row_split.h), and the recording refuses any
    // other binding of them by name.
    if (bytes > device_->info().limits.max_buffer_bytes) {
        throw InvalidArgument(
            fmt::format("{}: {} bytes is larger than the device allows for one buffer "
                        "(maxBufferSize {} bytes).",
                        label, bytes, device_->info().limits.max_buffer_bytes));
    }
    auto ref = std::make_shared<BufferRef>();
    ref->buffer = device_->create_buffer(bytes, gpu::BufferUsage::storage, label);
    ref->size = std::max<uint64_t>(4, (bytes + 3) / 4 * 4);
    ref->owned = true;
    owned_.push_back(ref);
    if (owned_.size() >= prune_at_) {
        std::erase_if(owned_, [](const std::weak_ptr<BufferRef>& w) { return w.expired(); });
        prune_at_ = std::max<size_t>(64, owned_.size() * 2);
    }
    return ref;
}

Tensor ContextState::make_tensor(std::shared_ptr<BufferRef> buffer, uint64_t offset, DType dtype,
                                 const Shape& shape) {
    auto impl = std::make_shared<detail::TensorImpl>();
    impl->ctx = shared_from_this();
    impl->buffer = std::move(buffer);
    impl->offset = offset;
    impl->dtype = dtype;
    impl->shape = shape;
    impl->numel = checked_numel(shape, "tensor");
    if (offset % 4 != 0) {
        throw InvalidArgument(
            fmt::format("Tensor byte offset ({}) is not a multiple of 4.", offset));
    }
    if (offset + impl->padded_bytes() > impl->buffer->size) {
        throw InvalidArgument(
            fmt::format("A {} tensor of shape {} at offset {} needs {} bytes; the buffer has {}.",
                        dtype_name(dtype), shape_string(shape), offset, impl->padded_bytes(),
                        impl->buffer->size));
    }
    return Tensor(std::move(impl));
}

std::shared_ptr<const Kernel::Impl> ContextState::kernel(std::string_view label,
                                                         const std::string& wgsl,
                                                         std::span<const Override> overrides,
                                                         bool builtin) {
    ensure_usable();
    // The key is exactly what the compiler reads: the WGSL text, the override values and the
    // runtime checks asked for.
    std::string key = wgsl;
    key += builtin ? "\n//builtin" : "\n//other";
    for (const auto& o : overrides) key += fmt::format("\n//override {}={}", o.name, o.value);
    if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;

    std::vector<gpu::OverrideConstant> constants;
    for (const auto& o : overrides) constants.push_back({o.name, o.value});
    auto impl = std::make_shared<Kernel::Impl>();
    impl->pipeline = device_->create_compute_pipeline(label, wgsl, builtin, constants);
    impl->label = std::string(label);
    log::debug("compiled pipeline {} ({} cached)", label, pipelines_.size() + 1);
    pipelines_.emplace(std::move(key), impl);
    return impl;
}

void ContextState::destroy() {
    if (destroyed_) return;
    // Wait for work in flight before freeing what it uses.
    if (!device_->lost()) {
        try {
            device_->wait_idle();
        } catch (const Error& e) {
            log::warn("while destroying a context: {}", e.what());
        }
    }
    recording_->clear();
    pipelines_.clear();
    for (auto& weak : owned_) {
        if (auto ref = weak.lock()) {
            if (ref->buffer) gpu::Device::destroy_buffer(ref->buffer.get());
        }
    }
    owned_.clear();
    destroyed_ = true;
}

Context Context::create(const DeviceOptions& options) {
    return Context(std::make_shared<ContextState>(gpu::Device::create(options)));
}

const DeviceInfo& Context::device_info() const { return state_->device().info(); }

uint64_t Context::allocated_bytes() const { return state_->allocated_bytes(); }

Tensor Context::tensor(DType dtype, const Shape& shape) {
    int64_t numel = checked_numel(shape, "Context::tensor");
    uint64_t bytes = static_cast<uint64_t>(numel) * device_size(dtype);
    auto buffer = state_->allocate(
        bytes, fmt::format("tensor {} {}", dtype_name(dtype), shape_string(shape)));
    return state_->make_tensor(std::move(buffer), 0, dtype, shape);
}

Tensor Context::wrap(WGPUBuffer buffer, DType dtype, const Shape& shape, uint64_t byte_offset) {
    state_->ensure_usable();
    if (buffer == nullptr) throw InvalidArgument("Context::wrap: the buffer is null.");
    gpu::Device::BufferFacts facts = gpu::Device::facts(buffer);
    if (!facts.storage || !facts.copy_src || !facts.copy_dst) {
        throw InvalidArgument(
            "Context::wrap: the buffer needs Storage, CopySrc and CopyDst usage.");
    }
    auto ref = std::make_shared<BufferRef>();
    ref->buffer = gpu::Device::retain(buffer);  // the caller keeps its own reference
    ref->size = facts.size;
    ref->owned = false;
    return state_->make_tensor(std::move(ref), byte_offset, dtype, shape);
}

Context& Context::record(const Op& op, std::span<const Arg> args) {
    state_->ensure_usable();
    size_t before = state_->recording().size();
    try {
        Recorder recorder(state_->recording());
        BuiltinOpScope builtin(state_->recording(), op.builtin());
        op.record(recorder, Args(op.name(), args));
    } catch (...) {
        state_->recording().truncate(before);  // a failed record leaves the recording as it was
        throw;
    }
    return *this;
}

Context& Context::record(const Op& op, std::initializer_list<Arg> args) {
    return record(op, std::span<const Arg>(args.begin(), args.size()));
}

Context& Context::copy(const Tensor& src, const Tensor& dst) {
    state_->ensure_usable();
    state_->recording().add_copy(src, dst);
    return *this;
}

void Context::submit() {
    state_->ensure_usable();
    if (state_->recording().empty()) return;
    state_->set_last_submission(state_->recording().submit());
}

Profile Context::profile() {
    state_->ensure_usable();
    Profile profile;
    profile.dispatches = state_->recording().profile(profile.inside_passes);
    return profile;
}

void Context::sync() {
    state_->ensure_usable();
    state_->device().wait_for(state_->last_submission());
}

void Context::reset() {
    state_->ensure_usable();
    state_->recording().clear();
}

void Context::destroy() { state_->destroy(); }
bool Context::destroyed() const { return state_->destroyed(); }
WGPUDevice Context::native_device() const { return state_->device().handle(); }
void Context::lose_device_for_testing() { state_->device().destroy(); }

}  // namespace wgx
