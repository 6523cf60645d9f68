#include "ceilings.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>

#include "bench/copy.wgsl.h"
#include "bench/fma.wgsl.h"
#include "bench/tick.wgsl.h"
#include "wgx/op.h"

namespace wgx::bench {
namespace {

struct CopyParams {
    uint32_t count, pad0, pad1, pad2;
};

// dst = src over `count` vec4 elements.
class CopyOp final : public Op {
  public:
    std::string_view name() const override { return "bench.copy"; }
    void record(Recorder& rec, const Args& args) const override {
        const Tensor& src = args.tensor(0, "src");
        const Tensor& dst = args.tensor(1, "dst");
        CopyParams p{static_cast<uint32_t>(src.numel() / 4), 0, 0, 0};
        uint32_t wg = rec.workgroup_size(256);
        Kernel k = rec.kernel("copy vec4", std::string(wgsl::bench_copy), {{"WG", double(wg)}});
        rec.dispatch(k, {src, dst, Binding::uniform(p)}, rec.grid_1d(p.count, wg));
    }
};

// One dependent tiny dispatch (bench/tick.wgsl) on a 64-float buffer.
class TickOp final : public Op {
  public:
    std::string_view name() const override { return "bench.tick"; }
    void record(Recorder& rec, const Args& args) const override {
        Kernel k = rec.kernel("tick", std::string(wgsl::bench_tick));
        rec.dispatch(k, {args.tensor(0, "x")}, Grid{1, 1, 1});
    }
};

struct FmaParams {
    uint32_t iters, threads;
    float mul, add;
};

// Chains' step: x = fma(x, 1, 2^-8). With m = 1 every step adds exactly c while the values stay
// small, so the result tells exactly how many steps ran (in f16 as in f32).
constexpr float kMul = 1.0f;
constexpr float kAdd = 1.0f / 256.0f;

class FmaOp final : public Op {
  public:
    FmaOp(bool f16, uint32_t iters) : f16_(f16), iters_(iters) {}
    std::string_view name() const override { return "bench.fma"; }
    void record(Recorder& rec, const Args& args) const override {
        const Tensor& out = args.tensor(0, "out");
        FmaParams p{iters_, static_cast<uint32_t>(out.numel()), kMul, kAdd};
        uint32_t wg = rec.workgroup_size(256);
        const std::string prefix = f16_ ? "enable f16;\nalias T = f16;\n" : "alias T = f32;\n";
        Kernel k = rec.kernel(f16_ ? "fma f16" : "fma f32", prefix + std::string(wgsl::bench_fma),
                              {{"WG", double(wg)}});
        rec.dispatch(k, {out, Binding::uniform(p)}, rec.grid_1d(p.threads, wg));
    }

