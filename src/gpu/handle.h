// Reference-counted RAII ownership of webgpu.h objects: copying adds a reference, destruction
// releases one, moving transfers it.
#pragma once

#include <utility>

#include "gpu/webgpu_api.h"

namespace wgx::gpu {

template <typename T, void (*AddRef)(T), void (*Release)(T)>
class Handle {
  public:
    Handle() = default;
    // Takes over one reference the caller owns (e.g. the result of a wgpuDeviceCreate* call).
    static Handle adopt(T raw) {
        Handle h;
        h.raw_ = raw;
        return h;
    }
    Handle(const Handle& other) : raw_(other.raw_) {
        if (raw_) AddRef(raw_);
    }
    Handle(Handle&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
    Handle& operator=(Handle other) noexcept {
        std::swap(raw_, other.raw_);
        return *this;
    }
    ~Handle() {
        if (raw_) Release(raw_);
    }

    T get() const { return raw_; }
    explicit operator bool() const { return raw_ != nullptr; }

  private:
    T raw_ = nullptr;
};

using Instance = Handle<WGPUInstance, wgpuInstanceAddRef, wgpuInstanceRelease>;
using Adapter = Handle<WGPUAdapter, wgpuAdapterAddRef, wgpuAdapterRelease>;
using DeviceHandle = Handle<WGPUDevice, wgpuDeviceAddRef, wgpuDeviceRelease>;
using Queue = Handle<WGPUQueue, wgpuQueueAddRef, wgpuQueueRelease>;
using Buffer = Handle<WGPUBuffer, wgpuBufferAddRef, wgpuBufferRelease>;
using ShaderModule = Handle<WGPUShaderModule, wgpuShaderModuleAddRef, wgpuShaderModuleRelease>;
using ComputePipeline =
    Handle<WGPUComputePipeline, wgpuComputePipelineAddRef, wgpuComputePipelineRelease>;
using BindGroup = Handle<WGPUBindGroup, wgpuBindGroupAddRef, wgpuBindGroupRelease>;
using BindGroupLayout =
    Handle<WGPUBindGroupLayout, wgpuBindGroupLayoutAddRef, wgpuBindGroupLayoutRelease>;
using CommandEncoder =
    Handle<WGPUCommandEncoder, wgpuCommandEncoderAddRef, wgpuCommandEncoderRelease>;
using CommandBuffer = Handle<WGPUCommandBuffer, wgpuCommandBufferAddRef, wgpuCommandBufferRelease>;
using ComputePass =
    Handle<WGPUComputePassEncoder, wgpuComputePassEncoderAddRef, wgpuComputePassEncoderRelease>;
using QuerySet = Handle<WGPUQuerySet, wgpuQuerySetAddRef, wgpuQuerySetRelease>;

}  // namespace wgx::gpu
