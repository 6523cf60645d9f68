#include "attention_variant.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ops/common/float16_support.h"
#include "ops/matmul/attention_params.h"
#include "wgx/error.h"

namespace wgx::bench {
namespace {

const std::vector<std::string> kOverrideNames = {"D", "DV", "LK", "WG"};
const std::vector<std::string> kVec4Names = {"q", "k", "v"};
constexpr std::string_view kDirective = "// bench:";

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, sep);) {
        if (!part.empty()) out.push_back(part);
    }
    return out;
}

uint32_t parse_count(const AttentionVariant& v, const std::string& key, const std::string& text,
                     uint32_t max) {
    uint32_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > max) {
        throw InvalidArgument(
            fmt::format("{}: {}={} must be a whole number in [1, {}].", v.path, key, text, max));
    }
    return n;
}

// Names from a comma list, each one of `allowed`, none twice.
std::vector<std::string> parse_names(const AttentionVariant& v, const std::string& key,
                                     const std::string& text,
                                     const std::vector<std::string>& allowed) {
    std::vector<std::string> names = split(text, ',');
    for (size_t i = 0; i < names.size(); ++i) {
        if (std::find(allowed.begin(), allowed.end(), names[i]) == allowed.end() ||
            std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i) {
            throw InvalidArgument(fmt::format("{}: {}= takes distinct names of {}, got '{}'.",
                                              v.path, key, fmt::join(allowed, ", "), names[i]));
        }
    }
    return names;
}

// The directive's settings (the first line, when it starts with "// bench:").
void parse_directive(AttentionVariant& v) {
    const std::string first = v.wgsl.substr(0, v.wgsl.find('\n'));
    if (!first.starts_with(kDirective)) return;
    std::stringstream items(first.substr(kDirective.size()));
    for (std::string item; items >> item;) {
        const size_t eq = item.find('=');
        const std::string key = item.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
        if (key == "rows") {
            v.rows = parse_count(v, key, value, 256);
        } else if (key == "wg") {
            v.wg = parse_count(v, key, value, 1024);
        } else if (key == "overrides") {
            v.overrides = parse_names(v, key, value, kOverrideNames);
        } else if (key == "vec4") {
            v.vec4 = parse_names(v, key, value, kVec4Names);
        } else {
            throw InvalidArgument(fmt::format(
                "{}: the directive '{}' has '{}'; it takes rows=N, wg=N, overrides=D,DV,LK,WG "
                "and vec4=q,k,v.",
                v.path, first, item));
        }
    }
}

// Recorder::kernel takes its overrides as an initializer list; the variant's are known only
// when its file is read.
Kernel compile(Recorder& rec, const std::string& label, std::string wgsl,
               const std::vector<Override>& o) {
    switch (o.size()) {
        case 0: return rec.kernel(label, std::move(wgsl));
        case 1: return rec.kernel(label, std::move(wgsl), {o[0]});
        case 2: return rec.kernel(label, std::move(wgsl), {o[0], o[1]});
        case 3: return rec.kernel(label, std::move(wgsl), {o[0], o[1], o[2]});
        default: return rec.kernel(label, std::move(wgsl), {o[0], o[1], o[2], o[3]});
    }
}

}  // namespace

AttentionVariant load_attention_variant(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw InvalidArgument(fmt::format("cannot read the attention kernel {}", path));
    std::stringstream text;
    text << file.rdbuf();
    AttentionVariant v;
    v.path = path;
    v.label = std::filesystem::path(path).filename().string();
    v.wgsl = text.str();
    if (v.wgsl.find("fn main") == std::string::npos) {
        throw InvalidArgument(fmt::format("{} has no entry point `fn main`.", path));
    }
    parse_directive(v);
    return v;
}

void AttentionVariantOp::record(Recorder& rec, const Args& args) const {
    const AttentionVariant& var = variant_;
    args.expect_count(10, 10);
    const Tensor& q = args.tensor(0, "q");
    const Tensor& k = args.tensor(1, "k");
    const Tensor& v = args.tensor(2, "v");
    const Tensor& out = args.tensor(9, "out");
    const DType dt =
        ops::one_float_type(rec, args, {{&q, "q"}, {&k, "k"}, {&v, "v"}, {&out, "out"}});
    // The op's own argument checks and Params (a variant takes exactly what the op takes).
    const ops::AttentionCall call = ops::attention_call(args);
    const int64_t B = call.B, Lq = call.Lq, Lk = call.Lk, D = call.D, DV = call.DV;
    const DeviceLimits& lim = rec.device().limits;
    const int64_t groups = (Lq + var.rows - 1) / var.rows;
    if (B > lim.max_workgroups_per_dimension || groups > lim.max_workgroups_per_dimension) {
        args.fail(
            fmt::format("sizes [{}, {}, {}, {}, {}] need more workgroups than the device "
                        "allows per dimension.",
                        B, Lq, Lk, D, DV));
    }
    if (var.wg > lim.max_workgroup_invocations) {
        args.fail(
            fmt::format("{} declares wg={}; the device allows {} invocations per "
                        "workgroup.",
                        var.path, var.wg, lim.max_workgroup_invocations));
    }

    std::vector<Override> overrides;
    for (const std::string& name : var.overrides) {
        const int64_t value = name == "D" ? D : name == "DV" ? DV : name == "LK" ? Lk : var.wg;
        overrides.push_back({name, double(value)});
    }
    // The label's part before '/' is dropped in the report's kernel column.
    const std::string label =
        fmt::format("attention variant/{}{}", var.label, dt == DType::f16 ? " f16" : "");
    Kernel kernel = compile(rec, label, ops::wgsl_alias(dt, "S") + var.wgsl, overrides);
    std::vector<Binding> bindings{q, k, v, out, Binding::uniform(call.params)};
    for (const std::string& name : var.vec4) {
        bindings.push_back(name == "q" ? q : name == "k" ? k : v);
    }
    rec.dispatch(kernel, std::span<const Binding>(bindings),
                 Grid{uint32_t(groups), uint32_t(B), 1});
}

}  // namespace wgx::bench
