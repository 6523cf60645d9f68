// Per-op GPU time for `wgx bench --profile` and `wgx generate --profile`: several timed runs of the
// recording (GPU timestamps around every dispatch), reduced to a median per dispatch and summed per
// program op.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "wgx/context.h"

namespace wgx::cli {

struct OpTime {
    std::string scope;    // "#12 aten.convolution.default"
    std::string kernels;  // the labels of its dispatches
    size_t dispatches = 0;
    double ms = 0;  // median over runs, summed over its dispatches
};

struct ProfileSummary {
    std::vector<OpTime> ops;  // sorted by time, longest first
    double gpu_sum_ms = 0;    // sum over every dispatch
    size_t dispatches = 0;
    bool inside_passes = true;
    int runs = 0;
};

// `runs` timed runs of what `ctx` has recorded.
ProfileSummary profile_recording(Context& ctx, int runs);
// `runs` calls of `run_once`, each one run with timestamps (Context::profile, Runner::profile).
ProfileSummary profile_runs(const std::function<Profile()>& run_once, int runs);

void print_profile(const ProfileSummary& p, double resident_median_ms, size_t top);
nlohmann::json profile_json(const ProfileSummary& p);

}  // namespace wgx::cli
