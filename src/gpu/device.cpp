#include "gpu/device.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include "base/log.h"
#include "gpu/native.h"
#include "wgx/error.h"

namespace wgx::gpu {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::string env_or(const std::string& value, const char* name) {
    if (!value.empty()) return value;
    const char* env = std::getenv(name);
    return env ? std::string(env) : std::string();
}

// DeviceOptions::max_storage_binding_bytes, else WGX_MAX_STORAGE_BINDING; 0 when neither.
uint64_t binding_cap(const DeviceOptions& options) {
    if (options.max_storage_binding_bytes) return options.max_storage_binding_bytes;
    const char* env = std::getenv("WGX_MAX_STORAGE_BINDING");
    if (!env || !*env) return 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (*end != '\0' || env[0] == '-') {
        throw InvalidArgument(
            fmt::format("WGX_MAX_STORAGE_BINDING must be a number of bytes, got \"{}\".", env));
    }
    return v;
}

const char* backend_name(WGPUBackendType type) {
    switch (type) {
        case WGPUBackendType_Vulkan: return "Vulkan";
        case WGPUBackendType_Metal: return "Metal";
        case WGPUBackendType_D3D12: return "D3D12";
        case WGPUBackendType_D3D11: return "D3D11";
        case WGPUBackendType_OpenGL: return "OpenGL";
        case WGPUBackendType_OpenGLES: return "OpenGLES";
        case WGPUBackendType_WebGPU: return "WebGPU";
        case WGPUBackendType_Null: return "Null";
        default: return "Unknown";
    }
}

AdapterType adapter_type(WGPUAdapterType type) {
    switch (type) {
        case WGPUAdapterType_DiscreteGPU: return AdapterType::discrete;
        case WGPUAdapterType_IntegratedGPU: return AdapterType::integrated;
        case WGPUAdapterType_CPU: return AdapterType::cpu;
        default: return AdapterType::unknown;
    }
}

int auto_rank(AdapterType type) {
    switch (type) {
        case AdapterType::discrete: return 0;
        case AdapterType::integrated: return 1;
        case AdapterType::unknown: return 2;
        case AdapterType::cpu: return 3;
    }
    return 4;
}

std::string adapter_list(const std::vector<AdapterDescription>& all) {
    std::string out;
    for (const auto& a : all) {
        if (!out.empty()) out += ", ";
        out += fmt::format("#{} {} [{}, {}]", a.index, a.name, to_string(a.type), a.backend);
    }
    return out.empty() ? std::string("none") : out;
}

// Picks the adapter `options.adapter` asks for (see DeviceOptions).
int choose_adapter(const std::vector<AdapterDescription>& all, const DeviceOptions& options) {
    std::string want = lower(env_or(options.adapter, "WGX_ADAPTER"));
    bool allow_cpu = options.allow_cpu;
    if (const char* env = std::getenv("WGX_ALLOW_CPU"); env && std::string_view(env) == "0") {
        allow_cpu = false;
    }
    if (all.empty()) throw GpuError("No WebGPU adapter was found (is a Vulkan driver installed?).");
    if (want.empty() || want == "auto") {
        int best = -1;
        for (const auto& a : all) {
            if (a.type == AdapterType::cpu && !allow_cpu) continue;
            if (best < 0 || auto_rank(a.type) < auto_rank(all[best].type)) best = a.index;
        }
        if (best < 0) {
            throw GpuError(fmt::format(
                "No GPU adapter was found and CPU adapters are not allowed (adapters: {}).",
                adapter_list(all)));
        }
        return best;
    }
    for (AdapterType t : {AdapterType::discrete, AdapterType::integrated, AdapterType::cpu}) {
        if (want != to_string(t)) continue;
        for (const auto& a : all) {
            if (a.type == t) return a.index;
        }
        throw GpuError(
            fmt::format("No {} adapter was found (adapters: {}).", want, adapter_list(all)));
    }
    if (std::all_of(want.begin(), want.end(), [](unsigned char c) { return std::isdigit(c); })) {
        int index = std::atoi(want.c_str());
        if (index >= 0 && index < static_cast<int>(all.size())) return index;
        throw GpuError(fmt::format("Adapter index ({}) is out of range (adapters: {}).", index,
                                   adapter_list(all)));
    }
    for (const auto& a : all) {
        if (lower(a.name).find(want) != std::string::npos) return a.index;
    }
    throw GpuError(
        fmt::format("No adapter matches \"{}\" (adapters: {}).", want, adapter_list(all)));
}

DeviceLimits convert(const WGPULimits& l) {
    DeviceLimits d;
    d.max_workgroup_invocations = l.maxComputeInvocationsPerWorkgroup;
    d.max_workgroup_size_x = l.maxComputeWorkgroupSizeX;
    d.max_workgroup_size_y = l.maxComputeWorkgroupSizeY;
    d.max_workgroup_size_z = l.maxComputeWorkgroupSizeZ;
    d.max_workgroups_per_dimension = l.maxComputeWorkgroupsPerDimension;
    d.max_workgroup_storage_bytes = l.maxComputeWorkgroupStorageSize;
    d.max_storage_buffers_per_stage = l.maxStorageBuffersPerShaderStage;
    d.max_uniform_buffers_per_stage = l.maxUniformBuffersPerShaderStage;
    d.max_bindings_per_group = l.maxBindingsPerBindGroup;
    d.min_storage_offset_alignment = l.minStorageBufferOffsetAlignment;
    d.min_uniform_offset_alignment = l.minUniformBufferOffsetAlignment;
    d.max_storage_binding_bytes = l.maxStorageBufferBindingSize;
    d.max_uniform_binding_bytes = l.maxUniformBufferBindingSize;
    d.max_buffer_bytes = l.maxBufferSize;
    return d;
}

std::string_view error_type_name(WGPUErrorType type) {
    switch (type) {
        case WGPUErrorType_Validation: return "validation error";
        case WGPUErrorType_OutOfMemory: return "out of memory";
        case WGPUErrorType_Internal: return "internal error";
        default: return "error";
    }
}

// Collects the result of popping one error scope.
struct ScopeResult {
    bool done = false;
    WGPUErrorType type = WGPUErrorType_NoError;
    std::string message;
};

void on_scope_popped(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message,
                     void* userdata1, void*) {
    auto* r = static_cast<ScopeResult*>(userdata1);
    r->done = true;
    if (status == WGPUPopErrorScopeStatus_Success) {
        r->type = type;
        r->message = from_wgpu(message);
    }
}

}  // namespace

