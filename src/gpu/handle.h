// Reference-counted RAII ownership of webgpu.h objects: copying adds a reference, destruction
// releases one, moving transfers it. Every reference a Handle holds is counted per object kind,
// so tests can check that destroying a context gives back everything it made.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <utility>

#include "gpu/types.h"

namespace wgx::gpu {

enum class HandleKind {
    instance,
    adapter,
    device,
    queue,
    buffer,
    shader_module,
    compute_pipeline,
    bind_group,
    bind_group_layout,
    command_encoder,
    command_buffer,
    compute_pass,
    query_set,
};
inline constexpr int kHandleKinds = static_cast<int>(HandleKind::query_set) + 1;

// References held right now by Handles, per kind (one process-wide table).
inline std::array<std::atomic<int64_t>, kHandleKinds> live_handle_counts{};

struct LiveHandles {
    std::array<int64_t, kHandleKinds> count{};
    int64_t total() const {
        int64_t n = 0;
        for (int64_t c : count) n += c;
        return n;
    }
};

inline LiveHandles live_handles() {
    LiveHandles out;
    for (int i = 0; i < kHandleKinds; ++i) {
        out.count[i] = live_handle_counts[i].load(std::memory_order_relaxed);
    }
    return out;
}

inline const char* handle_kind_name(HandleKind kind) {
    static constexpr const char* names[kHandleKinds] = {"instance",
                                                        "adapter",
                                                        "device",
                                                        "queue",
                                                        "buffer",
                                                        "shader module",
                                                        "compute pipeline",
                                                        "bind group",
                                                        "bind group layout",
                                                        "command encoder",
                                                        "command buffer",
                                                        "compute pass",
                                                        "query set"};
    return names[static_cast<int>(kind)];
}

// A reference more and one fewer, per object kind (handle.cpp: the implementation's
// wgpu*AddRef / wgpu*Release).
void add_ref(WGPUInstance h);
void release(WGPUInstance h);
void add_ref(WGPUAdapter h);
void release(WGPUAdapter h);
void add_ref(WGPUDevice h);
void release(WGPUDevice h);
void add_ref(WGPUQueue h);
void release(WGPUQueue h);
void add_ref(WGPUBuffer h);
void release(WGPUBuffer h);
void add_ref(WGPUShaderModule h);
void release(WGPUShaderModule h);
void add_ref(WGPUComputePipeline h);
void release(WGPUComputePipeline h);
void add_ref(WGPUBindGroup h);
void release(WGPUBindGroup h);
void add_ref(WGPUBindGroupLayout h);
void release(WGPUBindGroupLayout h);
void add_ref(WGPUCommandEncoder h);
void release(WGPUCommandEncoder h);
void add_ref(WGPUCommandBuffer h);
void release(WGPUCommandBuffer h);
void add_ref(WGPUComputePassEncoder h);
void release(WGPUComputePassEncoder h);
void add_ref(WGPUQuerySet h);
void release(WGPUQuerySet h);

template <typename T, HandleKind Kind>
class Handle {
  public:
    Handle() = default;
    // Takes over one reference the caller owns (e.g. the result of a wgpuDeviceCreate* call).
    static Handle adopt(T raw) {
        Handle h;
        h.raw_ = raw;
        if (raw) count(+1);
        return h;
    }
    Handle(const Handle& other) : raw_(other.raw_) {
        if (raw_) {
            add_ref(raw_);
            count(+1);
        }
    }
    Handle(Handle&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
    Handle& operator=(Handle other) noexcept {
        std::swap(raw_, other.raw_);
        return *this;
    }
    ~Handle() {
        if (raw_) {
            release(raw_);
            count(-1);
        }
    }

    T get() const { return raw_; }
    explicit operator bool() const { return raw_ != nullptr; }

  private:
    static void count(int64_t delta) {
        live_handle_counts[static_cast<int>(Kind)].fetch_add(delta, std::memory_order_relaxed);
    }
    T raw_ = nullptr;
};

using Instance = Handle<WGPUInstance, HandleKind::instance>;
using Adapter = Handle<WGPUAdapter, HandleKind::adapter>;
using DeviceHandle = Handle<WGPUDevice, HandleKind::device>;
using Queue = Handle<WGPUQueue, HandleKind::queue>;
using Buffer = Handle<WGPUBuffer, HandleKind::buffer>;
using ShaderModule = Handle<WGPUShaderModule, HandleKind::shader_module>;
using ComputePipeline = Handle<WGPUComputePipeline, HandleKind::compute_pipeline>;
using BindGroup = Handle<WGPUBindGroup, HandleKind::bind_group>;
using BindGroupLayout = Handle<WGPUBindGroupLayout, HandleKind::bind_group_layout>;
using CommandEncoder = Handle<WGPUCommandEncoder, HandleKind::command_encoder>;
using CommandBuffer = Handle<WGPUCommandBuffer, HandleKind::command_buffer>;
using ComputePass = Handle<WGPUComputePassEncoder, HandleKind::compute_pass>;
using QuerySet = Handle<WGPUQuerySet, HandleKind::query_set>;

}  // namespace wgx::gpu
