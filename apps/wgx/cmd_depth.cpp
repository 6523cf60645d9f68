// wgx depth IMAGE -o out.png [--raw-out map.npy] [--json] [--model CARD]: relative depth,
// normalised by percentiles and colour-mapped on the GPU (docs/DEMOS.md).
#include <fmt/format.h>

#include "demo_common.h"
#include "vision/demo_json.h"

namespace wgx::cli {
namespace {

void show(const vision::ModelCard& card, const std::string& image, const vision::FrameResult& r,
          const std::string& output, const std::string& raw_out, bool json) {
    if (!output.empty()) vision::save_png(output, vision::to_rgb(r.picture));
    if (!raw_out.empty()) write_map_npy(raw_out, r);
    if (json) {
        fmt::print("{}\n", vision::depth_json(card, image, r, output).dump());
        return;
    }
    const auto& d = std::get<vision::DepthDecode>(card.decode);
    fmt::print("{}: depth map {}x{}, percentiles {}..{}: {:.5g}..{:.5g} (larger is {})\n", image,
               r.map_width, r.map_height, d.low_percentile, d.high_percentile, r.low, r.high,
               d.larger_is_far ? "far" : "near");
    if (!output.empty()) fmt::print("  written to {}\n", output);
    if (!raw_out.empty()) fmt::print("  map written to {}\n", raw_out);
}

}  // namespace

void add_depth_command(Cli& cli, GlobalOptions& global) {
    static DemoOptions opt;
    Command cmd = cli.subcommand("depth", "Estimate relative depth on a photo, colour-mapped");
    add_demo_options(cmd, opt, true);
    cmd.option("--raw-out", opt.raw_out,
               "Also write the model's depth map as float32 [H', W'] .npy");
    cmd.on_run([&global] {
        return run_demo(
            global, vision::Task::depth, opt,
            [](const vision::ModelCard& card, const std::string& image, const vision::Image&,
               const vision::FrameResult& r,
               const std::string& output) { show(card, image, r, output, opt.raw_out, opt.json); });
    });
}

}  // namespace wgx::cli
