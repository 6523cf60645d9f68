#include "gpu/handle.h"

#include "gpu/webgpu_api.h"

namespace wgx::gpu {

void add_ref(WGPUInstance h) { wgpuInstanceAddRef(h); }
void release(WGPUInstance h) { wgpuInstanceRelease(h); }
void add_ref(WGPUAdapter h) { wgpuAdapterAddRef(h); }
void release(WGPUAdapter h) { wgpuAdapterRelease(h); }
void add_ref(WGPUDevice h) { wgpuDeviceAddRef(h); }
void release(WGPUDevice h) { wgpuDeviceRelease(h); }
void add_ref(WGPUQueue h) { wgpuQueueAddRef(h); }
void release(WGPUQueue h) { wgpuQueueRelease(h); }
void add_ref(WGPUBuffer h) { wgpuBufferAddRef(h); }
void release(WGPUBuffer h) { wgpuBufferRelease(h); }
void add_ref(WGPUShaderModule h) { wgpuShaderModuleAddRef(h); }
void release(WGPUShaderModule h) { wgpuShaderModuleRelease(h); }
void add_ref(WGPUComputePipeline h) { wgpuComputePipelineAddRef(h); }
void release(WGPUComputePipeline h) { wgpuComputePipelineRelease(h); }
void add_ref(WGPUBindGroup h) { wgpuBindGroupAddRef(h); }
void release(WGPUBindGroup h) { wgpuBindGroupRelease(h); }
void add_ref(WGPUBindGroupLayout h) { wgpuBindGroupLayoutAddRef(h); }
void release(WGPUBindGroupLayout h) { wgpuBindGroupLayoutRelease(h); }
void add_ref(WGPUCommandEncoder h) { wgpuCommandEncoderAddRef(h); }
void release(WGPUCommandEncoder h) { wgpuCommandEncoderRelease(h); }
void add_ref(WGPUCommandBuffer h) { wgpuCommandBufferAddRef(h); }
void release(WGPUCommandBuffer h) { wgpuCommandBufferRelease(h); }
void add_ref(WGPUComputePassEncoder h) { wgpuComputePassEncoderAddRef(h); }
void release(WGPUComputePassEncoder h) { wgpuComputePassEncoderRelease(h); }
void add_ref(WGPUQuerySet h) { wgpuQuerySetAddRef(h); }
void release(WGPUQuerySet h) { wgpuQuerySetRelease(h); }

}  // namespace wgx::gpu
