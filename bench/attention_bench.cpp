#include "attention_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace wgx::bench {
namespace {

struct AttentionCase {
    int64_t heads, tokens, head_size;
    const char* where;
};

const std::vector<AttentionCase> kCases = {
    {12, 197, 64, "ViT-B/16"},
    {6, 197, 64, "ViT-S/16"},
    {8, 256, 32, "256 tokens, head 32"},
    {16, 50, 64, "ViT-L/32 at 224"},
};

// out [heads, tokens, d] from a packed projection [tokens, 3 * heads * d] (q, k, v in thirds,
// each split into heads), in float64.
std::vector<double> reference(const AttentionCase& c, const std::vector<float>& qkv, double scale) {
    const int64_t H = c.heads, L = c.tokens, d = c.head_size, E = H * d;
    auto at = [&](int64_t part, int64_t h, int64_t l, int64_t col) {
        return double(qkv[size_t(l * 3 * E + part * E + h * d + col)]);
    };
    std::vector<double> out(size_t(H * L * d));
    std::vector<double> s(static_cast<size_t>(L));
    for (int64_t h = 0; h < H; ++h) {
        for (int64_t i = 0; i < L; ++i) {
            double m = -INFINITY, sum = 0;
            for (int64_t j = 0; j < L; ++j) {
                double dot = 0;
                for (int64_t col = 0; col < d; ++col) dot += at(0, h, i, col) * at(1, h, j, col);
                s[size_t(j)] = scale * dot;
                m = std::max(m, s[size_t(j)]);
            }
            for (double& x : s) sum += (x = std::exp(x - m));
            for (int64_t col = 0; col < d; ++col) {
                double acc = 0;
                for (int64_t j = 0; j < L; ++j) acc += s[size_t(j)] * at(2, h, j, col);
                out[size_t((h * L + i) * d + col)] = acc / sum;
            }
        }
    }
    return out;
}

// Sums of at most 256 exponentials and 64-long dot products of values in [-1, 1).
constexpr double kAttentionTolerance = 1e-4;

}  // namespace

void bench_attention(Context& ctx, const MeasureOptions& options, const std::string& filter,
                     DType dtype, std::vector<Result>& rows) {
    const double element = dtype == DType::f16 ? 2.0 : 4.0;
    for (const AttentionCase& c : kCases) {
        const int64_t H = c.heads, L = c.tokens, d = c.head_size, E = H * d;
        Result r;
        r.group = "attention";
        r.name = fmt::format("attention {}x{}x{}{} ({})", H, L, d, dtype_suffix(dtype), c.where);
        if (!filter.empty() && r.name.find(filter) == std::string::npos) continue;
        fmt::print(stderr, "  {}\n", r.name);

        std::vector<float> qkv = random_values(size_t(L * 3 * E), 41);
        Tensor t = upload(ctx, dtype, {L, 3 * E}, qkv);
        Tensor out = poisoned(ctx, dtype, {H, L, d});
        const double scale = 1.0 / std::sqrt(double(d));
        r.flops = 4.0 * double(H) * double(L) * double(L) * double(d);
        r.bytes = element * double(qkv.size() + size_t(H * L * d));
        const std::vector<int64_t> q_view{0, d, 3 * E, 1}, k_view{E, d, 3 * E, 1},
            v_view{2 * E, d, 3 * E, 1}, sizes{H, L, L, d, d};
        Measured m = measure(
            ctx,
            [&] {
                ctx.record(op("wgx.attention.default"),
                           {t, t, t, q_view, k_view, v_view, sizes, scale, false, out});
            },
            [&] {
                return check_all(r, download(out), reference(c, qkv, scale),
                                 dtype == DType::f16 ? kFloat16Tolerance : kAttentionTolerance);
            },
            options);
        add_measured(rows, std::move(r), m);
    }
}

}  // namespace wgx::bench
