// wgx run MODEL: load, prepare, run once (inputs from .npy files or seeded random data), print
// the outputs' shapes, dtypes, summary statistics and times, and write them to .npy files.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

#include "commands.h"
#include "io/npy.h"
#include "wgx/wgx.h"

namespace wgx::cli {
namespace {

struct RunOptions {
    std::string model;
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
    std::string method = "forward";
    std::string data_file;
    uint32_t seed = 0;
    int iters = 1;
    bool fuse = true;
    bool float16 = false;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Seeded data in the input's dtype: normal floats, small integers, random bools.
io::NpyArray random_input(const TensorInfo& info, uint32_t seed) {
    io::NpyArray a;
    a.dtype = info.dtype;
    a.shape = info.shape;
    int64_t n = 1;
    for (int64_t d : info.shape) n *= d;
    a.data.resize(n * host_size(info.dtype));
    std::mt19937 gen(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_int_distribution<int> small(0, 9);
    for (int64_t i = 0; i < n; ++i) {
        std::byte* p = a.data.data() + i * host_size(info.dtype);
        switch (info.dtype) {
            case DType::f32: {
                float v = float(normal(gen));
                std::memcpy(p, &v, 4);
                break;
            }
            case DType::f64: {
                double v = normal(gen);
                std::memcpy(p, &v, 8);
                break;
            }
            case DType::i32: {
                int32_t v = small(gen);
                std::memcpy(p, &v, 4);
                break;
            }
            case DType::i64: {
                int64_t v = small(gen);
                std::memcpy(p, &v, 8);
                break;
            }
            case DType::f16: {
                uint16_t v = 0x3c00;
                std::memcpy(p, &v, 2);
                break;
            }  // 1.0
            default: *p = std::byte(small(gen) % 2); break;
        }
    }
    return a;
}

std::string summary(const io::NpyArray& a) {
    if (a.dtype != DType::f32) return "";
    size_t n = a.data.size() / 4;
    const float* f = reinterpret_cast<const float*>(a.data.data());
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!std::isfinite(f[i])) {
            ++bad;
            continue;
        }
        lo = std::min<double>(lo, f[i]);
        hi = std::max<double>(hi, f[i]);
        sum += f[i];
    }
    std::string s = fmt::format("min {:.6g} max {:.6g} mean {:.6g}", lo, hi, n ? sum / n : 0.0);
    if (bad) s += fmt::format(" ({} non-finite)", bad);
    return s;
}

int run(const GlobalOptions& global, const RunOptions& opt) {
    auto t0 = std::chrono::steady_clock::now();
    ProgramOptions popt;
    popt.fuse = opt.fuse;
    popt.float16 = opt.float16;
    popt.method = opt.method;
    if (!opt.data_file.empty()) popt.data_file = opt.data_file;
    Program program = Program::load(opt.model, popt);
    double load_ms = ms_since(t0);
    if (!opt.inputs.empty() && opt.inputs.size() != program.inputs().size()) {
        throw InvalidArgument(fmt::format("{} takes {} input(s); {} --input file(s) given.",
                                          opt.model, program.inputs().size(), opt.inputs.size()));
    }
    if (opt.outputs.size() > program.outputs().size()) {
        throw InvalidArgument(fmt::format("{} has {} output(s); {} --output file(s) given.",
                                          opt.model, program.outputs().size(), opt.outputs.size()));
    }

    Context ctx = Context::create(global.device);
    fmt::print("device: {} ({})\n", ctx.device_info().adapter.name,
               ctx.device_info().adapter.backend);
    std::vector<io::NpyArray> arrays;
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < program.inputs().size(); ++i) {
        const TensorInfo& info = program.inputs()[i];
        io::NpyArray a = opt.inputs.empty() ? random_input(info, opt.seed + uint32_t(i))
                                            : io::read_npy(opt.inputs[i]);
        fmt::print("input {}: {} {}{}\n", i, dtype_name(a.dtype), shape_string(a.shape),
                   opt.inputs.empty() ? fmt::format(" (random, seed {})", opt.seed + i) : "");
        arrays.push_back(std::move(a));
    }
    for (const io::NpyArray& a : arrays) inputs.push_back(HostTensor{a.dtype, a.shape, a.data});

    // Each run uploads the inputs and replays the recording; a program with state (an LLM's KV
    // cache) keeps what each run wrote.
    auto t1 = std::chrono::steady_clock::now();
    Runner runner(ctx, program);
    runner.prepare(inputs);
    double prepare_ms = ms_since(t1);
    std::vector<double> runs;
    std::vector<Tensor> outputs;
    for (int i = 0; i < std::max(1, opt.iters); ++i) {
        auto t2 = std::chrono::steady_clock::now();
        outputs = runner.run(inputs);
        ctx.sync();
        runs.push_back(ms_since(t2));
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
        const Tensor& t = outputs[i];
        io::NpyArray a{t.dtype(), t.shape(), t.get_bytes()};
        fmt::print("output {}: {} {} {}\n", i, dtype_name(t.dtype()), shape_string(t.shape()),
                   summary(a));
        if (i < opt.outputs.size()) {
            io::write_npy(opt.outputs[i], a);
            fmt::print("  written to {}\n", opt.outputs[i]);
        }
    }
    double first_ms = runs.front();
    std::sort(runs.begin(), runs.end());
    fmt::print(
        "time: load {:.1f} ms, prepare {:.1f} ms, run {:.3f} ms (first), {:.3f} ms "
        "(median of {})\n",
        load_ms, prepare_ms, first_ms, runs[runs.size() / 2], runs.size());
    return 0;
}

}  // namespace

void add_run_command(Cli& cli, GlobalOptions& global) {
    static RunOptions opt;
    Command cmd = cli.subcommand("run", "Run a program (.pte or program.json) once");
    cmd.option("model", opt.model, "The .pte file, a program.json, or its directory",
               {.required = true});
    cmd.option("--input,-i", opt.inputs, "Input .npy files, in order (default: random)");
    cmd.option("--output,-o", opt.outputs, "Write the outputs to these .npy files");
    cmd.option("--method", opt.method, "Method to run", {.show_default = true});
    cmd.flag("--no-fuse{false}", opt.fuse,
             "Run every call as the file says (no fusion, reshapes copied)");
    cmd.flag("--f16", opt.float16,
             "Keep float32 tensors in float16 on the GPU (needs shader-f16; inputs and "
             "outputs stay float32)");
    cmd.option("--data", opt.data_file, "External constants (.ptd)");
    cmd.option("--seed", opt.seed, "Seed of the random inputs", {.show_default = true});
    cmd.option("--iters", opt.iters, "Runs to time", {.show_default = true});
    cmd.on_run([&global] { return run(global, opt); });
}

}  // namespace wgx::cli
