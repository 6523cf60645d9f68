// wgx example: the built-in example (the seed's quick start) run on the chosen device.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>

#include "commands.h"
#include "wgx/wgx.h"

namespace wgx::cli {
namespace {

int run_example(const GlobalOptions& global) {
    Context ctx = Context::create(global.device);
    fmt::print("device: {} ({})\n", ctx.device_info().adapter.name,
               ctx.device_info().adapter.backend);

    // out = in1 + 2 * in2, with in2 broadcast over the rows.
    Tensor in1 = ctx.tensor(DType::f32, {2, 3}).set_data({1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
    Tensor in2 = ctx.tensor(DType::f32, {1, 3}).set_data({10.f, 20.f, 30.f});
    Tensor sum = ctx.tensor(DType::f32, {2, 3});
    ctx.record(op("aten.add.Tensor"), {in1, in2, 2.0, sum});

    // then prod = sum @ w
    Tensor w = ctx.tensor(DType::f32, {3, 2}).set_data({1.f, 0.f, 0.f, 1.f, 1.f, 1.f});
    Tensor prod = ctx.tensor(DType::f32, {2, 2});
    ctx.record(op("aten.mm.default"), {sum, w, prod});

    auto t0 = std::chrono::steady_clock::now();
    ctx.submit();
    ctx.sync();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("in1 + 2 * in2 = {}\n", sum.get_data<float>());
    fmt::print("(in1 + 2 * in2) @ w = {}\n", prod.get_data<float>());
    fmt::print("GPU time (submit to completion): {:.3f} ms\n", ms);
    return 0;
}

}  // namespace

void add_example_command(Cli& cli, GlobalOptions& global) {
    Command cmd = cli.subcommand("example", "Run the built-in example (add with broadcast, mm)");
    cmd.on_run([&global] { return run_example(global); });
}

}  // namespace wgx::cli
