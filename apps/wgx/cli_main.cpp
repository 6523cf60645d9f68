// wgx: the command-line tool of wgpu-executorch, as a function: the executable (main.cpp) and
// the Python package's `python -m wgx` (bindings/python) both run it.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "cli_main.h"
#include "commands.h"
#include "wgx/wgx.h"

int wgx::cli::run_main(int argc, char** argv) {
    // Mesa's Vulkan drivers probe for a Wayland display at start-up and print an error for
    // every probe when XDG_RUNTIME_DIR is unset (headless machines, CI). Any existing
    // directory silences the probe; nothing is written there.
    setenv("XDG_RUNTIME_DIR", "/tmp", /*overwrite=*/0);
    wgx::cli::Cli cli("wgx: run ExecuTorch programs on any GPU through WebGPU");
    wgx::cli::GlobalOptions global;
    bool show_version = false;
    cli.root()
        .flag("--version", show_version, "Print the engine and WebGPU versions")
        .option("--adapter", global.device.adapter,
                "Adapter: auto, discrete, integrated, cpu, an index or part of a name "
                "(default: $WGX_ADAPTER or auto)")
        .option("--backend", global.device.backend,
                "Backend: auto, vulkan, metal, dx12, gl (default: $WGX_BACKEND or auto)")
        .flag("--no-cpu{false}", global.device.allow_cpu,
              "Never fall back to a CPU (software) adapter")
        .flag(
            "--no-shader-checks", [&global] { global.device.shader_checks = false; },
            "Compile every shader without bounds checks and loop bounding (wgpu-native only; "
            "default: $WGX_SHADER_CHECKS, else the engine's own kernels without, others with)")
        .flag(
            "--shader-checks", [&global] { global.device.shader_checks = true; },
            "Compile every shader with bounds checks and loop bounding, the engine's own too");

    wgx::cli::add_run_command(cli, global);
    wgx::cli::add_generate_command(cli, global);
    wgx::cli::add_score_command(cli, global);
    wgx::cli::add_info_command(cli, global);
    wgx::cli::add_convert_command(cli, global);
    wgx::cli::add_bench_command(cli, global);
    wgx::cli::add_ops_command(cli, global);
    wgx::cli::add_detect_command(cli, global);
    wgx::cli::add_segment_command(cli, global);
    wgx::cli::add_depth_command(cli, global);
    wgx::cli::add_classify_command(cli, global);
    wgx::cli::add_example_command(cli, global);

    if (std::optional<int> done = cli.parse(argc, argv)) return *done;
    if (show_version) {
        fmt::print("wgx {} ({})\n", wgx::version(), wgx::webgpu_implementation());
        return 0;
    }
    if (!cli.chosen()) {
        fmt::print("{}", cli.help());
        return 0;
    }
    try {
        return cli.chosen()();
    } catch (const wgx::Error& e) {
        std::fflush(stdout);
        fmt::print(stderr, "wgx: error: {}\n", e.what());
        return 1;
    }
}
