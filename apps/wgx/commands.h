// The subcommands of the wgx tool; each adds itself to the command line (cli.h).
#pragma once

#include "cli.h"
#include "wgx/device.h"

namespace wgx::cli {

// Options every command that opens a device shares (--adapter, --backend, --no-cpu).
struct GlobalOptions {
    DeviceOptions device;
};

void add_info_command(Cli& cli, GlobalOptions& global);
void add_example_command(Cli& cli, GlobalOptions& global);
void add_run_command(Cli& cli, GlobalOptions& global);
void add_convert_command(Cli& cli, GlobalOptions& global);
void add_bench_command(Cli& cli, GlobalOptions& global);
void add_ops_command(Cli& cli, GlobalOptions& global);
void add_detect_command(Cli& cli, GlobalOptions& global);
void add_segment_command(Cli& cli, GlobalOptions& global);
void add_depth_command(Cli& cli, GlobalOptions& global);
void add_classify_command(Cli& cli, GlobalOptions& global);
void add_generate_command(Cli& cli, GlobalOptions& global);
void add_score_command(Cli& cli, GlobalOptions& global);

}  // namespace wgx::cli
