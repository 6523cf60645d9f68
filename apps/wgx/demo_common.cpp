#include "demo_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "io/npy.h"
#include "wgx/wgx.h"

namespace wgx::cli {

namespace fs = std::filesystem;
using vision::Task;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string_view default_model(Task task) {
    switch (task) {
        case Task::detect: return "nanodet";
        case Task::segment: return "selfie";
        case Task::depth: return "pydnet";
        case Task::classify: return "efficientnet_lite0";
    }
    return "";
}

// The trees that may hold models/ and .cache/real-models/: the source tree this tool was
// built from, and the folders above the executable (build/wgx -> the checkout).
std::vector<fs::path> source_roots() {
    std::vector<fs::path> roots;
#ifdef WGX_SOURCE_DIR
    roots.emplace_back(WGX_SOURCE_DIR);
#endif
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        fs::path dir = exe.parent_path();
        for (int up = 0; up < 2 && dir.has_parent_path(); ++up) {
            dir = dir.parent_path();
            if (std::find(roots.begin(), roots.end(), dir) == roots.end()) roots.push_back(dir);
        }
    }
    return roots;
}

bool is_image_file(const fs::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    for (const char* e : {".jpg", ".jpeg", ".png", ".bmp", ".tga", ".gif", ".ppm", ".pgm", ".pnm"})
        if (ext == e) return true;
    return false;
}

std::vector<fs::path> list_frames(const std::string& folder) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) {
        throw InvalidArgument(fmt::format("--frames {}: not a folder.", folder));
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder, ec))
        if (entry.is_regular_file() && is_image_file(entry.path())) files.push_back(entry.path());
    if (ec) throw InvalidArgument(fmt::format("--frames {}: {}.", folder, ec.message()));
    if (files.empty()) {
        throw InvalidArgument(
            fmt::format("--frames {}: no image files (.jpg, .png, .bmp, .tga, "
                        ".gif, .ppm/.pgm/.pnm) in the folder.",
                        folder));
    }
    std::sort(files.begin(), files.end());
    return files;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

void add_demo_options(Command& cmd, DemoOptions& opt, bool with_output) {
    cmd.option("image", opt.image, "The photo (JPEG, PNG, BMP, TGA, GIF, PNM)");
    if (with_output) {
        cmd.option("-o,--output", opt.output,
                   "The picture to write (.png); with --frames, a folder for one picture "
                   "per frame");
    }
    cmd.option("--model", opt.model,
               "A model card (card.json) or a folder holding one (default: the task's "
               "bundled model)");
    cmd.option("--frames", opt.frames,
               "Run every photo of this folder in name order and report frames per second");
    cmd.flag("--json", opt.json, "Print the result as JSON (one line per frame with --frames)");
    cmd.option("--dump-input", opt.dump_input,
               "Also write the preprocessed model input (float32 [1, 3, H, W]) as .npy");
}

fs::path find_model_card(Task task, const std::string& model_option) {
    if (!model_option.empty()) return model_option;
    const std::string name(default_model(task));
    std::vector<fs::path> tried;
    if (const char* env = std::getenv("WGX_MODELS_DIR"); env && *env) {
        tried.push_back(fs::path(env) / name);
    }
    for (const fs::path& root : source_roots()) {
        tried.push_back(root / "models" / name);
        tried.push_back(root / ".cache" / "real-models" / name);
    }
    std::error_code ec;
    for (const fs::path& dir : tried)
        if (fs::is_regular_file(dir / "card.json", ec)) return dir / "card.json";
    std::string where;
    for (const fs::path& dir : tried) where += fmt::format("\n  {}", (dir / "card.json").string());
    std::string why;
    if (task == Task::depth) {
        why =
            "\nNo depth model is committed: PyDNet++ was trained on data for non-commercial use "
            "only, so it is exported locally into .cache/real-models/pydnet by "
            "'python/.venv/bin/python python/real_models/pydnet.py' (see docs/DEMOS.md). Pass "
            "--model CARD to use another depth model.";
    }
    throw LoadError(fmt::format("no model for '{}' found (default model '{}'); looked for:{}{}",
                                vision::task_name(task), name, where, why));
}

void write_map_npy(const std::string& path, const vision::FrameResult& r) {
    if (r.map.empty()) throw Error("the output map was not read back.");
    io::NpyArray a;
    a.dtype = DType::f32;
    a.shape = {r.map_height, r.map_width};
    a.data.resize(r.map.size() * sizeof(float));
    std::memcpy(a.data.data(), r.map.data(), a.data.size());
    io::write_npy(path, a);
}

