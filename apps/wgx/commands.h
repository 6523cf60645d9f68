// The subcommands of the wgx tool; each adds itself to the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "wgx/device.h"

namespace wgx::cli {

// Options every command that opens a device shares (--adapter, --backend, --no-cpu).
struct GlobalOptions {
    DeviceOptions device;
};

using Action = std::function<int()>;

void add_info_command(CLI::App& app, GlobalOptions& global, Action& action);
void add_example_command(CLI::App& app, GlobalOptions& global, Action& action);
void add_run_command(CLI::App& app, GlobalOptions& global, Action& action);
void add_convert_command(CLI::App& app, GlobalOptions& global, Action& action);
void add_bench_command(CLI::App& app, GlobalOptions& global, Action& action);
void add_ops_command(CLI::App& app, GlobalOptions& global, Action& action);
void add_detect_command(CLI::App& app, GlobalOptions& global, Action& action);
void add_segment_command(CLI::App& app, GlobalOptions& global, Action& action);
void add_depth_command(CLI::App& app, GlobalOptions& global, Action& action);
void add_classify_command(CLI::App& app, GlobalOptions& global, Action& action);

}  // namespace wgx::cli
