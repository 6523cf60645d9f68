#include "measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace wgx::bench {
namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

Measured measure(Context& ctx, const std::function<void()>& record,
                 const std::function<bool()>& check, const MeasureOptions& options) {
    Measured out;
    // Warm-up and check: one call. Its wall time sizes the timed recording.
    ctx.reset();
    record();
    auto start = std::chrono::steady_clock::now();
    ctx.submit();
    ctx.sync();
    double once = std::max(seconds_since(start), 1e-6);
    bool ok = check();
    ctx.reset();
    if (!ok) return out;
    out.ok = true;

    const int reps =
        std::clamp(static_cast<int>(std::ceil(options.min_seconds / once)), 1, options.max_reps);
    // At least three timed calls in all, over as many runs of the recording as that takes.
    const int runs = std::max(1, (3 + reps - 1) / reps);
    for (int i = 0; i < reps; ++i) record();

    // Keep the GPU busy before timing: an idle GPU lowers its clocks and takes tens of
    // milliseconds to raise them, so a case timed right after the CPU compiled its pipeline
    // would run at a fraction of speed (docs/PERFORMANCE.md#gpu-clocks-and-warm-up).
    const auto warm_start = std::chrono::steady_clock::now();
    do {
        ctx.submit();
        ctx.sync();
    } while (seconds_since(warm_start) < options.warm_seconds);

    const bool timestamps = !options.wall && ctx.device_info().features.timestamp_query;
    std::vector<double> per_call;
    if (timestamps) {
        bool inside = true;
        for (int r = 0; r < runs; ++r) {
            Profile p = ctx.profile();
            inside = p.inside_passes;
            const size_t per = p.dispatches.size() / reps;  // dispatches of one call
            for (int c = 0; c < reps; ++c) {
                double ms = 0;
                for (size_t d = 0; d < per; ++d) ms += p.dispatches[c * per + d].ms;
                per_call.push_back(ms);
            }
            if (r == 0) {
                for (size_t d = 0; d < per; ++d)
                    out.timing.kernels.push_back(p.dispatches[d].kernel);
            }
        }
        out.timing.method = inside ? "gpu-timestamps" : "gpu-timestamps (pass per dispatch)";
    } else {
        for (int r = 0; r < runs; ++r) {
            auto t = std::chrono::steady_clock::now();
            ctx.submit();
            ctx.sync();
            double ms = seconds_since(t) * 1e3 / reps;
            for (int c = 0; c < reps; ++c) per_call.push_back(ms);
        }
        out.timing.method = "wall (submit+sync)";
    }
    ctx.reset();
    out.timing.ms = median(per_call);
    out.timing.samples = static_cast<int>(per_call.size());
    return out;
}

}  // namespace wgx::bench
