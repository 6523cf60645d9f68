// wgx bench MODEL: latency percentiles of a prepared program.
//   GPU-resident: inputs already in GPU tensors, outputs left there; submit to completion.
//   end-to-end:   upload the inputs, run, read the outputs back.
//   encode:       CPU time of submit() alone (submitting the run, and encoding the next one
//                 ahead while the GPU works; WGX_ENCODE_AHEAD=0 encodes each run as it is
//                 submitted instead).
//   --profile:    GPU time per op from timestamps (bench_profile.h).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <random>

#include "bench_profile.h"
#include "commands.h"
#include "wgx/wgx.h"

namespace wgx::cli {
namespace {

struct BenchOptions {
    std::string model;
    std::string method = "forward";
    int iters = 50;
    int warmup = 5;
    bool json = false;
    bool profile = false;
    int profile_runs = 10;
    size_t top = 30;
    bool fuse = true;
    bool float16 = false;
};

struct Stats {
    double median = 0, p90 = 0, min = 0, mean = 0;
};

Stats stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    Stats s;
    s.min = v.front();
    s.median = v[v.size() / 2];
    s.p90 = v[std::min(v.size() - 1, v.size() * 9 / 10)];
    for (double x : v) s.mean += x / double(v.size());
    return s;
}

double ms_between(std::chrono::steady_clock::time_point a,
                  std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

std::vector<std::byte> random_bytes(const TensorInfo& info, std::mt19937& gen) {
    int64_t n = 1;
    for (int64_t d : info.shape) n *= d;
    std::vector<std::byte> bytes(n * host_size(info.dtype));
    if (info.dtype == DType::f32) {
        std::normal_distribution<float> normal(0.f, 1.f);
        for (int64_t i = 0; i < n; ++i) {
            float v = normal(gen);
            std::memcpy(bytes.data() + i * 4, &v, 4);
        }
    } else {
        for (auto& b : bytes) b = std::byte(gen() % 2);  // small valid values for ints and bools
    }
    return bytes;
}

int bench(const GlobalOptions& global, const BenchOptions& opt) {
    using clock = std::chrono::steady_clock;
    ProgramOptions popt;
    popt.fuse = opt.fuse;
    popt.float16 = opt.float16;
    popt.method = opt.method;
    auto t_load = clock::now();
    Program program = Program::load(opt.model, popt);
    double load_ms = ms_between(t_load, clock::now());
    Context ctx = Context::create(global.device);

    std::mt19937 gen(0);
    std::vector<Tensor> io;
    std::vector<std::vector<std::byte>> host_inputs;
    for (const TensorInfo& info : program.inputs()) {
        host_inputs.push_back(random_bytes(info, gen));
        io.push_back(ctx.tensor(info.dtype, info.shape).set_bytes(host_inputs.back()));
    }
    for (const TensorInfo& info : program.outputs())
        io.push_back(ctx.tensor(info.dtype, info.shape));
    auto t_prepare = clock::now();
    ctx.record(program, io);
    double prepare_ms = ms_between(t_prepare, clock::now());

    for (int i = 0; i < opt.warmup; ++i) {
        ctx.submit();
        ctx.sync();
    }
    std::vector<double> resident, encode, end_to_end;
    for (int i = 0; i < opt.iters; ++i) {
        auto a = clock::now();
        ctx.submit();
        auto b = clock::now();
        ctx.sync();
        auto c = clock::now();
        encode.push_back(ms_between(a, b));
        resident.push_back(ms_between(a, c));
    }
    // End-to-end, and its parts: writing the inputs, encoding and submitting the run, waiting
    // for it, and reading the outputs back into host buffers kept from run to run (as an
    // application serving requests would).
    std::vector<double> upload, submit, wait, readback;
    std::vector<std::vector<std::byte>> host_outputs;
    for (const TensorInfo& info : program.outputs()) {
        host_outputs.emplace_back(static_cast<size_t>(checked_numel(info.shape, "output")) *
                                  host_size(info.dtype));
    }
    for (int i = 0; i < opt.iters; ++i) {
        auto a = clock::now();
        for (size_t k = 0; k < host_inputs.size(); ++k) io[k].set_bytes(host_inputs[k]);
        auto b = clock::now();
        ctx.submit();
        auto c = clock::now();
        ctx.sync();
        auto d = clock::now();
        for (size_t k = 0; k < host_outputs.size(); ++k) {
            io[program.inputs().size() + k].get_bytes(host_outputs[k]);
        }
        auto f = clock::now();
        end_to_end.push_back(ms_between(a, f));
        upload.push_back(ms_between(a, b));
        submit.push_back(ms_between(b, c));
        wait.push_back(ms_between(c, d));
        readback.push_back(ms_between(d, f));
    }
    Stats r = stats(resident), e = stats(end_to_end), enc = stats(encode);
    Stats up = stats(upload), sub = stats(submit), wt = stats(wait), back = stats(readback);
    const auto& adapter = ctx.device_info().adapter;
    std::optional<ProfileSummary> profile;
    if (opt.profile) {
        if (!ctx.device_info().features.timestamp_query) {
            throw InvalidArgument(
                fmt::format("--profile needs GPU timestamps; {} does not offer the "
                            "timestamp-query feature.",
                            adapter.name));
        }
        profile = profile_recording(ctx, opt.profile_runs);
    }
    if (opt.json) {
        auto obj = [](const Stats& s) {
            return nlohmann::json{{"median_ms", s.median}, {"p90_ms", s.p90}, {"min_ms", s.min}};
        };
        nlohmann::json out = {{"model", opt.model},
                              {"adapter", adapter.name},
                              {"backend", adapter.backend},
                              {"iters", opt.iters},
                              {"load_ms", load_ms},
                              {"prepare_ms", prepare_ms},
                              {"gpu_resident", obj(r)},
                              {"end_to_end", obj(e)},
                              {"encode", obj(enc)},
                              {"fused", opt.fuse},
                              {"end_to_end_parts",
                               {{"upload", obj(up)},
                                {"submit", obj(sub)},
                                {"wait", obj(wt)},
                                {"readback", obj(back)}}},
                              {"float16", opt.float16},
                              {"shader_checks", ctx.device_info().shader_checks},
                              {"builtin_shader_checks", ctx.device_info().builtin_shader_checks}};
        if (profile) out["profile"] = profile_json(*profile);
        fmt::print("{}\n", out.dump());
        return 0;
    }
    fmt::print("model:   {}\ndevice:  {} ({}), shader checks: engine kernels {}, others {}\n",
               opt.model, adapter.name, adapter.backend,
               ctx.device_info().builtin_shader_checks ? "on" : "off",
               ctx.device_info().shader_checks ? "on" : "off");
    fmt::print("load {:.1f} ms, prepare {:.1f} ms, {} warm-up + {} timed runs each\n", load_ms,
               prepare_ms, opt.warmup, opt.iters);
    fmt::print("{:<14}{:>12}{:>12}{:>12}\n", "latency (ms)", "median", "p90", "min");
    fmt::print("{:<14}{:>12.3f}{:>12.3f}{:>12.3f}\n", "GPU-resident", r.median, r.p90, r.min);
    fmt::print("{:<14}{:>12.3f}{:>12.3f}{:>12.3f}\n", "end-to-end", e.median, e.p90, e.min);
    fmt::print("{:<14}{:>12.3f}{:>12.3f}{:>12.3f}\n", "  upload", up.median, up.p90, up.min);
    fmt::print("{:<14}{:>12.3f}{:>12.3f}{:>12.3f}\n", "  submit", sub.median, sub.p90, sub.min);
    fmt::print("{:<14}{:>12.3f}{:>12.3f}{:>12.3f}\n", "  wait", wt.median, wt.p90, wt.min);
    fmt::print("{:<14}{:>12.3f}{:>12.3f}{:>12.3f}\n", "  readback", back.median, back.p90,
               back.min);
    fmt::print("{:<14}{:>12.3f}{:>12.3f}{:>12.3f}\n", "CPU encode", enc.median, enc.p90, enc.min);
    if (profile) print_profile(*profile, r.median, opt.top);
    return 0;
}

}  // namespace

void add_bench_command(Cli& cli, GlobalOptions& global) {
    static BenchOptions opt;
    Command cmd = cli.subcommand("bench", "Time a program: GPU-resident and end-to-end latency");
    cmd.option("model", opt.model, "The .pte file, a program.json, or its directory",
               {.required = true});
    cmd.option("--iters", opt.iters, "Timed runs",
               {.show_default = true, .range = std::pair{1, 1000000}});
    cmd.option("--warmup", opt.warmup, "Untimed runs first", {.show_default = true});
    cmd.option("--method", opt.method, "Method to run", {.show_default = true});
    cmd.flag("--json", opt.json, "One JSON object instead of the table");
    cmd.flag("--no-fuse{false}", opt.fuse,
             "Run every call as the file says (no fusion, reshapes copied)");
    cmd.flag("--f16", opt.float16,
             "Keep float32 tensors in float16 on the GPU (needs shader-f16; inputs and "
             "outputs stay float32)");
    cmd.flag("--profile", opt.profile,
             "GPU time per op from timestamps (inside the pass where the device allows)");
    cmd.option("--profile-runs", opt.profile_runs, "Timed runs for --profile (median per dispatch)",
               {.show_default = true, .range = std::pair{1, 10000}});
    cmd.option("--top", opt.top, "Rows of the --profile table", {.show_default = true});
    cmd.on_run([&global] { return bench(global, opt); });
}

}  // namespace wgx::cli