AdapterDescription describe(WGPUAdapter adapter, int index) {
    WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
    AdapterDescription d;
    d.index = index;
    if (wgpuAdapterGetInfo(adapter, &info) == WGPUStatus_Success) {
        d.name = from_wgpu(info.device);
        d.vendor = from_wgpu(info.vendor);
        d.architecture = from_wgpu(info.architecture);
        d.driver = from_wgpu(info.description);
        d.backend = backend_name(info.backendType);
        d.type = adapter_type(info.adapterType);
        d.vendor_id = info.vendorID;
        d.device_id = info.deviceID;
        d.subgroup_min_size = info.subgroupMinSize;
        d.subgroup_max_size = info.subgroupMaxSize;
        wgpuAdapterInfoFreeMembers(info);
    }
    return d;
}

std::shared_ptr<Device> Device::create(const DeviceOptions& given) {
    DeviceOptions options = given;
    options.backend = env_or(options.backend, "WGX_BACKEND");
    native::route_logs();

    std::shared_ptr<Device> self(new Device());
    self->instance_ = native::create_instance(options);
    std::vector<Adapter> adapters = native::enumerate_adapters(self->instance_.get(), options);
    std::vector<AdapterDescription> all;
    for (size_t i = 0; i < adapters.size(); ++i) {
        all.push_back(describe(adapters[i].get(), static_cast<int>(i)));
    }
    int chosen = choose_adapter(all, options);
    self->adapter_ = adapters[chosen];
    WGPUAdapter adapter = self->adapter_.get();
    DeviceInfo& info = self->info_;
    info.adapter = all[chosen];
    log::info("adapter: {} ({}, {})", info.adapter.name, to_string(info.adapter.type),
              info.adapter.backend);

    // Optional features: ask for each one the adapter offers.
    std::vector<WGPUFeatureName> features;
    auto offer = [&](WGPUFeatureName f, bool& flag) {
        if (wgpuAdapterHasFeature(adapter, f)) {
            flag = true;
            features.push_back(f);
        }
    };
    offer(WGPUFeatureName_ShaderF16, info.adapter_features.shader_f16);
    offer(WGPUFeatureName_TimestampQuery, info.adapter_features.timestamp_query);
    offer(WGPUFeatureName_Subgroups, info.adapter_features.subgroups);
    for (WGPUFeatureName f : native::extra_features(adapter, info.adapter_features)) {
        features.push_back(f);
    }
    if (!options.request_optional_features) features.clear();

    // The adapter's real limits, not the WebGPU defaults.
    WGPULimits limits = WGPU_LIMITS_INIT;
    if (wgpuAdapterGetLimits(adapter, &limits) != WGPUStatus_Success) {
        throw GpuError(fmt::format("Adapter {} did not report its limits.", info.adapter.name));
    }

    WGPUDeviceDescriptor desc = WGPU_DEVICE_DESCRIPTOR_INIT;
    desc.label = to_wgpu("wgx device");
    desc.requiredFeatureCount = features.size();
    desc.requiredFeatures = features.data();
    desc.requiredLimits = &limits;
    desc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
    desc.deviceLostCallbackInfo.callback = [](WGPUDevice const*, WGPUDeviceLostReason reason,
                                              WGPUStringView message, void* u1, void*) {
        if (reason == WGPUDeviceLostReason_CallbackCancelled) return;
        auto* dev = static_cast<Device*>(u1);
        std::string text = from_wgpu(message);
        if (reason == WGPUDeviceLostReason_Destroyed) text = "the device was destroyed";
        dev->on_device_lost(text.empty() ? std::string("no reason given") : text);
    };
    desc.deviceLostCallbackInfo.userdata1 = self.get();
    desc.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType type,
                                                   WGPUStringView message, void* u1, void*) {
        static_cast<Device*>(u1)->on_uncaptured_error(
            fmt::format("{}: {}", error_type_name(type), from_wgpu(message)));
    };
    desc.uncapturedErrorCallbackInfo.userdata1 = self.get();

    struct Request {
        bool done = false;
        WGPUDevice device = nullptr;
        std::string message;
    } request;
    WGPURequestDeviceCallbackInfo cb = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.callback = [](WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
                     void* u1, void*) {
        auto* r = static_cast<Request*>(u1);
        r->done = true;
        if (status == WGPURequestDeviceStatus_Success) {
            r->device = device;
        } else {
            r->message = from_wgpu(message);
        }
    };
    cb.userdata1 = &request;
    wgpuAdapterRequestDevice(adapter, &desc, cb);
    for (int i = 0; i < 1000 && !request.done; ++i)
        wgpuInstanceProcessEvents(self->instance_.get());
    if (!request.device) {
        throw GpuError(fmt::format("Creating a device on {} failed: {}", info.adapter.name,
                                   request.done ? request.message : "no answer"));
    }
    self->device_ = DeviceHandle::adopt(request.device);
    self->queue_ = Queue::adopt(wgpuDeviceGetQueue(request.device));

    WGPULimits granted = WGPU_LIMITS_INIT;
    wgpuDeviceGetLimits(request.device, &granted);
    info.limits = convert(granted);
    if (const uint64_t cap = binding_cap(options)) {
        // Only what the ops are told shrinks: the device keeps its real limit (one lower than
        // the WebGPU default could not be requested), and the recording checks every binding
        // against this one.
        uint64_t& limit = info.limits.max_storage_binding_bytes;
        limit = std::min(limit, std::max<uint64_t>(4, cap / 4 * 4));
        log::info("maxStorageBufferBindingSize capped at {} bytes", limit);
    }
    auto has = [&](WGPUFeatureName f) { return wgpuDeviceHasFeature(request.device, f) != 0; };
    info.features.shader_f16 = has(WGPUFeatureName_ShaderF16);
    info.features.timestamp_query = has(WGPUFeatureName_TimestampQuery);
    info.features.subgroups = has(WGPUFeatureName_Subgroups);
    info.features.timestamp_inside_passes =
        info.adapter_features.timestamp_inside_passes && options.request_optional_features;
    // One choice for every kernel when asked for, else the engine's own kernels unchecked.
    std::optional<bool> every = options.shader_checks;
    if (!every) {
        if (const char* env = std::getenv("WGX_SHADER_CHECKS"))
            every = std::string_view(env) != "0";
    }
    const bool must_check = !native::can_skip_shader_checks();
    info.shader_checks = every.value_or(true) || must_check;
    info.builtin_shader_checks = every.value_or(false) || must_check;