  private:
    bool f16_;
    uint32_t iters_;
};

// Round-to-nearest-even to half precision, returned as a float (values here are normal halfs).
float round_to_half(float x) {
    uint32_t bits = std::bit_cast<uint32_t>(x);
    // Keep 10 of float's 23 mantissa bits: add half of the dropped part (ties to even), clear it.
    const uint32_t drop = 13;
    uint32_t lsb = (bits >> drop) & 1u;
    bits += (1u << (drop - 1)) - 1 + lsb;
    bits &= ~((1u << drop) - 1);
    return std::bit_cast<float>(bits);
}

// What invocation i writes after `iters` rounds (the kernel's chains replayed on the CPU).
double fma_reference(uint32_t i, uint32_t iters, bool f16) {
    const float s = 0.5f + float(i % 64u) / 128.0f;
    const float lanes[4] = {0.f, 0.015625f, 0.03125f, 0.046875f};
    double sum = 0;
    for (int chain = 0; chain < 8; ++chain) {
        for (float lane : lanes) {
            float x = s + float(chain) * 0.0625f + lane;
            for (uint32_t n = 0; n < iters * 4; ++n) {
                x = std::fma(x, kMul, kAdd);
                if (f16) x = round_to_half(x);
            }
            sum += x;
        }
    }
    return sum;
}

Result copy_ceiling(Context& ctx, const MeasureOptions& options) {
    const DeviceLimits& lim = ctx.device_info().limits;
    // 256 MiB per buffer (well past any cache), or what one binding allows.
    uint64_t bytes = std::min<uint64_t>(
        {uint64_t(256) << 20, lim.max_storage_binding_bytes, lim.max_buffer_bytes});
    bytes = bytes / 16 * 16;
    const int64_t n = static_cast<int64_t>(bytes / 4);
    std::vector<float> data = random_values(n, 1);
    Tensor src = ctx.tensor(DType::f32, {n}).set_data(data);
    Tensor dst = ctx.tensor(DType::f32, {n});
    CopyOp op;
    Result r;
    r.group = "ceiling";
    r.name = fmt::format("copy {} MiB", bytes >> 20);
    r.bytes = 2.0 * double(bytes);
    Measured m = measure(
        ctx,
        [&] {
            ctx.record(op, {src, dst});
        },
        [&] {
            std::vector<float> got = dst.get_data<float>();
            r.checked = fmt::format("all {} elements (exact)", n);
            r.error = std::memcmp(got.data(), data.data(), bytes) == 0 ? 0 : INFINITY;
            return r.error == 0;
        },
        options);
    r.ok = m.ok;
    r.timing = m.timing;
    r.kernel = "copy vec4";
    return r;
}

Result fma_ceiling(Context& ctx, const MeasureOptions& options, bool f16) {
    const bool cpu = ctx.device_info().adapter.type == AdapterType::cpu;
    // Enough invocations to fill the largest GPUs several times over; a CPU adapter needs few.
    const int64_t threads = cpu ? 16384 : (int64_t(1) << 20);
    Tensor out = ctx.tensor(DType::f32, {threads});
    Result r;
    r.group = "ceiling";
    r.name = f16 ? "fma f16" : "fma f32";
    r.kernel = r.name;

    // Check a short run exactly against the CPU replay (every step adds 2^-8: a kernel that
    // skipped work would be off by a multiple of it).
    const uint32_t check_iters = 8;
    ctx.reset();
    ctx.record(FmaOp(f16, check_iters), {out});
    ctx.submit();
    std::vector<float> got = out.get_data<float>();
    ErrorMeter meter;
    for (int64_t i = 0; i < threads; i += std::max<int64_t>(1, threads / 4096)) {
        meter.add(got[i], fma_reference(uint32_t(i), check_iters, f16));
    }
    meter.add(got[threads - 1], fma_reference(uint32_t(threads - 1), check_iters, f16));
    r.error = meter.error();
    r.checked = fmt::format("{} sampled invocations", meter.count());
    ctx.reset();
    if (r.error > 1e-6) return r;

    // Size one call to ~20 ms from a short calibration run.
    uint32_t iters = 256;
    {
        ctx.record(FmaOp(f16, iters), {out});
        ctx.submit();
        ctx.sync();  // first run compiles nothing more but warms the device
        auto t = std::chrono::steady_clock::now();
        ctx.submit();
        ctx.sync();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
        ctx.reset();
        iters = static_cast<uint32_t>(std::clamp(iters * 0.02 / std::max(s, 1e-6), 64.0, 65536.0));
    }
    r.flops = 256.0 * double(iters) * double(threads);
    FmaOp op(f16, iters);
    Measured m = measure(
        ctx, [&] { ctx.record(op, {out}); }, [] { return true; }, options);
    r.ok = m.ok;
    r.timing = m.timing;
    return r;
}

// The cost of one dispatch beyond its work: a recording of many dependent tick dispatches (one
// pass, as a program runs), timed by the wall clock from submit to completion and divided by
// their count. This is the floor under every small op of a model.
Result dispatch_overhead(Context& ctx, MeasureOptions options) {
    constexpr int64_t kLanes = 64;
    std::vector<float> start = random_values(kLanes, 3);
    Tensor x = ctx.tensor(DType::f32, {kLanes}).set_data(start);
    options.wall = true;
    options.max_reps = 1000;
    TickOp op;
    Result r;
    r.group = "ceiling";
    r.name = "dispatch (dependent, 1 workgroup)";
    r.kernel = "tick";
    Measured m = measure(
        ctx, [&] { ctx.record(op, {x}); },
        [&] {
            // The warm-up call ran once: every lane gained exactly 1.
            std::vector<float> got = x.get_data<float>();
            ErrorMeter meter;
            for (int64_t i = 0; i < kLanes; ++i) meter.add(got[i], double(start[i]) + 1.0);
            r.error = meter.error();
            r.checked = fmt::format("all {} lanes", kLanes);
            return r.error <= 1e-6;
        },
        options);
    r.ok = m.ok;
    r.timing = m.timing;
    return r;
}

// The same floor for dispatches of the engine's own kernels, each reading what the one before
// it wrote, as a decode step's small ops do: a chain of et_vk.rms_norm calls over one row of
// 2048 (one workgroup; weight 1, so every call gives the first's result again) between two
// tensors, timed like the tick chain. A decode step's GPU time is about its dispatch count
// times this.
// With `alternate`, every other call is an aten.add.Tensor of zeros instead (the row copied
// back): two pipelines taking turns, as a program's different kernels do.
Result norm_chain(Context& ctx, MeasureOptions options, bool alternate) {
    constexpr int64_t kRow = 2048;
    const std::vector<float> start = random_values(kRow, 5);
    Tensor a = ctx.tensor(DType::f32, {1, kRow}).set_data(start);
    Tensor b = ctx.tensor(DType::f32, {1, kRow});
    Tensor ones = ctx.tensor(DType::f32, {kRow}).set_data(std::vector<float>(kRow, 1.f));
    Tensor zeros = ctx.tensor(DType::f32, {1, kRow}).set_data(std::vector<float>(kRow, 0.f));
    options.wall = true;
    options.max_reps = 1000;
    Result r;
    r.group = "ceiling";
    r.name = alternate ? "dispatch chain (rms_norm and add taking turns)"
                       : "dispatch chain (et_vk.rms_norm, 1 x 2048)";
    r.kernel = "rms_norm";
    int calls = 0;
    Measured m = measure(
        ctx,
        [&] {
            const bool even = calls++ % 2 == 0;
            if (alternate && !even) {
                ctx.record(op("aten.add.Tensor"), {b, zeros, 1.0, a});
            } else {
                ctx.record(op("et_vk.rms_norm.default"), {even ? a : b, ones, 1e-5, even ? b : a});
            }
        },
        [&] {
            double q = 0;
            for (float v : start) q += double(v) * v;
            const double inv = 1 / std::sqrt(q / kRow + 1e-5);
            const std::vector<float> got = download(calls % 2 == 1 ? b : a);
            ErrorMeter meter;
            for (int64_t i = 0; i < kRow; ++i) meter.add(got[size_t(i)], start[size_t(i)] * inv);
            r.error = meter.error();
            r.checked = fmt::format("all {} values", kRow);
            return r.error <= 1e-4;
        },
        options);
    r.ok = m.ok;
    r.timing = m.timing;
    return r;
}

}  // namespace

Ceilings measure_ceilings(Context& ctx, const MeasureOptions& options, std::vector<Result>& rows) {
    Ceilings c;
    rows.push_back(copy_ceiling(ctx, options));
    if (rows.back().ok) c.copy_gbps = rows.back().gbps();
    rows.push_back(fma_ceiling(ctx, options, false));
    if (rows.back().ok) c.fma_gflops = rows.back().gflops();
    if (ctx.device_info().features.shader_f16) {
        rows.push_back(fma_ceiling(ctx, options, true));
        if (rows.back().ok) c.fma_f16_gflops = rows.back().gflops();
    }
    rows.push_back(dispatch_overhead(ctx, options));
    rows.push_back(norm_chain(ctx, options, false));
    rows.push_back(norm_chain(ctx, options, true));
    return c;
}

}  // namespace wgx::bench
