// What differs between WebGPU implementations (wgpu-native or Dawn: native_*.cpp), for the
// other files of src/gpu only: it includes the implementation's headers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "gpu/webgpu_api.h"

namespace wgx::gpu {

namespace native {
Instance create_instance(const DeviceOptions& options);
std::vector<Adapter> enumerate_adapters(WGPUInstance instance, const DeviceOptions& options);
// Blocks until `submission` (0: everything submitted) is done, firing pending callbacks.
void wait(WGPUInstance instance, WGPUDevice device, uint64_t submission);
void process_events(WGPUInstance instance, WGPUDevice device);
uint64_t submit(WGPUQueue queue, WGPUCommandBuffer commands);
std::string implementation_name();
void route_logs();
// A shader module, with the implementation's runtime checks (bounds, loop bounding) or, where
// the implementation can, without them. Returns whether the checks are in.
ShaderModule create_shader_module(WGPUDevice device, const WGPUShaderModuleDescriptor& desc,
                                  bool checks);
// Whether the implementation can compile shaders without runtime checks.
bool can_skip_shader_checks();
// Native features beyond webgpu.h's standard list (timestamps inside passes).
std::vector<WGPUFeatureName> extra_features(WGPUAdapter adapter, DeviceFeatures& offered);
// Writes a timestamp between dispatches of a pass; false where the implementation has no such
// call (then callers time whole passes instead).
bool write_timestamp_in_pass(WGPUComputePassEncoder pass, WGPUQuerySet set, uint32_t index);
// Nanoseconds per tick of resolved timestamps.
double timestamp_period_ns(WGPUQueue queue);
}  // namespace native

AdapterDescription describe(WGPUAdapter adapter, int index);

}  // namespace wgx::gpu