#if WGX_WGPU_NATIVE
    info.features.subgroups =
        info.features.subgroups || has(static_cast<WGPUFeatureName>(WGPUNativeFeature_Subgroup));
#endif
    return self;
}

Device::~Device() {
    // The lost callback may fire while the device is released; it must not see a half-destroyed
    // object, so release the GPU objects while every member is still alive.
    staging_.clear();
    {
        std::lock_guard lock(errors_mutex_);
        lost_ = true;
        lost_message_ = "the device was released";
    }
    queue_ = Queue();
    device_ = DeviceHandle();
    adapter_ = Adapter();
    instance_ = Instance();
}

void Device::on_device_lost(std::string message) {
    std::lock_guard lock(errors_mutex_);
    if (lost_) return;
    lost_ = true;
    lost_message_ = std::move(message);
    log::warn("device lost: {}", lost_message_);
}

void Device::on_uncaptured_error(std::string message) {
    std::lock_guard lock(errors_mutex_);
    log::debug("uncaptured WebGPU error: {}", message);
    uncaptured_errors_.push_back(std::move(message));
}

bool Device::lost() const {
    std::lock_guard lock(errors_mutex_);
    return lost_;
}

void Device::check() const {
    std::vector<std::string> errors;
    {
        std::lock_guard lock(errors_mutex_);
        if (lost_) {
            throw DeviceLost(
                fmt::format("The GPU device is lost ({}); create a new context.", lost_message_));
        }
        errors.swap(const_cast<Device*>(this)->uncaptured_errors_);
    }
    if (!errors.empty()) {
        std::string text = fmt::format("WebGPU reported {} error(s): {}", errors.size(), errors[0]);
        for (size_t i = 1; i < errors.size() && i < 5; ++i) text += "; " + errors[i];
        throw GpuError(text);
    }
}

