// wgx info --device: adapters, the chosen one, its backend, limits and features.
#include <fmt/format.h>

#include "commands.h"
#include "wgx/wgx.h"

namespace wgx::cli {
namespace {

const char* yes_no(bool v) { return v ? "yes" : "no"; }

void print_device(const GlobalOptions& global) {
    fmt::print("WebGPU implementation: {}\n", webgpu_implementation());
    auto adapters = list_adapters(global.device);
    fmt::print("Adapters ({}):\n", adapters.size());
    for (const auto& a : adapters) {
        fmt::print("  #{} {} [{}, {}] vendor 0x{:04x} device 0x{:04x}; driver: {}\n", a.index,
                   a.name, to_string(a.type), a.backend, a.vendor_id, a.device_id, a.driver);
    }
    Context ctx = Context::create(global.device);
    const DeviceInfo& info = ctx.device_info();
    const DeviceLimits& l = info.limits;
    fmt::print("Chosen: #{} {} ({}, {})\n", info.adapter.index, info.adapter.name,
               to_string(info.adapter.type), info.adapter.backend);
    if (info.adapter.subgroup_min_size) {
        fmt::print("Subgroup size: {}..{}\n", info.adapter.subgroup_min_size,
                   info.adapter.subgroup_max_size);
    }
    fmt::print("Features (offered / granted):\n");
    fmt::print("  shader-f16               {} / {}\n", yes_no(info.adapter_features.shader_f16),
               yes_no(info.features.shader_f16));
    fmt::print("  timestamp-query          {} / {}\n", yes_no(info.adapter_features.timestamp_query),
               yes_no(info.features.timestamp_query));
    fmt::print("  timestamps inside passes {} / {}\n",
               yes_no(info.adapter_features.timestamp_inside_passes),
               yes_no(info.features.timestamp_inside_passes));
    fmt::print("  subgroups                {} / {}\n", yes_no(info.adapter_features.subgroups),
               yes_no(info.features.subgroups));
    fmt::print("Limits:\n");
    fmt::print("  maxComputeInvocationsPerWorkgroup  {}\n", l.max_workgroup_invocations);
    fmt::print("  maxComputeWorkgroupSize            {} x {} x {}\n", l.max_workgroup_size_x,
               l.max_workgroup_size_y, l.max_workgroup_size_z);
    fmt::print("  maxComputeWorkgroupsPerDimension   {}\n", l.max_workgroups_per_dimension);
    fmt::print("  maxComputeWorkgroupStorageSize     {}\n", l.max_workgroup_storage_bytes);
    fmt::print("  maxStorageBuffersPerShaderStage    {}\n", l.max_storage_buffers_per_stage);
    fmt::print("  maxUniformBuffersPerShaderStage    {}\n", l.max_uniform_buffers_per_stage);
    fmt::print("  maxBindingsPerBindGroup            {}\n", l.max_bindings_per_group);
    fmt::print("  minStorageBufferOffsetAlignment    {}\n", l.min_storage_offset_alignment);
    fmt::print("  minUniformBufferOffsetAlignment    {}\n", l.min_uniform_offset_alignment);
    fmt::print("  maxStorageBufferBindingSize        {}\n", l.max_storage_binding_bytes);
    fmt::print("  maxUniformBufferBindingSize        {}\n", l.max_uniform_binding_bytes);
    fmt::print("  maxBufferSize                      {}\n", l.max_buffer_bytes);
}

}  // namespace

void add_info_command(CLI::App& app, GlobalOptions& global, Action& action) {
    auto* cmd = app.add_subcommand("info", "Describe the GPU device (--device)");
    static bool device = false;
    cmd->add_flag("--device", device, "Print adapters, the chosen one, limits and features");
    cmd->callback([&global, &action] {
        action = [&global] {
            if (!device) {
                fmt::print(stderr, "wgx info: give --device (model files come later)\n");
                return 2;
            }
            print_device(global);
            return 0;
        };
    });
}

}  // namespace wgx::cli
