// What the four demo commands (detect, segment, depth, classify) share: finding the model
// card, opening the device and the pipeline once, and running one photo or every photo of a
// folder (--frames) with progress and a frames-per-second report.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "commands.h"
#include "vision/pipeline.h"

namespace wgx::cli {

struct DemoOptions {
    std::string image;       // one photo
    std::string output;      // picture to write (a folder with --frames)
    std::string model;       // card.json or a folder holding one ("" = the task's default)
    std::string frames;      // a folder of photos
    std::string raw_out;     // segment/depth: the output map as .npy
    std::string dump_input;  // the preprocessed input tensor as .npy
    bool json = false;
};

// Adds IMAGE, -o/--output, --model, --frames and --json to `cmd`.
void add_demo_options(Command& cmd, DemoOptions& opt, bool with_output);

// The card for `task`: --model when given, else the task's default model (docs/DEMOS.md):
// $WGX_MODELS_DIR/<name>, then models/<name> and .cache/real-models/<name> under the source
// tree this tool was built from and under the folder above the executable. Throws LoadError
// listing the places tried (and, for depth, why no depth model is committed).
std::filesystem::path find_model_card(vision::Task task, const std::string& model_option);

// Called once per photo with the card, the photo's path, the photo, the pipeline's result and
// the output picture's path ("" when none was asked for). Throws on failure.
using FrameHandler = std::function<void(
    const vision::ModelCard& card, const std::string& image, const vision::Image& photo,
    const vision::FrameResult& result, const std::string& output)>;

// Loads the card and the program, opens the device, then runs the photo or the folder.
// Messages go to stderr when --json is on, so that stdout holds only JSON.
int run_demo(const GlobalOptions& global, vision::Task task, const DemoOptions& opt,
             const FrameHandler& handle);

// Writes a [height, width] float32 map as .npy.
void write_map_npy(const std::string& path, const vision::FrameResult& result);

}  // namespace wgx::cli
