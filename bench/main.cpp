// wgx_microbench: device ceilings, GEMM, convolution and attention micro-benchmarks on one
// adapter.
//   wgx_microbench [--adapter A] [--json | --json-out FILE] [--only TEXT]
//                  [--groups ceiling,gemm,conv,attention,quant]
//                  [--dtype f32,f16]   GEMM, convolution and attention cases per tensor type
//                                      (f16: float16 storage, float32 arithmetic; needs
//                                      shader-f16)
//   wgx_microbench --sweep [--sweep-shapes 4096,1024]     every GEMM tile variant, best per shape
//   wgx_microbench --list-variants | --dump-wgsl VARIANT    the GEMM variants and their WGSL
//   wgx_microbench --groups attention --attention-wgsl A.wgsl,B.wgsl
//                                      attention kernels from files beside wgx.attention
//                                      (bench/attention_variant.h: the files' directive line)
// Every kernel's output is compared with a CPU reference before it is timed; a case that does
// not match is reported as wrong, not timed, and the exit status is 1. Commands and current
// numbers: docs/PERFORMANCE.md#micro-benchmarks (the cases in full: docs/perf-archive/).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "attention_bench.h"
#include "ceilings.h"
#include "conv_bench.h"
#include "gemm_bench.h"
#include "ops/matmul/gemm.h"
#include "quant_bench.h"
#include "report.h"
#include "wgx/wgx.h"

namespace {

bool has(const std::vector<std::string>& groups, const char* g) {
    return std::find(groups.begin(), groups.end(), g) != groups.end();
}

}  // namespace

