#include "quant_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "wgx/op.h"

namespace wgx::bench {
namespace {

struct QuantCase {
    int64_t M, K, N;
    const char* where;
};

constexpr int64_t kGroup = 32;

// Llama-3.2-1B's linear layers at one token (a decode step reads each weight once), and over a
// 127-token prompt chunk (a prefill: the tiled GEMM, or with WGX_Q4_GEMM=0 the 8-row kernel).
const std::vector<QuantCase> kCases = {
    {1, 2048, 2048, "Llama-3.2-1B q / o projection"},
    {1, 2048, 512, "Llama-3.2-1B k / v projection"},
    {1, 2048, 8192, "Llama-3.2-1B w1 / w3"},
    {1, 8192, 2048, "Llama-3.2-1B w2"},
    {1, 2048, 128256, "Llama-3.2-1B output"},
    {127, 2048, 2048, "Llama-3.2-1B q / o projection, 127-token prefill"},
    {127, 2048, 512, "Llama-3.2-1B k / v projection, 127-token prefill"},
    {127, 2048, 8192, "Llama-3.2-1B w1 / w3, 127-token prefill"},
    {127, 8192, 2048, "Llama-3.2-1B w2, 127-token prefill"},
};

// torchao's per-row asymmetric int8 quantization in float32, then back: what the dq8ca kernel
// multiplies, as the CPU reference sees it.
std::vector<double> quantize_dequantize_rows(const std::vector<float>& x, int64_t M, int64_t K) {
    std::vector<double> out(x.size());
    for (int64_t m = 0; m < M; ++m) {
        const float* row = x.data() + m * K;
        float lo = 0.f, hi = 0.f;
        for (int64_t k = 0; k < K; ++k) lo = std::min(lo, row[k]), hi = std::max(hi, row[k]);
        const float scale = std::max((hi - lo) / 255.f, std::numeric_limits<float>::min());
        const float zp = std::clamp(-128.f - std::nearbyint(lo / scale), -128.f, 127.f);
        const float inv = 1.f / scale;
        for (int64_t k = 0; k < K; ++k) {
            const float q = std::clamp(std::nearbyint(row[k] * inv) + zp, -128.f, 127.f);
            out[size_t(m * K + k)] = (double(q) - double(zp)) * double(scale);
        }
    }
    return out;
}

// fp32 sums of up to 8192 products: far below this; a wrong nibble or scale is far above.
constexpr double kQuantTolerance = 1e-4;

}  // namespace

void bench_quant(Context& ctx, const MeasureOptions& options, const std::string& filter,
                 std::vector<Result>& rows) {
    for (const bool dq8ca : {false, true}) {
        for (const QuantCase& c : kCases) {
            Result r;
            r.group = "quant";
            r.name = fmt::format("{} {}x{}x{} g{} ({})", dq8ca ? "8da4w" : "4w", c.M, c.K, c.N,
                                 kGroup, c.where);
            if (!filter.empty() && r.name.find(filter) == std::string::npos) continue;
            fmt::print(stderr, "  {}\n", r.name);
            std::vector<float> x = random_values(size_t(c.M * c.K), 21);
            std::vector<float> scales = random_values(size_t(c.K / kGroup * c.N), 22);
            for (float& s : scales) s = 0.002f + 0.03f * std::abs(s);
            // Packed nibbles from random bytes (two weights a byte).
            std::vector<float> noise = random_values(size_t(c.N * c.K / 2), 23);
            std::vector<uint8_t> packed(noise.size());
            for (size_t i = 0; i < noise.size(); ++i) {
                packed[i] = uint8_t(std::min(255.f, (noise[i] + 1.f) * 128.f));
            }
            Tensor tx = ctx.tensor(DType::f32, {c.M, c.K}).set_data(x);
            Tensor tw = ctx.tensor(DType::u8, {c.N, c.K / 2}).set_data(packed);
            Tensor ts = ctx.tensor(DType::f32, {c.K / kGroup, c.N}).set_data(scales);
            Tensor tsums = ctx.tensor(DType::i32, {c.K / kGroup, c.N})
                               .set_data(std::vector<int32_t>(scales.size(), 0));
            Tensor out = poisoned(ctx, DType::f32, {c.M, c.N});
            r.flops = 2.0 * double(c.M) * double(c.N) * double(c.K);
            r.bytes = double(packed.size()) + 4.0 * double(scales.size()) +
                      4.0 * double(x.size() + size_t(c.M * c.N));
            const std::vector<double> a = dq8ca ? quantize_dequantize_rows(x, c.M, c.K)
                                                : std::vector<double>(x.begin(), x.end());
            auto want = [&](int64_t m, int64_t n) {
                double s = 0;
                for (int64_t k = 0; k < c.K; ++k) {
                    const uint8_t byte = packed[size_t(n * c.K / 2 + k / 2)];
                    const int nib = k % 2 == 0 ? byte & 15 : byte >> 4;
                    s += a[size_t(m * c.K + k)] * double(nib - 8) *
                         double(scales[size_t((k / kGroup) * c.N + n)]);
                }
                return s;
            };
            auto record = [&] {
                if (dq8ca) {
                    ctx.record(op("wgx.linear_dq8ca_q4gsw.default"),
                               {tx, double(std::numeric_limits<float>::min()), tw, tsums, ts,
                                kGroup, std::nullopt, out});
                } else {
                    ctx.record(op("et_vk.linear_q4gsw.default"), {tx, tw, ts, kGroup, out});
                }
            };
            auto check = [&] {
                const std::vector<float> got = download(out);
                ErrorMeter meter;
                const int64_t step = std::max<int64_t>(1, c.N / 256);
                for (int64_t m : {int64_t(0), c.M - 1}) {
                    for (int64_t n = 0; n < c.N; n += step)
                        meter.add(got[size_t(m * c.N + n)], want(m, n));
                    meter.add(got[size_t(m * c.N + c.N - 1)], want(m, c.N - 1));
                }
                r.error = meter.error();
                r.checked = fmt::format("{} sampled outputs", meter.count());
                return r.error <= kQuantTolerance;
            };
            add_measured(rows, std::move(r), measure(ctx, record, check, options));
        }
    }
}

}  // namespace wgx::bench
