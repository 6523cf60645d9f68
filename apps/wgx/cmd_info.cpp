// wgx info --device: adapters, the chosen one, its backend, limits and features.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "commands.h"
#include "graph/graph.h"
#include "graph/graph_check.h"
#include "graph/graph_summary.h"
#include "graph/load.h"
#include "graph/memory_plan.h"
#include "graph/schema/size_rules.h"
#include "ops/registry.h"
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
    fmt::print("  timestamp-query          {} / {}\n",
               yes_no(info.adapter_features.timestamp_query),
               yes_no(info.features.timestamp_query));
    fmt::print("  timestamps inside passes {} / {}\n",
               yes_no(info.adapter_features.timestamp_inside_passes),
               yes_no(info.features.timestamp_inside_passes));
    fmt::print("  subgroups                {} / {}\n", yes_no(info.adapter_features.subgroups),
               yes_no(info.features.subgroups));
    fmt::print(
        "shader runtime checks (bounds checks, loop bounding): engine kernels {}, "
        "others {}\n",
        info.builtin_shader_checks ? "on" : "off", info.shader_checks ? "on" : "off");
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

// One argument of a call, short: "v12 f32[1, 197, 768]", "v3=2", "v7=[0, 2, 1]", "v9=\"silu\"",
// "none".
std::string describe_arg(const graph::Graph& g, int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= g.values.size()) return "none";
    const graph::Value& v = g.values[static_cast<size_t>(id)];
    if (const auto* t = std::get_if<graph::Tensor>(&v)) {
        return fmt::format("v{} {}{}{}", id, dtype_name(t->dtype), shape_string(t->dims),
                           t->constant_id >= 0 ? " const" : "");
    }
    if (const auto* i = std::get_if<graph::Int>(&v)) return fmt::format("v{}={}", id, i->value);
    if (const auto* d = std::get_if<graph::Double>(&v)) return fmt::format("v{}={}", id, d->value);
    if (const auto* b = std::get_if<graph::Bool>(&v)) return fmt::format("v{}={}", id, b->value);
    if (const auto* s = std::get_if<graph::String>(&v)) {
        return fmt::format("v{}=\"{}\"", id, s->value);
    }
    if (const auto* l = std::get_if<graph::IntList>(&v)) {
        return fmt::format("v{}=[{}]", id, fmt::join(l->items, ", "));
    }
    if (const auto* l = std::get_if<graph::ValueList>(&v)) {
        std::vector<std::string> items;
        for (int32_t item : l->items) items.push_back(describe_arg(g, item));
        return fmt::format("v{}=({})", id, fmt::join(items, ", "));
    }
    if (std::holds_alternative<graph::Null>(v)) return "none";
    return fmt::format("v{} {}", id, graph::value_kind_name(v));
}

// Every call of the graph that runs, in order, with its arguments (the output last).
void print_calls(const graph::Graph& g) {
    for (size_t i = 0; i < g.chain.size(); ++i) {
        const graph::OpCall& call = g.chain[i];
        std::vector<std::string> args;
        for (int32_t id : call.args) args.push_back(describe_arg(g, id));
        const std::string out = args.empty() ? "" : args.back();
        if (!args.empty()) args.pop_back();
        fmt::print("  #{:<4} {}({}) -> {}\n", i, call.name, fmt::join(args, ", "), out);
    }
}

