// Dawn specifics: Dawn implements the same webgpu.h, but has no adapter enumeration or device
// poll; waits go through futures and wgpuInstanceWaitAny (TimedWaitAny instance feature).
// Selected with -DWGX_WEBGPU_FLAVOR=dawn. No registry this project uses ships Dawn with its
// headers, so this path is compiled against the standard header but not run in CI.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

#include "base/log.h"
#include "gpu/native.h"
#include "wgx/error.h"

namespace wgx::gpu::native {
namespace {

void wait_future(WGPUInstance instance, WGPUFuture future, const char* what) {
    WGPUFutureWaitInfo info = {future, false};
    WGPUWaitStatus status = wgpuInstanceWaitAny(instance, 1, &info, UINT64_MAX);
    if (status != WGPUWaitStatus_Success) {
        throw GpuError(
            fmt::format("Waiting for {} failed (status {}).", what, static_cast<int>(status)));
    }
}

}  // namespace

Instance create_instance(const DeviceOptions&) {
    WGPUInstanceFeatureName timed = WGPUInstanceFeatureName_TimedWaitAny;
    WGPUInstanceDescriptor desc = WGPU_INSTANCE_DESCRIPTOR_INIT;
    desc.requiredFeatureCount = 1;
    desc.requiredFeatures = &timed;
    Instance instance = Instance::adopt(wgpuCreateInstance(&desc));
    if (!instance) throw GpuError("Creating the WebGPU (Dawn) instance failed.");
    return instance;
}

std::vector<Adapter> enumerate_adapters(WGPUInstance instance, const DeviceOptions&) {
    // Without enumeration, ask for the high-performance, the low-power and the fallback
    // adapter, and keep the distinct ones.
    struct Ask {
        WGPUPowerPreference power;
        bool fallback;
    };
    constexpr std::array<Ask, 3> asks = {Ask{WGPUPowerPreference_HighPerformance, false},
                                         Ask{WGPUPowerPreference_LowPower, false},
                                         Ask{WGPUPowerPreference_Undefined, true}};
    std::vector<Adapter> out;
    std::vector<std::string> seen;
    for (const Ask& ask : asks) {
        WGPURequestAdapterOptions opts = WGPU_REQUEST_ADAPTER_OPTIONS_INIT;
        opts.powerPreference = ask.power;
        opts.forceFallbackAdapter = ask.fallback;
        WGPUAdapter adapter = nullptr;
        WGPURequestAdapterCallbackInfo cb = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
        cb.mode = WGPUCallbackMode_WaitAnyOnly;
        cb.callback = [](WGPURequestAdapterStatus status, WGPUAdapter a, WGPUStringView, void* u1,
                         void*) {
            if (status == WGPURequestAdapterStatus_Success) *static_cast<WGPUAdapter*>(u1) = a;
        };
        cb.userdata1 = &adapter;
        wait_future(instance, wgpuInstanceRequestAdapter(instance, &opts, cb), "an adapter");
        if (adapter == nullptr) continue;
        Adapter handle = Adapter::adopt(adapter);
        AdapterDescription d = describe(adapter, 0);
        std::string key = d.name + "|" + d.backend + "|" + d.driver;
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
        seen.push_back(key);
        out.push_back(std::move(handle));
    }
    return out;
}

void wait(WGPUInstance instance, WGPUDevice device, uint64_t) {
    Queue queue = Queue::adopt(wgpuDeviceGetQueue(device));
    WGPUQueueWorkDoneCallbackInfo cb = WGPU_QUEUE_WORK_DONE_CALLBACK_INFO_INIT;
    cb.mode = WGPUCallbackMode_WaitAnyOnly;
    cb.callback = [](WGPUQueueWorkDoneStatus, WGPUStringView, void*, void*) {};
    wait_future(instance, wgpuQueueOnSubmittedWorkDone(queue.get(), cb), "the queue");
    wgpuInstanceProcessEvents(instance);
}

void process_events(WGPUInstance instance, WGPUDevice) { wgpuInstanceProcessEvents(instance); }

uint64_t submit(WGPUQueue queue, WGPUCommandBuffer commands) {
    // A non-zero token only (wait() drains the whole queue); shared by the contexts of all threads.
    static std::atomic<uint64_t> counter{0};
    wgpuQueueSubmit(queue, 1, &commands);
    return ++counter;
}

std::string implementation_name() { return "Dawn"; }

void route_logs() {}

std::vector<WGPUFeatureName> extra_features(WGPUAdapter, DeviceFeatures&) { return {}; }

}  // namespace wgx::gpu::native

namespace wgx::gpu::native {

// Dawn has no timestamp writes between dispatches in webgpu.h; callers time whole passes.
// Dawn has no call that drops the checks: every module keeps them.
ShaderModule create_shader_module(WGPUDevice device, const WGPUShaderModuleDescriptor& desc, bool) {
    return ShaderModule::adopt(wgpuDeviceCreateShaderModule(device, &desc));
}

bool can_skip_shader_checks() { return false; }

bool write_timestamp_in_pass(WGPUComputePassEncoder, WGPUQuerySet, uint32_t) { return false; }

// Dawn resolves timestamps in nanoseconds.
double timestamp_period_ns(WGPUQueue) { return 1.0; }

}  // namespace wgx::gpu::native
