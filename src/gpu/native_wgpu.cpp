// wgpu-native specifics: adapter enumeration, blocking waits through wgpuDevicePoll (its
// wgpuInstanceWaitAny is not usable for this), submission indices, version and log routing.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <mutex>

#include "base/log.h"
#include "gpu/native.h"
#include "wgx/error.h"

namespace wgx::gpu::native {
namespace {

WGPUInstanceBackend backends_for(const std::string& name) {
    std::string n = name;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    if (n.empty() || n == "auto") return WGPUInstanceBackend_Primary;
    if (n == "vulkan") return WGPUInstanceBackend_Vulkan;
    if (n == "metal") return WGPUInstanceBackend_Metal;
    if (n == "dx12" || n == "d3d12") return WGPUInstanceBackend_DX12;
    if (n == "gl" || n == "opengl") return WGPUInstanceBackend_GL;
    if (n == "all") return WGPUInstanceBackend_All;
    throw InvalidArgument(
        fmt::format("Backend \"{}\" is not one of auto, vulkan, metal, dx12, gl, all.", name));
}

LogLevel from_wgpu_level(WGPULogLevel level) {
    switch (level) {
        case WGPULogLevel_Error: return LogLevel::error;
        case WGPULogLevel_Warn: return LogLevel::warn;
        case WGPULogLevel_Info: return LogLevel::info;
        case WGPULogLevel_Debug: return LogLevel::debug;
        default: return LogLevel::trace;
    }
}

WGPULogLevel to_wgpu_level(LogLevel level) {
    switch (level) {
        case LogLevel::off: return WGPULogLevel_Off;
        case LogLevel::error: return WGPULogLevel_Error;
        case LogLevel::warn: return WGPULogLevel_Warn;
        case LogLevel::info: return WGPULogLevel_Info;
        case LogLevel::debug: return WGPULogLevel_Debug;
        case LogLevel::trace: return WGPULogLevel_Trace;
    }
    return WGPULogLevel_Warn;
}

}  // namespace

Instance create_instance(const DeviceOptions& options) {
    WGPUInstanceExtras extras = {};
    extras.chain.sType = static_cast<WGPUSType>(WGPUSType_InstanceExtras);
    extras.backends = backends_for(options.backend);
    extras.flags = WGPUInstanceFlag_Default;
    WGPUInstanceDescriptor desc = WGPU_INSTANCE_DESCRIPTOR_INIT;
    desc.nextInChain = &extras.chain;
    Instance instance = Instance::adopt(wgpuCreateInstance(&desc));
    if (!instance) throw GpuError("Creating the WebGPU instance failed.");
    return instance;
}

std::vector<Adapter> enumerate_adapters(WGPUInstance instance, const DeviceOptions& options) {
    WGPUInstanceEnumerateAdapterOptions opts = {};
    opts.backends = backends_for(options.backend);
    size_t count = wgpuInstanceEnumerateAdapters(instance, &opts, nullptr);
    std::vector<WGPUAdapter> raw(count);
    if (count > 0) count = wgpuInstanceEnumerateAdapters(instance, &opts, raw.data());
    std::vector<Adapter> out;
    for (size_t i = 0; i < count; ++i) out.push_back(Adapter::adopt(raw[i]));
    return out;
}

void wait(WGPUInstance instance, WGPUDevice device, uint64_t submission) {
    WGPUSubmissionIndex index = submission;
    wgpuDevicePoll(device, true, submission ? &index : nullptr);
    wgpuInstanceProcessEvents(instance);
}

void process_events(WGPUInstance instance, WGPUDevice device) {
    wgpuDevicePoll(device, false, nullptr);
    wgpuInstanceProcessEvents(instance);
}

uint64_t submit(WGPUQueue queue, WGPUCommandBuffer commands) {
    return wgpuQueueSubmitForIndex(queue, 1, &commands);
}

std::string implementation_name() {
    uint32_t v = wgpuGetVersion();
    return fmt::format("wgpu-native {}.{}.{}.{}", (v >> 24) & 0xff, (v >> 16) & 0xff,
                       (v >> 8) & 0xff, v & 0xff);
}

void route_logs() {
    static std::once_flag once;
    std::call_once(once, [] {
        wgpuSetLogCallback(
            [](WGPULogLevel level, WGPUStringView message, void*) {
                LogLevel l = from_wgpu_level(level);
                if (log::enabled(l)) log::write(l, "wgpu: " + from_wgpu(message));
            },
            nullptr);
        // wgpu-native filters before calling back; keep its filter at our level so that quiet
        // runs do not pay for formatting its debug output.
        log::set_level_listener([](LogLevel level) { wgpuSetLogLevel(to_wgpu_level(level)); });
    });
    wgpuSetLogLevel(to_wgpu_level(log_level()));
}

std::vector<WGPUFeatureName> extra_features(WGPUAdapter adapter, DeviceFeatures& offered) {
    std::vector<WGPUFeatureName> out;
    auto native_feature = [&](WGPUNativeFeature f, bool& flag) {
        auto name = static_cast<WGPUFeatureName>(f);
        if (wgpuAdapterHasFeature(adapter, name)) {
            flag = true;
            out.push_back(name);
        }
    };
    native_feature(WGPUNativeFeature_TimestampQueryInsidePasses, offered.timestamp_inside_passes);
    if (!offered.subgroups) native_feature(WGPUNativeFeature_Subgroup, offered.subgroups);
    return out;
}

}  // namespace wgx::gpu::native

namespace wgx::gpu::native {

ShaderModule create_shader_module(WGPUDevice device, const WGPUShaderModuleDescriptor& desc,
                                  bool checks) {
    if (checks) return ShaderModule::adopt(wgpuDeviceCreateShaderModule(device, &desc));
    return ShaderModule::adopt(
        wgpuDeviceCreateShaderModuleTrusted(device, &desc, WGPUShaderRuntimeChecks_None));
}

bool can_skip_shader_checks() { return true; }

bool write_timestamp_in_pass(WGPUComputePassEncoder pass, WGPUQuerySet set, uint32_t index) {
    wgpuComputePassEncoderWriteTimestamp(pass, set, index);
    return true;
}

double timestamp_period_ns(WGPUQueue queue) { return wgpuQueueGetTimestampPeriod(queue); }

}  // namespace wgx::gpu::native
