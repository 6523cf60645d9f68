#include "bench_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace wgx::cli {

ProfileSummary profile_recording(Context& ctx, int runs) {
    return profile_runs([&ctx] { return ctx.profile(); }, runs);
}

ProfileSummary profile_runs(const std::function<Profile()>& run_once, int runs) {
    ProfileSummary out;
    out.runs = runs;
    std::vector<Profile> profiles;
    profiles.reserve(size_t(runs));
    for (int r = 0; r < runs; ++r) profiles.push_back(run_once());
    const auto& first = profiles.front().dispatches;
    out.dispatches = first.size();
    out.inside_passes = profiles.front().inside_passes;

    // The median of each dispatch over the runs damps clock noise without hiding slow kernels.
    std::map<std::string, size_t> index_of;  // scope -> row
    for (size_t d = 0; d < first.size(); ++d) {
        std::vector<double> ms;
        ms.reserve(profiles.size());
        for (const Profile& p : profiles) ms.push_back(p.dispatches.at(d).ms);
        std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
        double median = ms[ms.size() / 2];
        out.gpu_sum_ms += median;
        // Dispatches recorded outside a program op (input/output copies are not dispatches)
        // are grouped under their kernel label.
        std::string scope = first[d].scope.empty() ? first[d].kernel : first[d].scope;
        auto [it, added] = index_of.emplace(scope, out.ops.size());
        if (added) out.ops.push_back({scope, "", 0, 0});
        OpTime& op = out.ops[it->second];
        if (op.kernels.find(first[d].kernel) == std::string::npos) {
            op.kernels += (op.kernels.empty() ? "" : ", ") + first[d].kernel;
        }
        ++op.dispatches;
        op.ms += median;
    }
    std::stable_sort(out.ops.begin(), out.ops.end(),
                     [](const OpTime& a, const OpTime& b) { return a.ms > b.ms; });
    return out;
}

namespace {

// "aten.convolution.default" from "#12 aten.convolution.default".
std::string op_name(const std::string& scope) {
    auto space = scope.find(' ');
    return scope.starts_with('#') && space != std::string::npos ? scope.substr(space + 1) : scope;
}

}  // namespace

void print_profile(const ProfileSummary& p, double resident_median_ms, size_t top) {
    fmt::print("\nGPU time per op ({} dispatches, median of {} runs; {}):\n", p.dispatches, p.runs,
               p.inside_passes ? "timestamps inside the shared pass"
                               : "one pass per dispatch, each time includes its pass setup");
    fmt::print("{:>9} {:>6} {:>6}  {:<40} {}\n", "ms", "%", "cum %", "op", "kernels");
    double cum = 0;
    for (size_t i = 0; i < p.ops.size() && i < top; ++i) {
        const OpTime& op = p.ops[i];
        double pct = p.gpu_sum_ms > 0 ? 100 * op.ms / p.gpu_sum_ms : 0;
        cum += pct;
        fmt::print("{:>9.4f} {:>6.1f} {:>6.1f}  {:<40} {}\n", op.ms, pct, cum, op.scope,
                   op.kernels);
    }
    if (p.ops.size() > top) fmt::print("  ... {} more ops\n", p.ops.size() - top);

    std::map<std::string, std::pair<size_t, double>> by_name;
    for (const OpTime& op : p.ops) {
        auto& [count, ms] = by_name[op_name(op.scope)];
        ++count;
        ms += op.ms;
    }
    std::vector<std::pair<std::string, std::pair<size_t, double>>> names(by_name.begin(),
                                                                         by_name.end());
    std::sort(names.begin(), names.end(),
              [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    fmt::print("\nBy op name:\n{:>9} {:>6} {:>6}  {}\n", "ms", "%", "count", "op");
    for (const auto& [name, v] : names) {
        fmt::print("{:>9.4f} {:>6.1f} {:>6}  {}\n", v.second,
                   p.gpu_sum_ms > 0 ? 100 * v.second / p.gpu_sum_ms : 0, v.first, name);
    }
    fmt::print(
        "\nsum of dispatch times {:.3f} ms; GPU-resident median {:.3f} ms (the difference is "
        "launch gaps, barriers and copies)\n",
        p.gpu_sum_ms, resident_median_ms);
}

nlohmann::json profile_json(const ProfileSummary& p) {
    nlohmann::json ops = nlohmann::json::array();
    for (const OpTime& op : p.ops) {
        ops.push_back({{"op", op.scope},
                       {"kernels", op.kernels},
                       {"dispatches", op.dispatches},
                       {"ms", op.ms}});
    }
    return {{"method", p.inside_passes ? "timestamps inside the pass" : "one pass per dispatch"},
            {"runs", p.runs},
            {"dispatches", p.dispatches},
            {"gpu_sum_ms", p.gpu_sum_ms},
            {"ops", ops}};
}

}  // namespace wgx::cli