void print_model(const std::string& path, const std::string& method, bool float16, bool calls_too) {
    graph::LoadOptions load;
    load.method = method;
    graph::Graph g = graph::load_graph(path, load);
    graph::assign_memory_pools(g);
    fmt::print("{}\n", g.origin);
    auto methods = graph::method_names(path);
    fmt::print("methods: {}\n", fmt::join(methods, ", "));
    for (const ConstantMethod& m : Program::constant_methods(path)) {
        fmt::print("  {} = {}\n", m.name, constant_values_text(m.values));
    }

    auto describe = [&](int32_t id) {
        const auto& t = std::get<graph::Tensor>(g.values[id]);
        return fmt::format("value {} {} {}{}{}", id, dtype_name(t.dtype), shape_string(t.dims),
                           t.name.empty() ? "" : " " + t.name, t.dynamic_bound ? " (bound)" : "");
    };
    for (int32_t id : g.input_ids) fmt::print("input:  {}\n", describe(id));
    for (int32_t id : g.output_ids) fmt::print("output: {}\n", describe(id));

    std::map<std::string_view, size_t> kinds;
    for (const auto& v : g.values) kinds[graph::value_kind_name(v)]++;
    fmt::print("values: {}", g.values.size());
    for (const auto& [kind, n] : kinds) fmt::print(", {} {}", n, kind);
    fmt::print("\n");

    uint64_t constant_bytes = 0;
    for (const auto& c : g.constants) constant_bytes += c.bytes.size();
    fmt::print("constants: {} ({} bytes)\n", g.constants.size(), constant_bytes);

    std::map<int32_t, uint64_t> pools = graph::pool_sizes(g);
    uint64_t pool_bytes = 0;
    for (const auto& [id, bytes] : pools) pool_bytes += bytes;
    fmt::print("memory pools: {} ({} bytes on the GPU)\n", pools.size(), pool_bytes);
    for (const auto& [id, bytes] : pools) fmt::print("  pool {}: {} bytes\n", id, bytes);

    auto counts = graph::count_ops(g);
    fmt::print("ops: {} calls of {} kinds\n", g.chain.size(), counts.size());
    std::vector<graph::OpCount> missing;
    for (const auto& c : counts) {
        const bool host = graph::is_host_op(c.name);
        const bool ok = host || ops::find(c.name) != nullptr;
        if (!ok) missing.push_back(c);
        fmt::print("  {:5}  {}{}\n", c.count, c.name,
                   host ? "   (on the CPU)"
                   : ok ? ""
                        : "   (unsupported)");
    }
    if (missing.empty()) {
        fmt::print("unsupported ops: none\n");
    } else {
        fmt::print("unsupported ops: {}\n", graph::op_counts_text(missing));
        return;
    }

    // What runs: the graph after the load-time passes (prepack folding, fusion), as the
    // counts that changed.
    ProgramOptions options;
    options.method = method;
    options.float16 = float16;
    const Program program = Program::load(path, options);
    std::map<std::string, int64_t> before, after;
    for (const auto& c : counts) before[c.name] = int64_t(c.count);
    size_t calls = 0;
    for (const auto& c : program.op_counts()) {
        after[c.name] = int64_t(c.count);
        calls += c.count;
    }
    auto planned = graph::pool_sizes(program.graph());
    uint64_t planned_bytes = graph::pool_bytes(program.graph());
    fmt::print(
        "after graph passes (what runs{}): {} calls, {} memory pools ({} bytes on the GPU)\n",
        float16 ? ", float16" : "", calls, planned.size(), planned_bytes);
    std::map<std::string, std::pair<int64_t, int64_t>> changed;
    for (const auto& [name, n] : before) changed[name].first = n;
    for (const auto& [name, n] : after) changed[name].second = n;
    for (const auto& [name, n] : changed) {
        if (n.first != n.second) fmt::print("  {:5} -> {:<5} {}\n", n.first, n.second, name);
    }
    if (calls_too) {
        fmt::print("calls (after graph passes):\n");
        print_calls(program.graph());
    }
}

}  // namespace

void add_ops_command(Cli& cli, GlobalOptions&) {
    Command cmd = cli.subcommand("ops", "List the built-in ops (graph names, then aliases)");
    static bool float16_only = false;
    cmd.flag("--float16", float16_only,
             "Only the ops that take float16 tensors (Op::accepts_float16), names only");
    cmd.on_run([] {
        for (const Op* op : builtin_ops()) {
            if (float16_only) {
                if (op->accepts_float16()) fmt::print("{}\n", op->name());
                continue;
            }
            fmt::print("{}", op->name());
            for (std::string_view alias : op->aliases()) fmt::print(" {}", alias);
            fmt::print("\n");
        }
        return 0;
    });
}

void add_info_command(Cli& cli, GlobalOptions& global) {
    Command cmd = cli.subcommand("info", "Describe a model (ops, values, pools) or the device");
    static bool device = false;
    static bool float16 = false, calls = false;
    static std::string model, method = "forward";
    cmd.flag("--device", device, "Print adapters, the chosen one, limits and features");
    cmd.option("model", model, "A .pte file, a program.json, or its directory");
    cmd.option("--method", method, "Method to describe", {.show_default = true});
    cmd.flag("--f16", float16, "Show what runs in float16 (the conversions the pass adds)");
    cmd.flag("--calls", calls, "Also list every call that runs, with its arguments");
    cmd.on_run([&global] {
        if (device) print_device(global);
        if (!model.empty()) print_model(model, method, float16, calls);
        if (!device && model.empty()) {
            fmt::print(stderr, "wgx info: give a MODEL or --device\n");
            return 2;
        }
        return 0;
    });
}

}  // namespace wgx::cli
