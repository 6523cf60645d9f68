#include "attention_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>

namespace wgx::bench {
namespace {

// q, k and v cut by strides from one packed projection of `lk` tokens: per token q (heads x d),
// k (heads x d), v (heads x dv). The first `lq` tokens are the queries.
struct AttentionCase {
    int64_t heads, lq, lk, d, dv;
    const char* where;
    // Checks run with variant files (not timed for long): the projection stored transposed
    // ([features, tokens]: column stride lk, row stride 1), and query rows whose scores are all
    // -inf (q[h, i, 0] = -inf for i % 7 == 3 with k[h, j, 0] > 0), which give 0 or NaN.
    bool check = false;
    bool transposed = false;
    bool masked_rows = false;
    bool zero_masked_rows = false;
};

const std::vector<AttentionCase> kCases = {
    {12, 197, 197, 64, 64, "ViT-B/16"},
    {6, 197, 197, 64, 64, "ViT-S/16"},
    {8, 256, 256, 32, 32, "256 tokens, head 32"},
    {16, 50, 50, 64, 64, "ViT-L/32 at 224"},
};

// Sizes off every tile and vector width, fewer queries than keys, d != dv, the op's limits.
const std::vector<AttentionCase> kChecks = {
    {3, 29, 37, 18, 22, "-inf rows zeroed", true, false, true, true},
    {3, 29, 37, 18, 22, "-inf rows NaN", true, false, true, false},
    {2, 45, 19, 12, 7, "transposed", true, true},
    {2, 256, 256, 128, 128, "largest", true},
};

int64_t row_width(const AttentionCase& c) { return c.heads * (2 * c.d + c.dv); }

// Where feature `col` of head h of part 0/1/2 (q, k, v) starts within a token's features.
int64_t feature(const AttentionCase& c, int64_t part, int64_t h, int64_t col) {
    return part * c.heads * c.d + h * (part == 2 ? c.dv : c.d) + col;
}

int64_t element(const AttentionCase& c, int64_t part, int64_t h, int64_t token, int64_t col) {
    const int64_t f = feature(c, part, h, col);
    return c.transposed ? f * c.lk + token : token * row_width(c) + f;
}

// [offset, batch, row, col] of part 0/1/2 through the packed projection.
std::vector<int64_t> view(const AttentionCase& c, int64_t part) {
    const int64_t origin = element(c, part, 0, 0, 0);
    return {origin, element(c, part, 1, 0, 0) - origin, element(c, part, 0, 1, 0) - origin,
            element(c, part, 0, 0, 1) - origin};
}

bool masked(const AttentionCase& c, int64_t i) { return c.masked_rows && i % 7 == 3; }

// Random projection values; for masked rows, -inf in q's first column and a positive first
// column of k, so every score of those rows is -inf.
std::vector<float> projection(const AttentionCase& c) {
    std::vector<float> x = random_values(size_t(c.lk * row_width(c)), 41);
    if (!c.masked_rows) return x;
    for (int64_t h = 0; h < c.heads; ++h) {
        for (int64_t j = 0; j < c.lk; ++j) {
            float& k0 = x[size_t(element(c, 1, h, j, 0))];
            k0 = 0.5f + 0.5f * std::abs(k0);
        }
        for (int64_t i = 0; i < c.lq; ++i) {
            if (masked(c, i)) x[size_t(element(c, 0, h, i, 0))] = -INFINITY;
        }
    }
    return x;
}

// out [heads, lq, dv] in float64; NaN where a masked row must give NaN.
std::vector<double> reference(const AttentionCase& c, const std::vector<float>& x, double scale) {
    auto at = [&](int64_t part, int64_t h, int64_t l, int64_t col) {
        return double(x[size_t(element(c, part, h, l, col))]);
    };
    std::vector<double> out(size_t(c.heads * c.lq * c.dv));
    std::vector<double> s(static_cast<size_t>(c.lk));
    for (int64_t h = 0; h < c.heads; ++h) {
        for (int64_t i = 0; i < c.lq; ++i) {
            double* o = &out[size_t((h * c.lq + i) * c.dv)];
            if (masked(c, i)) {
                std::fill(o, o + c.dv, c.zero_masked_rows ? 0.0 : NAN);
                continue;
            }
            double m = -INFINITY, sum = 0;
            for (int64_t j = 0; j < c.lk; ++j) {
                double dot = 0;
                for (int64_t col = 0; col < c.d; ++col) dot += at(0, h, i, col) * at(1, h, j, col);
                s[size_t(j)] = scale * dot;
                m = std::max(m, s[size_t(j)]);
            }
            for (double& e : s) sum += (e = std::exp(e - m));
            for (int64_t col = 0; col < c.dv; ++col) {
                double acc = 0;
                for (int64_t j = 0; j < c.lk; ++j) acc += s[size_t(j)] * at(2, h, j, col);
                o[col] = acc / sum;
            }
        }
    }
    return out;
}

// Sums of at most 256 exponentials and 128-long dot products of values in [-1, 1).
constexpr double kAttentionTolerance = 1e-4;

// check_all over the outputs with a finite reference; where the reference is NaN (a masked row
// without zero_masked_rows) the output must be NaN too.
bool check(Result& r, const std::vector<float>& got, const std::vector<double>& want,
           double tolerance) {
    std::vector<float> finite_got;
    std::vector<double> finite_want;
    size_t nan_wanted = 0, nan_missing = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        if (std::isnan(want[i])) {
            ++nan_wanted;
            if (!std::isnan(got.at(i))) ++nan_missing;
        } else {
            finite_got.push_back(got.at(i));
            finite_want.push_back(want[i]);
        }
    }
    bool ok = check_all(r, finite_got, finite_want, tolerance);
    if (nan_wanted > 0) {
        r.checked += fmt::format(" and {} NaN ones", nan_wanted);
        if (nan_missing > 0) {
            r.error = std::numeric_limits<double>::infinity();
            ok = false;
        }
    }
    return ok;
}

// An error message in one line: its first line and the lines after it that say "error" (a
// shader compiler's message quotes the source over many lines around the one that matters).
std::string one_line(const std::string& message) {
    std::string out;
    std::stringstream in(message);
    for (std::string line; std::getline(in, line);) {
        const size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos) continue;
        line = line.substr(start);
        if (out.empty()) {
            out = line;
        } else if (line.find("error") != std::string::npos) {
            out += " " + line;
        }
    }
    return out;
}

