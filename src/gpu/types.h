// The WebGPU object handles the layers above src/gpu pass around, declared as the standard
// webgpu.h declares them (opaque pointers; every implementation of the header spells them the
// same). Only src/gpu's .cpp files include the implementation's headers (webgpu_api.h), so
// nothing above it compiles again for another WebGPU implementation.
#pragma once

typedef struct WGPUInstanceImpl* WGPUInstance;
typedef struct WGPUAdapterImpl* WGPUAdapter;
typedef struct WGPUDeviceImpl* WGPUDevice;
typedef struct WGPUQueueImpl* WGPUQueue;
typedef struct WGPUBufferImpl* WGPUBuffer;
typedef struct WGPUShaderModuleImpl* WGPUShaderModule;
typedef struct WGPUComputePipelineImpl* WGPUComputePipeline;
typedef struct WGPUBindGroupImpl* WGPUBindGroup;
typedef struct WGPUBindGroupLayoutImpl* WGPUBindGroupLayout;
typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;
typedef struct WGPUCommandBufferImpl* WGPUCommandBuffer;
typedef struct WGPUComputePassEncoderImpl* WGPUComputePassEncoder;
typedef struct WGPUQuerySetImpl* WGPUQuerySet;