int main(int argc, char** argv) {
    setenv("XDG_RUNTIME_DIR", "/tmp", 0);  // silences Mesa's Wayland probe on headless machines
    CLI::App app{
        "wgx_microbench: device ceilings, GEMM, convolution and attention micro-benchmarks"};
    wgx::DeviceOptions device;
    wgx::bench::MeasureOptions measure;
    bool json = false, sweep = false, list_variants = false;
    std::string only, dump_variant, json_out;
    std::vector<std::string> groups{"ceiling", "gemm", "conv", "attention", "quant"};
    std::vector<std::string> sweep_shapes{"4096", "1024"};
    std::vector<std::string> dtypes{"f32"};
    std::vector<uint32_t> sweep_splits{0};
    std::vector<std::string> attention_files;
    app.add_option("--adapter", device.adapter,
                   "Adapter: auto, discrete, integrated, cpu, an index or part of a name");
    app.add_option("--backend", device.backend, "Backend: auto, vulkan, metal, dx12, gl");
    app.add_flag("--no-cpu{false}", device.allow_cpu, "Never fall back to a CPU adapter");
    app.add_flag("--json", json, "One JSON object instead of the tables");
    app.add_option("--json-out", json_out, "Also write the JSON object to this file");
    app.add_option("--groups", groups, "Which groups: ceiling, gemm, conv, attention, quant")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--only", only,
                   "Only GEMM/conv/attention cases whose name contains this text (a kernel file's "
                   "attention rows end with the file's name)");
    app.add_option(
           "--dtype", dtypes,
           "Tensor types of the GEMM, conv and attention cases: f32, f16 (float16 storage, float32 "
           "arithmetic)")
        ->delimiter(',')
        ->capture_default_str()
        ->check(CLI::IsMember({"f32", "f16"}));
    app.add_flag("--sweep", sweep,
                 "Time every GEMM tile variant (and the kernel before them) per problem");
    app.add_option("--sweep-shapes", sweep_shapes,
                   "Problems of --sweep: S (square), MxKxN or BxMxKxN (batched)")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--sweep-splits", sweep_splits,
                   "K chunk counts of --sweep per variant: 0 = the default choice, 1 = no split")
        ->delimiter(',')
        ->capture_default_str()
        ->check(CLI::Range(0, 64));
    app.add_flag("--wall", measure.wall,
                 "Time with the wall clock even where GPU timestamps exist");
    app.add_option("--min-time", measure.min_seconds, "Seconds of timed work to aim for per case")
        ->capture_default_str();
    app.add_option("--warm-time", measure.warm_seconds,
                   "Seconds each case runs before it is timed, so the GPU's clocks are up")
        ->capture_default_str();
    app.add_option("--max-reps", measure.max_reps, "Calls per timed recording at most")
        ->capture_default_str()
        ->check(CLI::Range(1, 10000));
    app.add_option("--attention-wgsl", attention_files,
                   "Attention kernels from WGSL files (repeatable or a comma list), with "
                   "wgx.attention's bindings and Params; the first line may say what a file "
                   "needs: '// bench: rows=8 wg=256 overrides=D,DV,LK vec4=k,v' (see "
                   "bench/attention_variant.h). Each attention case runs with wgx.attention and "
                   "then with each file, checked before it is timed; check cases follow (odd "
                   "sizes, a transposed projection, masked rows, the largest sizes). Every "
                   "kernel is then compiled without runtime checks, as the engine's own are, "
                   "unless WGX_SHADER_CHECKS is set")
        ->delimiter(',');
    app.add_flag("--list-variants", list_variants, "List the GEMM tile variants and exit");
    app.add_option("--dump-wgsl", dump_variant,
                   "Print the WGSL of a GEMM variant (A [M,K], B [K,N], vec4 access) and exit");
    CLI11_PARSE(app, argc, argv);

    if (list_variants) {
        for (const auto& v : wgx::ops::gemm_variants()) {
            fmt::print(
                "{:<18} workgroup {}x{}, {}x{} outputs per invocation, K step {}, {} bytes "
                "of workgroup memory\n",
                v.name, v.wg_x, v.wg_y, v.tm, v.tn, v.bk, v.workgroup_bytes());
        }
        return 0;
    }
    if (!dump_variant.empty()) {
        const auto* v = wgx::ops::find_gemm_variant(dump_variant);
        if (!v) {
            fmt::print(stderr, "wgx_microbench: no GEMM variant named '{}' (see --list-variants)\n",
                       dump_variant);
            return 2;
        }
        wgx::ops::GemmShapeFlags f;
        f.vec_a = f.vec_b = f.vec_c = true;
        fmt::print("{}", wgx::ops::gemm_wgsl(*v, f));
        return 0;
    }

    try {
        std::vector<wgx::bench::AttentionVariant> variants;
        for (const auto& path : attention_files) {
            variants.push_back(wgx::bench::load_attention_variant(path));
        }
        if (!variants.empty()) {
            if (!has(groups, "attention") || sweep) {
                throw wgx::InvalidArgument(
                    "--attention-wgsl needs the attention group (and no "
                    "--sweep)");
            }
            // A file's kernel is not a built-in op's, so it would keep the runtime checks that
            // the built-in kernel goes without: both without them, for a like comparison.
            if (!std::getenv("WGX_SHADER_CHECKS")) device.shader_checks = false;
        }
        wgx::Context ctx = wgx::Context::create(device);
        const auto& adapter = ctx.device_info().adapter;
        fmt::print(stderr, "wgx_microbench on {} ({}, {})\n", adapter.name,
                   wgx::to_string(adapter.type), adapter.backend);
        std::vector<wgx::bench::Result> rows;
        wgx::bench::Ceilings ceilings;
        if (sweep || has(groups, "ceiling")) {
            fmt::print(stderr, "ceilings\n");
            ceilings = wgx::bench::measure_ceilings(ctx, measure, rows);
        }
        if (sweep) {
            fmt::print(stderr, "GEMM variant sweep\n");
            std::vector<wgx::bench::SweepShape> shapes;
            for (const auto& text : sweep_shapes)
                shapes.push_back(wgx::bench::parse_sweep_shape(text));
            wgx::bench::sweep_gemm(ctx, measure, shapes, sweep_splits, rows);
        } else {
            std::vector<wgx::DType> types;
            for (const auto& d : dtypes) {
                types.push_back(d == "f16" ? wgx::DType::f16 : wgx::DType::f32);
            }
            if (has(dtypes, "f16") && !ctx.device_info().features.shader_f16) {
                throw wgx::InvalidArgument(
                    "--dtype f16 needs the adapter's shader-f16 feature, "
                    "which this device lacks");
            }
            if (has(groups, "gemm")) {
                for (wgx::DType t : types) {
                    fmt::print(stderr, "GEMM{}\n", wgx::bench::dtype_suffix(t));
                    wgx::bench::bench_gemm(ctx, measure, only, t, rows);
                }
            }
            if (has(groups, "conv")) {
                for (wgx::DType t : types) {
                    fmt::print(stderr, "convolution{}\n", wgx::bench::dtype_suffix(t));
                    wgx::bench::bench_conv(ctx, measure, only, t, rows);
                }
            }
            if (has(groups, "quant")) {
                fmt::print(stderr, "4-bit linear layers\n");
                wgx::bench::bench_quant(ctx, measure, only, rows);
            }
            if (has(groups, "attention")) {
                for (wgx::DType t : types) {
                    fmt::print(stderr, "attention{}\n", wgx::bench::dtype_suffix(t));
                    wgx::bench::bench_attention(ctx, measure, only, t, variants, rows);
                }
            }
        }
        const auto report = wgx::bench::to_json(ctx.device_info(), ceilings, rows);
        if (json) {
            fmt::print("{}\n", report.dump(1));
        } else {
            wgx::bench::print_table(ctx.device_info(), ceilings, rows);
        }
        if (!json_out.empty()) {
            std::ofstream file(json_out);
            file << report.dump(1) << "\n";
            if (!file) throw wgx::Error(fmt::format("cannot write {}", json_out));
        }
        for (const auto& r : rows) {
            if (!r.ok) return 1;
        }
        return 0;
    } catch (const wgx::Error& e) {
        std::fflush(stdout);
        fmt::print(stderr, "wgx_microbench: error: {}\n", e.what());
        return 2;
    }
}