void Device::destroy() {
    {
        std::lock_guard lock(staging_mutex_);
        staging_.clear();
        staging_bytes_ = 0;
    }
    if (device_) wgpuDeviceDestroy(device_.get());
    // wgpu-native reports the loss through the callback; make sure it is recorded either way.
    on_device_lost("the device was destroyed");
}

Buffer Device::create_buffer(uint64_t size, BufferUsage usage, std::string_view label) {
    check();
    uint64_t padded = std::max<uint64_t>(4, (size + 3) / 4 * 4);
    if (padded > info_.limits.max_buffer_bytes) {
        throw InvalidArgument(fmt::format(
            "Buffer \"{}\" of {} bytes is larger than the device allows (maxBufferSize {}).", label,
            size, info_.limits.max_buffer_bytes));
    }
    WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
    desc.label = to_wgpu(label);
    desc.size = padded;
    switch (usage) {
        case BufferUsage::storage:
            desc.usage =
                WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
            break;
        case BufferUsage::uniform:
            desc.usage = WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst;
            break;
        case BufferUsage::readback:
            desc.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
            break;
        case BufferUsage::query_resolve:
            desc.usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
            break;
    }
    wgpuDevicePushErrorScope(device_.get(), WGPUErrorFilter_OutOfMemory);
    wgpuDevicePushErrorScope(device_.get(), WGPUErrorFilter_Validation);
    Buffer buffer = Buffer::adopt(wgpuDeviceCreateBuffer(device_.get(), &desc));
    ScopeResult validation, memory;
    for (ScopeResult* r : {&validation, &memory}) {
        WGPUPopErrorScopeCallbackInfo cb = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
        cb.mode = WGPUCallbackMode_AllowProcessEvents;
        cb.callback = on_scope_popped;
        cb.userdata1 = r;
        wgpuDevicePopErrorScope(device_.get(), cb);
    }
    wait_until(memory.done, "creating a buffer");
    for (const ScopeResult* r : {&memory, &validation}) {
        if (r->type != WGPUErrorType_NoError) {
            throw GpuError(fmt::format("Creating buffer \"{}\" of {} bytes failed ({}): {}", label,
                                       padded, error_type_name(r->type), r->message));
        }
    }
    return buffer;
}