int run_demo(const GlobalOptions& global, Task task, const DemoOptions& opt,
             const FrameHandler& handle) {
    std::FILE* info = opt.json ? stderr : stdout;
    if (opt.image.empty() == opt.frames.empty()) {
        throw InvalidArgument("give either one IMAGE or --frames FOLDER.");
    }
    if (!opt.frames.empty() && (!opt.raw_out.empty() || !opt.dump_input.empty())) {
        throw InvalidArgument(
            "--raw-out and --dump-input write one file; they cannot be combined "
            "with --frames.");
    }
    // A photo that cannot be read fails before the device and the model are opened.
    std::optional<vision::Image> single;
    if (opt.frames.empty()) single = vision::load_image(opt.image);
    const fs::path card_path = find_model_card(task, opt.model);
    vision::ModelCard card = vision::load_model_card(card_path);
    if (card.task != task) {
        throw LoadError(fmt::format("{}: the card is for '{}'; this command needs a '{}' model.",
                                    card.card_path.string(), vision::task_name(card.task),
                                    vision::task_name(task)));
    }
    auto t0 = Clock::now();
    Context ctx = Context::create(global.device);
    const auto& adapter = ctx.device_info().adapter;
    fmt::print(info, "device: {} ({})\n", adapter.name, adapter.backend);
    vision::PipelineOptions popt;
    popt.read_map = !opt.raw_out.empty() || opt.json;
    vision::Pipeline pipeline(ctx, std::move(card), popt);
    fmt::print(
        info, "model: {} ({}), input {}x{} {}, loaded in {:.0f} ms\n", pipeline.card().name,
        pipeline.card().model.string(), pipeline.card().input.width, pipeline.card().input.height,
        pipeline.card().input.resize == vision::ResizeMode::letterbox ? "letterbox" : "stretch",
        seconds_since(t0) * 1e3);

    if (opt.frames.empty()) {
        const vision::Image& photo = *single;
        vision::FrameResult r = pipeline.run(photo);
        handle(pipeline.card(), opt.image, photo, r, opt.output);
        if (!opt.dump_input.empty()) {
            const Tensor& in = pipeline.input();
            io::write_npy(opt.dump_input, io::NpyArray{in.dtype(), in.shape(), in.get_bytes()});
        }
        const auto& t = r.timings;
        fmt::print(info,
                   "time: prepare {:.1f} ms, upload {:.1f} ms, GPU {:.1f} ms, read back {:.1f} "
                   "ms, decode {:.1f} ms\n",
                   t.record_ms, t.upload_ms, t.gpu_ms, t.readback_ms, t.decode_ms);
        return 0;
    }

    const std::vector<fs::path> files = list_frames(opt.frames);
    if (!opt.output.empty()) fs::create_directories(opt.output);
    std::vector<double> gpu_ms, frame_s;
    size_t recordings = 0;
    auto start = Clock::now(), last_report = start;
    double first_frame_s = 0;
    for (size_t i = 0; i < files.size(); ++i) {
        auto f0 = Clock::now();
        vision::Image photo = vision::load_image(files[i]);
        vision::FrameResult r = pipeline.run(photo);
        std::string out;
        if (!opt.output.empty()) {
            out = (fs::path(opt.output) / files[i].stem()).string() + ".png";
        }
        handle(pipeline.card(), files[i].string(), photo, r, out);
        const double s = seconds_since(f0);
        if (i == 0) first_frame_s = s;
        frame_s.push_back(s);
        gpu_ms.push_back(r.timings.gpu_ms);
        if (r.timings.record_ms > 0) ++recordings;
        // Progress on stderr at most once a second (and for the last frame) on long runs.
        if (seconds_since(last_report) >= 1.0 || i + 1 == files.size()) {
            const double elapsed = seconds_since(start);
            fmt::print(stderr, "[{}/{}] {:.2f} frames/s\n", i + 1, files.size(),
                       double(i + 1) / elapsed);
            last_report = Clock::now();
        }
    }
    const double total = seconds_since(start);
    fmt::print(info,
               "{} frames in {:.2f} s: {:.2f} frames/s end to end (decode, upload, GPU, read "
               "back, post-processing, writing)\n",
               files.size(), total, double(files.size()) / total);
    if (files.size() > 1) {
        const double steady = total - first_frame_s;
        fmt::print(info,
                   "  after the first frame (which records the work): {:.2f} frames/s; GPU "
                   "median {:.1f} ms per frame\n",
                   double(files.size() - 1) / steady, median(gpu_ms));
    }
    if (recordings > 1) {
        fmt::print(info, "  the work was recorded {} times (once per change of photo size)\n",
                   recordings);
    }
    return 0;
}

}  // namespace wgx::cli
