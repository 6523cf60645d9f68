// wgx: the command-line tool of wgpu-executorch.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "commands.h"
#include "wgx/wgx.h"

int main(int argc, char** argv) {
    // Mesa's Vulkan drivers probe for a Wayland display at start-up and print an error for
    // every probe when XDG_RUNTIME_DIR is unset (headless machines, CI). Any existing
    // directory silences the probe; nothing is written there.
    setenv("XDG_RUNTIME_DIR", "/tmp", /*overwrite=*/0);
    CLI::App app{"wgx: run ExecuTorch programs on any GPU through WebGPU"};
    app.require_subcommand(0, 1);
    wgx::cli::GlobalOptions global;
    bool show_version = false;
    app.add_flag("--version", show_version, "Print the engine and WebGPU versions");
    app.add_option("--adapter", global.device.adapter,
                   "Adapter: auto, discrete, integrated, cpu, an index or part of a name "
                   "(default: $WGX_ADAPTER or auto)");
    app.add_option("--backend", global.device.backend,
                   "Backend: auto, vulkan, metal, dx12, gl (default: $WGX_BACKEND or auto)");
    app.add_flag("--no-cpu{false}", global.device.allow_cpu,
                 "Never fall back to a CPU (software) adapter");
    app.add_flag_callback(
        "--no-shader-checks", [&global] { global.device.shader_checks = false; },
        "Compile every shader without bounds checks and loop bounding (wgpu-native only; "
        "default: $WGX_SHADER_CHECKS, else the engine's own kernels without, others with)");
    app.add_flag_callback(
        "--shader-checks", [&global] { global.device.shader_checks = true; },
        "Compile every shader with bounds checks and loop bounding, the engine's own too");

    wgx::cli::Action action;
    wgx::cli::add_run_command(app, global, action);
    wgx::cli::add_info_command(app, global, action);
    wgx::cli::add_convert_command(app, global, action);
    wgx::cli::add_bench_command(app, global, action);
    wgx::cli::add_ops_command(app, global, action);
    wgx::cli::add_detect_command(app, global, action);
    wgx::cli::add_segment_command(app, global, action);
    wgx::cli::add_depth_command(app, global, action);
    wgx::cli::add_classify_command(app, global, action);
    wgx::cli::add_example_command(app, global, action);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    if (show_version) {
        fmt::print("wgx {} ({})\n", wgx::version(), wgx::webgpu_implementation());
        return 0;
    }
    if (!action) {
        fmt::print("{}", app.help());
        return 0;
    }
    try {
        return action();
    } catch (const wgx::Error& e) {
        std::fflush(stdout);
        fmt::print(stderr, "wgx: error: {}\n", e.what());
        return 1;
    }
}