// The kernels compared on every case: the built-in op (no label), then each variant.
struct Candidate {
    const Op* op;
    std::string label;
};

void run_case(Context& ctx, const MeasureOptions& options, const std::string& filter, DType dtype,
              const AttentionCase& c, const Candidate& kernel, std::vector<Result>& rows) {
    Result r;
    r.group = "attention";
    const std::string sizes = c.d == c.dv && c.lq == c.lk
                                  ? fmt::format("{}x{}x{}", c.heads, c.lk, c.d)
                                  : fmt::format("{}x{}x{}x{}x{}", c.heads, c.lq, c.lk, c.d, c.dv);
    r.name =
        fmt::format("attention {}{}{} ({}){}{}", c.check ? "check " : "", sizes,
                    dtype_suffix(dtype), c.where, kernel.label.empty() ? "" : " ", kernel.label);
    if (!filter.empty() && r.name.find(filter) == std::string::npos) return;
    fmt::print(stderr, "  {}\n", r.name);

    std::vector<float> x = projection(c);
    const Shape shape = c.transposed ? Shape{row_width(c), c.lk} : Shape{c.lk, row_width(c)};
    Tensor t = upload(ctx, dtype, shape, x);
    // NaN-poisoned, unless NaN is the right answer somewhere: then a finite poison.
    const Shape out_shape{c.heads, c.lq, c.dv};
    std::vector<float> fill(size_t(c.heads * c.lq * c.dv), 12345.0f);
    Tensor out = c.masked_rows && !c.zero_masked_rows ? upload(ctx, dtype, out_shape, fill)
                                                      : poisoned(ctx, dtype, out_shape);
    const double scale = 1.0 / std::sqrt(double(c.d));
    const double element_bytes = dtype == DType::f16 ? 2.0 : 4.0;
    r.flops = 2.0 * double(c.heads) * double(c.lq) * double(c.lk) * double(c.d + c.dv);
    r.bytes = element_bytes * double(x.size() + size_t(c.heads * c.lq * c.dv));
    const std::vector<int64_t> sizes_arg{c.heads, c.lq, c.lk, c.d, c.dv};
    // Checks are timed too, but only for a few calls.
    MeasureOptions once = options;
    once.min_seconds = 0;
    once.warm_seconds = 0;
    auto record = [&] {
        ctx.record(*kernel.op, {t, t, t, view(c, 0), view(c, 1), view(c, 2), sizes_arg, scale,
                                c.zero_masked_rows, out});
    };
    auto compare = [&] {
        return check(r, download(out), reference(c, x, scale),
                     dtype == DType::f16 ? kFloat16Tolerance : kAttentionTolerance);
    };
    try {
        const Measured m = measure(ctx, record, compare, c.check ? once : options);
        add_measured(rows, std::move(r), m);
    } catch (const Error& e) {
        // A variant that does not compile or is refused is reported (in full here, in one line
        // in the table), and the others still run.
        fmt::print(stderr, "    failed: {}\n", e.what());
        r.failure = one_line(e.what());
        rows.push_back(std::move(r));
    }
}

}  // namespace

void bench_attention(Context& ctx, const MeasureOptions& options, const std::string& filter,
                     DType dtype, const std::vector<AttentionVariant>& variants,
                     std::vector<Result>& rows) {
    std::vector<std::unique_ptr<AttentionVariantOp>> ops;
    std::vector<Candidate> kernels{{&op("wgx.attention.default"), ""}};
    for (const AttentionVariant& v : variants) {
        ops.push_back(std::make_unique<AttentionVariantOp>(v));
        kernels.push_back({ops.back().get(), v.label});
    }
    std::vector<AttentionCase> cases = kCases;
    if (!variants.empty()) cases.insert(cases.end(), kChecks.begin(), kChecks.end());
    for (const AttentionCase& c : cases) {
        for (const Candidate& k : kernels) run_case(ctx, options, filter, dtype, c, k, rows);
    }
}

}  // namespace wgx::bench
