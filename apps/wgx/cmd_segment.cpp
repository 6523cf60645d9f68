// wgx segment IMAGE -o out.png [--raw-out map.npy] [--json] [--model CARD]: a person/foreground
// mask composited over the photo on the GPU (docs/DEMOS.md).
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
        fmt::print("{}\n", vision::segment_json(card, image, r, output).dump());
        return;
    }
    fmt::print("{}: mask {}x{}", image, r.map_width, r.map_height);
    if (!r.map.empty()) {
        const auto& d = std::get<vision::SegmentDecode>(card.decode);
        fmt::print(", {:.1f}% of it at or above {}", 100.0 * vision::foreground_fraction(d, r.map),
                   d.threshold);
    }
    fmt::print("\n");
    if (!output.empty()) fmt::print("  written to {}\n", output);
    if (!raw_out.empty()) fmt::print("  map written to {}\n", raw_out);
}

}  // namespace

void add_segment_command(Cli& cli, GlobalOptions& global) {
    static DemoOptions opt;
    Command cmd = cli.subcommand("segment", "Segment the person/foreground of a photo");
    add_demo_options(cmd, opt, true);
    cmd.option("--raw-out", opt.raw_out,
               "Also write the model's output map (the card's channel) as float32 [H', W'] "
               ".npy");
    cmd.on_run([&global] {
        return run_demo(
            global, vision::Task::segment, opt,
            [](const vision::ModelCard& card, const std::string& image, const vision::Image&,
               const vision::FrameResult& r,
               const std::string& output) { show(card, image, r, output, opt.raw_out, opt.json); });
    });
}

}  // namespace wgx::cli