Device::BufferFacts Device::facts(WGPUBuffer buffer) {
    BufferFacts f;
    f.size = wgpuBufferGetSize(buffer);
    WGPUBufferUsage usage = wgpuBufferGetUsage(buffer);
    f.storage = (usage & WGPUBufferUsage_Storage) != 0;
    f.copy_src = (usage & WGPUBufferUsage_CopySrc) != 0;
    f.copy_dst = (usage & WGPUBufferUsage_CopyDst) != 0;
    return f;
}

Buffer Device::retain(WGPUBuffer buffer) {
    wgpuBufferAddRef(buffer);
    return Buffer::adopt(buffer);
}

void Device::destroy_buffer(WGPUBuffer buffer) { wgpuBufferDestroy(buffer); }

void Device::write_buffer(WGPUBuffer buffer, uint64_t offset, const void* data, uint64_t size) {
    check();
    const auto* bytes = static_cast<const uint8_t*>(data);
    for (uint64_t done = 0; done < size;) {
        const uint64_t piece = std::min(size - done, kMaxUnsubmittedWriteBytes);
        if (unsubmitted_write_bytes_ > 0 &&
            unsubmitted_write_bytes_ + piece > kMaxUnsubmittedWriteBytes) {
            // An empty command buffer: the submit carries the staged writes.
            CommandEncoder encoder =
                CommandEncoder::adopt(wgpuDeviceCreateCommandEncoder(device_.get(), nullptr));
            CommandBuffer commands =
                CommandBuffer::adopt(wgpuCommandEncoderFinish(encoder.get(), nullptr));
            wait_for(submit(commands.get()));
        }
        wgpuQueueWriteBuffer(queue_.get(), buffer, offset + done, bytes + done, piece);
        unsubmitted_write_bytes_ += piece;
        done += piece;
    }
}

void Device::copy_buffer_now(WGPUBuffer src, uint64_t src_offset, WGPUBuffer dst,
                             uint64_t dst_offset, uint64_t size) {
    check();
    CommandEncoder encoder =
        CommandEncoder::adopt(wgpuDeviceCreateCommandEncoder(device_.get(), nullptr));
    wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), src, src_offset, dst, dst_offset, size);
    CommandBuffer commands = CommandBuffer::adopt(wgpuCommandEncoderFinish(encoder.get(), nullptr));
    submit(commands.get());
}

std::vector<uint8_t> Device::read_buffer(WGPUBuffer buffer, uint64_t offset, uint64_t size) {
    std::vector<uint8_t> out(size);
    read_buffer(buffer, offset, out);
    return out;
}

void Device::read_buffer(WGPUBuffer buffer, uint64_t offset, std::span<uint8_t> dst) {
    check();
    const uint64_t size = dst.size();
    uint64_t padded = std::max<uint64_t>(4, (size + 3) / 4 * 4);
    Buffer staging = take_staging(padded);
    copy_buffer_now(buffer, offset, staging.get(), 0, padded);

    struct Map {
        bool done = false;
        WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
        std::string message;
    } map;
    WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView message, void* u1, void*) {
        auto* m = static_cast<Map*>(u1);
        m->done = true;
        m->status = status;
        m->message = from_wgpu(message);
    };
    cb.userdata1 = &map;
    wgpuBufferMapAsync(staging.get(), WGPUMapMode_Read, 0, padded, cb);
    wait_until(map.done, "reading a buffer back");
    check();
    if (map.status != WGPUMapAsyncStatus_Success) {
        throw GpuError(
            fmt::format("Mapping a readback buffer of {} bytes failed: {}", padded, map.message));
    }
    const void* mapped = wgpuBufferGetConstMappedRange(staging.get(), 0, padded);
    if (mapped == nullptr) throw GpuError("The mapped readback range is not accessible.");
    std::memcpy(dst.data(), mapped, size);
    wgpuBufferUnmap(staging.get());
    keep_staging(padded, std::move(staging));
}

