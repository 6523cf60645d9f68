// Adapters, device limits and features: what the engine found and what it was granted.
// list_adapters() and webgpu_implementation() may be called from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wgx {

enum class AdapterType { discrete, integrated, cpu, unknown };

struct AdapterDescription {
    int index = -1;    // position in list_adapters()
    std::string name;  // e.g. "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)"
    std::string vendor;
    std::string architecture;
    std::string driver;   // driver description, e.g. "Mesa 22.3.6 (LLVM 15.0.6)"
    std::string backend;  // "Vulkan", "Metal", "D3D12", "OpenGL", ...
    AdapterType type = AdapterType::unknown;
    uint32_t vendor_id = 0;
    uint32_t device_id = 0;
    uint32_t subgroup_min_size = 0;  // 0 when the implementation does not say
    uint32_t subgroup_max_size = 0;
};

// The limits the engine relies on, as granted by the device (the adapter's real limits are
// requested, not the WebGPU defaults).
struct DeviceLimits {
    uint32_t max_workgroup_invocations = 0;
    uint32_t max_workgroup_size_x = 0;
    uint32_t max_workgroup_size_y = 0;
    uint32_t max_workgroup_size_z = 0;
    uint32_t max_workgroups_per_dimension = 0;
    uint32_t max_workgroup_storage_bytes = 0;
    uint32_t max_storage_buffers_per_stage = 0;
    uint32_t max_uniform_buffers_per_stage = 0;
    uint32_t max_bindings_per_group = 0;
    uint32_t min_storage_offset_alignment = 0;
    uint32_t min_uniform_offset_alignment = 0;
    uint64_t max_storage_binding_bytes = 0;  // lower when DeviceOptions caps it
    uint64_t max_uniform_binding_bytes = 0;
    uint64_t max_buffer_bytes = 0;
};

// Optional features, each requested when the adapter offers it.
struct DeviceFeatures {
    bool shader_f16 = false;
    bool timestamp_query = false;
    bool timestamp_inside_passes = false;  // timestamps between dispatches of one pass
    bool subgroups = false;
};

struct DeviceInfo {
    AdapterDescription adapter;
    // Runtime checks compiled into shaders (DeviceOptions::shader_checks): in the engine's own
    // kernels, and in every other kernel (your ops').
    bool shader_checks = true;
    bool builtin_shader_checks = true;
    DeviceLimits limits;
    DeviceFeatures adapter_features;  // offered by the adapter
    DeviceFeatures features;          // granted to the device
};

struct DeviceOptions {
    // Which adapter: "" or "auto" (best: discrete > integrated > other > CPU), "discrete",
    // "integrated", "cpu", an index from list_adapters(), or part of the adapter's name
    // (case-insensitive). An empty value is replaced by the WGX_ADAPTER environment variable.
    std::string adapter;
    // Whether "auto" may fall back to a CPU (software) adapter such as lavapipe. The
    // environment variable WGX_ALLOW_CPU=0 turns it off.
    bool allow_cpu = true;
    // Restrict the backends: "" (all primary: Vulkan, Metal, D3D12), "vulkan", "metal",
    // "dx12", "gl". An empty value is replaced by WGX_BACKEND.
    std::string backend;
    // Ask for shader-f16, timestamp-query and subgroups when offered.
    bool request_optional_features = true;
    // The runtime checks the WebGPU implementation compiles into every shader: bounds checks
    // on each buffer and array access, and a counter bounding every loop. They guard against
    // kernels that index out of range; the engine's own kernels validate their arguments and
    // are tested not to, and the checks cost 6-20 % of a model's time (see
    // docs/PERFORMANCE.md#shader-checks-off). true / false: every kernel with / without
    // them, your own ops' too. Unset: WGX_SHADER_CHECKS ("1" all with, "0" all without); unset
    // too, the engine's own kernels without them and every other kernel with them. Skipping
    // takes effect only on implementations that can (wgpu-native; Dawn keeps them).
    std::optional<bool> shader_checks;
    // Lowers maxStorageBufferBindingSize as the engine and its ops see it
    // (DeviceInfo::limits.max_storage_binding_bytes) to this many bytes, rounded down to a
    // multiple of 4 (at least 4); never above what the device grants. 0: the device's, or
    // WGX_MAX_STORAGE_BINDING when set. With it, tests make the ops bind a tensor larger than
    // one binding in parts (an LLM's embedding table, its output projection) without
    // allocating hundreds of megabytes; every binding is then checked against the lower value.
    uint64_t max_storage_binding_bytes = 0;
};

// Every adapter the WebGPU implementation offers under `options.backend`.
std::vector<AdapterDescription> list_adapters(const DeviceOptions& options = {});

// The WebGPU implementation this build links, with its version, e.g. "wgpu-native 29.0.1.1".
std::string webgpu_implementation();

const char* to_string(AdapterType type);

}  // namespace wgx
