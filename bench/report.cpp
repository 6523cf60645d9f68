#include "report.h"

#include <fmt/format.h>

#include <map>

namespace wgx::bench {
namespace {

double percent(double value, double ceiling) { return ceiling > 0 ? 100.0 * value / ceiling : 0; }

constexpr std::string_view kBefore = "before:";

// The best sweep row of each problem among the GEMM variants, by GFLOP/s, and the row of the
// kernel used before them (null when not run).
struct Best {
    const Result* variant = nullptr;
    const Result* before = nullptr;
};
std::map<std::string, Best> sweep_best(const std::vector<Result>& rows) {
    std::map<std::string, Best> best;
    for (const Result& r : rows) {
        if (r.group != "sweep" || !r.ok) continue;
        Best& b = best[r.name];
        if (r.kernel.starts_with(kBefore)) {
            b.before = &r;
        } else if (!b.variant || r.gflops() > b.variant->gflops()) {
            b.variant = &r;
        }
    }
    return best;
}

std::string methods(const std::vector<Result>& rows) {
    std::string out;
    for (const Result& r : rows) {
        if (!r.ok || r.timing.method.empty() || out.find(r.timing.method) != std::string::npos)
            continue;
        out += (out.empty() ? "" : "; ") + r.timing.method;
    }
    return out;
}

}  // namespace

void print_table(const DeviceInfo& device, const Ceilings& ceilings,
                 const std::vector<Result>& rows) {
    const auto& a = device.adapter;
    fmt::print("device:   {} ({}, {}; {})\n", a.name, to_string(a.type), a.backend, a.driver);
    fmt::print("timing:   {} (median per call)\n", methods(rows));
    if (ceilings.copy_gbps > 0 || ceilings.fma_gflops > 0) {
        fmt::print("ceilings: copy {:.1f} GB/s, fma f32 {:.1f} GFLOP/s", ceilings.copy_gbps,
                   ceilings.fma_gflops);
        if (ceilings.fma_f16_gflops > 0) {
            fmt::print(", fma f16 {:.1f} GFLOP/s", ceilings.fma_f16_gflops);
        }
        fmt::print("\n");
    } else {
        fmt::print("ceilings: not measured (the % columns need the ceiling group)\n");
    }
    std::string group;
    for (const Result& r : rows) {
        if (r.group != group) {
            group = r.group;
            fmt::print("\n{:<62} {:>10} {:>9} {:>8} {:>6} {:>6}  {}\n", group, "ms", "GFLOP/s",
                       "GB/s", "%fma", "%copy", "kernel");
        }
        if (!r.failure.empty()) {
            fmt::print("{:<62} FAILED: {}\n", r.name, r.failure);
            continue;
        }
        if (!r.ok) {
            fmt::print("{:<62} WRONG RESULT (error {:.3g} over {}): not timed  {}\n", r.name,
                       r.error, r.checked, r.kernel);
            continue;
        }
        auto pct = [](double value, double ceiling) {
            return ceiling > 0 ? fmt::format("{:.1f}", percent(value, ceiling)) : std::string("-");
        };
        fmt::print("{:<62} {:>10.4f} {:>9.1f} {:>8.1f} {:>6} {:>6}  {}\n", r.name, r.timing.ms,
                   r.gflops(), r.gbps(), pct(r.gflops(), ceilings.fma_gflops),
                   pct(r.gbps(), ceilings.copy_gbps), r.kernel);
    }
    auto best = sweep_best(rows);
    if (!best.empty()) fmt::print("\nbest variant per problem:\n");
    for (const auto& [name, b] : best) {
        if (!b.variant) continue;
        fmt::print("  {:<28} {:<18} {:.1f} GFLOP/s ({:.1f} % of fma f32)", name, b.variant->kernel,
                   b.variant->gflops(), percent(b.variant->gflops(), ceilings.fma_gflops));
        if (b.before) {
            fmt::print(", {:.2f}x the kernel before ({:.1f} GFLOP/s)",
                       b.variant->gflops() / b.before->gflops(), b.before->gflops());
        }
        fmt::print("\n");
    }
    size_t checked = 0, wrong = 0;
    for (const Result& r : rows) (r.ok ? checked : wrong)++;
    fmt::print("\n{} cases matched their CPU reference{}\n", checked,
               wrong ? fmt::format(", {} did NOT (not timed)", wrong) : "");
}

nlohmann::json to_json(const DeviceInfo& device, const Ceilings& ceilings,
                       const std::vector<Result>& rows) {
    const auto& a = device.adapter;
    nlohmann::json out;
    out["device"] = {{"name", a.name},
                     {"type", to_string(a.type)},
                     {"backend", a.backend},
                     {"driver", a.driver},
                     {"webgpu", webgpu_implementation()}};
    out["ceilings"] = {{"copy_gbps", ceilings.copy_gbps},
                       {"fma_f32_gflops", ceilings.fma_gflops},
                       {"fma_f16_gflops", ceilings.fma_f16_gflops}};
    nlohmann::json list = nlohmann::json::array();
    for (const Result& r : rows) {
        nlohmann::json j = {{"group", r.group},     {"name", r.name},   {"kernel", r.kernel},
                            {"ok", r.ok},           {"error", r.error}, {"checked", r.checked},
                            {"failure", r.failure}, {"flops", r.flops}, {"bytes", r.bytes}};
        if (r.ok) {
            j["ms"] = r.timing.ms;
            j["gflops"] = r.gflops();
            j["gbps"] = r.gbps();
            // null when the ceilings were not measured in this run
            j["pct_fma_f32"] = ceilings.fma_gflops > 0
                                   ? nlohmann::json(percent(r.gflops(), ceilings.fma_gflops))
                                   : nlohmann::json(nullptr);
            j["pct_copy"] = ceilings.copy_gbps > 0
                                ? nlohmann::json(percent(r.gbps(), ceilings.copy_gbps))
                                : nlohmann::json(nullptr);
            j["timing"] = r.timing.method;
            j["samples"] = r.timing.samples;
        }
        list.push_back(std::move(j));
    }
    out["results"] = std::move(list);
    nlohmann::json best = nlohmann::json::object();
    for (const auto& [name, b] : sweep_best(rows)) {
        if (!b.variant) continue;
        best[name] = {{"variant", b.variant->kernel}, {"gflops", b.variant->gflops()}};
        if (b.before) best[name]["before_gflops"] = b.before->gflops();
    }
    if (!best.empty()) out["sweep_best"] = std::move(best);
    return out;
}

}  // namespace wgx::bench