Buffer Device::take_staging(uint64_t bytes) {
    {
        std::lock_guard lock(staging_mutex_);
        if (auto it = staging_.find(bytes); it != staging_.end()) {
            Buffer b = std::move(it->second);
            staging_.erase(it);
            staging_bytes_ -= bytes;
            return b;
        }
    }
    return create_buffer(bytes, BufferUsage::readback, "wgx readback");
}

void Device::keep_staging(uint64_t bytes, Buffer buffer) {
    std::lock_guard lock(staging_mutex_);
    if (staging_bytes_ + bytes > kStagingCacheBytes) return;  // released here instead
    staging_.emplace(bytes, std::move(buffer));
    staging_bytes_ += bytes;
}

ComputePipeline Device::create_compute_pipeline(std::string_view label, std::string_view wgsl,
                                                bool builtin,
                                                std::span<const OverrideConstant> overrides) {
    check();
    // wgpu-native accepts only the Validation and OutOfMemory filters (Internal aborts it).
    wgpuDevicePushErrorScope(device_.get(), WGPUErrorFilter_OutOfMemory);
    wgpuDevicePushErrorScope(device_.get(), WGPUErrorFilter_Validation);

    WGPUShaderSourceWGSL source = WGPU_SHADER_SOURCE_WGSL_INIT;
    source.code = to_wgpu(wgsl);
    WGPUShaderModuleDescriptor module_desc = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
    module_desc.nextInChain = &source.chain;
    module_desc.label = to_wgpu(label);
    ShaderModule module = native::create_shader_module(
        device_.get(), module_desc, builtin ? info_.builtin_shader_checks : info_.shader_checks);

    std::vector<WGPUConstantEntry> constants;
    for (const auto& o : overrides) {
        WGPUConstantEntry e = WGPU_CONSTANT_ENTRY_INIT;
        e.key = to_wgpu(o.name);
        e.value = o.value;
        constants.push_back(e);
    }
    WGPUComputePipelineDescriptor desc = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
    desc.label = to_wgpu(label);
    desc.compute.module = module.get();
    desc.compute.entryPoint = to_wgpu("main");
    desc.compute.constantCount = constants.size();
    desc.compute.constants = constants.data();
    ComputePipeline pipeline =
        ComputePipeline::adopt(wgpuDeviceCreateComputePipeline(device_.get(), &desc));

    ScopeResult validation, memory;
    for (ScopeResult* r : {&validation, &memory}) {
        WGPUPopErrorScopeCallbackInfo cb = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
        cb.mode = WGPUCallbackMode_AllowProcessEvents;
        cb.callback = on_scope_popped;
        cb.userdata1 = r;
        wgpuDevicePopErrorScope(device_.get(), cb);
    }
    wait_until(memory.done, "compiling a shader");
    for (const ScopeResult* r : {&validation, &memory}) {
        if (r->type != WGPUErrorType_NoError) {
            throw GpuError(fmt::format("Compiling the shader of {} failed ({}):\n{}", label,
                                       error_type_name(r->type), r->message));
        }
    }
    return pipeline;
}

