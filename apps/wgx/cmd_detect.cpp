// wgx detect IMAGE -o out.png [--json] [--model CARD]: objects found by a detection model,
// drawn as boxes with labels on the photo (docs/DEMOS.md).
#include <fmt/format.h>

#include "demo_common.h"
#include "vision/demo_json.h"
#include "vision/draw.h"

namespace wgx::cli {
namespace {

void show(const vision::ModelCard& card, const std::string& image, const vision::Image& photo,
          const vision::FrameResult& r, const std::string& output, bool json) {
    if (json) {
        fmt::print("{}\n", vision::detect_json(card, image, r).dump());
    } else {
        fmt::print("{}: {} object{}\n", image, r.detections.size(),
                   r.detections.size() == 1 ? "" : "s");
        for (const vision::Detection& d : r.detections) {
            fmt::print("  {:<16} {:.3f}  [{:.1f}, {:.1f}, {:.1f}, {:.1f}]\n", card.label(d.cls),
                       d.score, d.box.x1, d.box.y1, d.box.x2, d.box.y2);
        }
    }
    if (!output.empty()) {
        vision::Image picture = photo;
        vision::draw_detections(picture, r.detections, card);
        vision::save_png(output, picture);
        if (!json) fmt::print("  written to {}\n", output);
    }
}

}  // namespace

void add_detect_command(Cli& cli, GlobalOptions& global) {
    static DemoOptions opt;
    Command cmd = cli.subcommand("detect", "Detect objects on a photo and draw them");
    add_demo_options(cmd, opt, true);
    cmd.on_run([&global] {
        return run_demo(
            global, vision::Task::detect, opt,
            [](const vision::ModelCard& card, const std::string& image, const vision::Image& photo,
               const vision::FrameResult& r,
               const std::string& output) { show(card, image, photo, r, output, opt.json); });
    });
}

}  // namespace wgx::cli
