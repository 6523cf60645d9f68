// How wgx_microbench times one kernel call: the call is recorded `reps` times into one recording
// and run; the time per call is the median over the calls of GPU timestamps (Context::profile())
// where the device has them, else the wall time of submit() + sync() divided by `reps`. Before
// timing, the recording is run for `warm_seconds` so a GPU that lowered its clocks while idle
// has raised them again (docs/PERFORMANCE.md#gpu-clocks-and-warm-up).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "wgx/context.h"

namespace wgx::bench {

struct MeasureOptions {
    bool wall = false;          // wall clock even where timestamps exist
    double min_seconds = 0.3;   // aim for at least this much timed GPU work per case
    int max_reps = 50;          // calls per recording at most
    double warm_seconds = 0.1;  // the timed recording runs this long first (GPU clocks up)
};

struct Timing {
    double ms = 0;                     // per call, median
    std::string method;                // how it was timed (see method_name)
    std::vector<std::string> kernels;  // labels of one call's dispatches (timestamps only)
    int samples = 0;                   // calls timed
};

// `record` records one call into ctx (it may be called many times). `check` runs once after the
// first (warm-up) run and returns false when the output is wrong; then nothing is timed and
// ok = false. Leaves the context's recording empty.
struct Measured {
    bool ok = false;
    Timing timing;
};
Measured measure(Context& ctx, const std::function<void()>& record,
                 const std::function<bool()>& check, const MeasureOptions& options);

}  // namespace wgx::bench