BindGroup Device::create_bind_group(std::string_view label, WGPUComputePipeline pipeline,
                                    std::span<const BufferBinding> entries) {
    check();
    BindGroupLayout layout =
        BindGroupLayout::adopt(wgpuComputePipelineGetBindGroupLayout(pipeline, 0));
    std::vector<WGPUBindGroupEntry> raw;
    raw.reserve(entries.size());
    for (const auto& e : entries) {
        WGPUBindGroupEntry r = WGPU_BIND_GROUP_ENTRY_INIT;
        r.binding = e.binding;
        r.buffer = e.buffer;
        r.offset = e.offset;
        r.size = e.size;
        raw.push_back(r);
    }
    WGPUBindGroupDescriptor desc = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
    desc.label = to_wgpu(label);
    desc.layout = layout.get();
    desc.entryCount = raw.size();
    desc.entries = raw.data();
    wgpuDevicePushErrorScope(device_.get(), WGPUErrorFilter_Validation);
    BindGroup group = BindGroup::adopt(wgpuDeviceCreateBindGroup(device_.get(), &desc));
    ScopeResult validation;
    WGPUPopErrorScopeCallbackInfo cb = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
    cb.mode = WGPUCallbackMode_AllowProcessEvents;
    cb.callback = on_scope_popped;
    cb.userdata1 = &validation;
    wgpuDevicePopErrorScope(device_.get(), cb);
    wait_until(validation.done, "creating a bind group");
    if (validation.type != WGPUErrorType_NoError) {
        throw GpuError(fmt::format("Binding the buffers of {} failed ({}): {}", label,
                                   error_type_name(validation.type), validation.message));
    }
    return group;
}

uint64_t Device::submit(WGPUCommandBuffer commands) {
    check();
    last_submission_ = native::submit(queue_.get(), commands);
    unsubmitted_write_bytes_ = 0;
    return last_submission_;
}

void Device::wait_for(uint64_t submission) {
    check();
    native::wait(instance_.get(), device_.get(), submission);
    check();
}

QuerySet Device::create_timestamp_queries(uint32_t count, std::string_view label) {
    check();
    if (!info_.features.timestamp_query) {
        throw InvalidArgument(
            "Timing dispatches needs the timestamp-query feature, which this "
            "device does not have.");
    }
    WGPUQuerySetDescriptor desc = WGPU_QUERY_SET_DESCRIPTOR_INIT;
    desc.label = to_wgpu(label);
    desc.type = WGPUQueryType_Timestamp;
    desc.count = count;
    QuerySet set = QuerySet::adopt(wgpuDeviceCreateQuerySet(device_.get(), &desc));
    if (!set) throw GpuError(fmt::format("Creating {} timestamp queries failed.", count));
    return set;
}

double Device::timestamp_period_ns() const { return native::timestamp_period_ns(queue_.get()); }

void Device::wait_idle() {
    check();
    native::wait(instance_.get(), device_.get(), 0);
    check();
}

void Device::wait_until(const bool& done, std::string_view what) {
    // Callbacks fire while the implementation processes events. A blocking wait for the queue
    // to drain covers work that is still running; no loop here spins on a busy device.
    for (int attempt = 0; attempt < 4 && !done; ++attempt) {
        native::process_events(instance_.get(), device_.get());
        if (done) return;
        if (lost()) break;
        native::wait(instance_.get(), device_.get(), 0);
    }
    if (!done) {
        check();
        throw GpuError(fmt::format("The WebGPU implementation never answered while {}.", what));
    }
}

}  // namespace wgx::gpu

namespace wgx {

const char* to_string(AdapterType type) {
    switch (type) {
        case AdapterType::discrete: return "discrete";
        case AdapterType::integrated: return "integrated";
        case AdapterType::cpu: return "cpu";
        case AdapterType::unknown: return "other";
    }
    return "other";
}

std::vector<AdapterDescription> list_adapters(const DeviceOptions& given) {
    DeviceOptions options = given;
    if (options.backend.empty()) {
        if (const char* env = std::getenv("WGX_BACKEND")) options.backend = env;
    }
    gpu::native::route_logs();
    gpu::Instance instance = gpu::native::create_instance(options);
    std::vector<gpu::Adapter> adapters = gpu::native::enumerate_adapters(instance.get(), options);
    std::vector<AdapterDescription> out;
    for (size_t i = 0; i < adapters.size(); ++i) {
        out.push_back(gpu::describe(adapters[i].get(), static_cast<int>(i)));
    }
    return out;
}

std::string webgpu_implementation() { return gpu::native::implementation_name(); }

}  // namespace wgx
