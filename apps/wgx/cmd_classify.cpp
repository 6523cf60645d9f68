// wgx classify IMAGE [--json] [--model CARD]: the five most probable classes of the photo
// (docs/DEMOS.md).
#include <fmt/format.h>

#include "demo_common.h"
#include "vision/demo_json.h"

namespace wgx::cli {
namespace {

void show(const vision::ModelCard& card, const std::string& image, const vision::FrameResult& r,
          bool json) {
    if (json) {
        fmt::print("{}\n", vision::classify_json(card, image, r).dump());
        return;
    }
    fmt::print("{}:\n", image);
    for (const vision::ClassScore& c : r.top) {
        fmt::print("  {:6.2f}%  {} ({})\n", c.score * 100.0, card.label(c.cls), c.cls);
    }
}

}  // namespace

void add_classify_command(Cli& cli, GlobalOptions& global) {
    static DemoOptions opt;
    Command cmd = cli.subcommand("classify", "Name what a photo shows (top-5 classes)");
    add_demo_options(cmd, opt, false);
    cmd.on_run([&global] {
        return run_demo(global, vision::Task::classify, opt,
                        [](const vision::ModelCard& card, const std::string& image,
                           const vision::Image&, const vision::FrameResult& r,
                           const std::string&) { show(card, image, r, opt.json); });
    });
}

}  // namespace wgx::cli
