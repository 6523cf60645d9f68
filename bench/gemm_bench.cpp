#include "gemm_bench.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>

#include "bench/baseline_mm_vec4.wgsl.h"
#include "ops/matmul/gemm.h"
#include "wgx/op.h"

namespace wgx::bench {
namespace {

struct GemmCase {
    const char* op;  // "mm", "linear", "bmm"
    int64_t batch, M, K, N;
    const char* where;  // the model layer the shape comes from
};

// Square sizes, batch-1 linear layers (a GEMV: M = 1), a ViT-B/16 MLP layer, and the two
// attention products of ViT-B/16 (12 heads, 197 tokens, head dim 64) and of a 1024-token,
// 16-head layer.
const std::vector<GemmCase> kCases = {
    {"mm", 1, 256, 256, 256, "square"},
    {"mm", 1, 1024, 1024, 1024, "square"},
    {"mm", 1, 4096, 4096, 4096, "square"},
    {"mm", 1, 1000, 999, 1001, "square, odd sizes"},
    {"linear", 1, 1, 768, 3072, "ViT-B MLP up, batch 1"},
    {"linear", 1, 1, 2048, 1000, "ResNet-50 classifier, batch 1"},
    {"linear", 1, 197, 768, 3072, "ViT-B/16 MLP up"},
    {"bmm", 12, 197, 64, 197, "ViT-B/16 attention Q K^T"},
    {"bmm", 12, 197, 197, 64, "ViT-B/16 attention P V"},
    {"bmm", 16, 1024, 64, 1024, "1024-token attention Q K^T"},
    {"bmm", 16, 1024, 1024, 64, "1024-token attention P V"},
};

// Compares C against float64 sums: every output when the problem is small, else 2048 random
// outputs plus the last row and column of the last batch (where partial tiles end).
struct GemmCheck {
    int64_t batch, M, K, N;
    const std::vector<float>& a;  // [batch, M, K] (batch stride 0 when shared: batch_a == 1)
    const std::vector<float>& b;  // [batch, K, N], or [N, K] when trans_b (shared)
    const std::vector<float>* bias;
    bool trans_b;
    bool shared_b;

    double want(int64_t z, int64_t r, int64_t c) const {
        const float* az = a.data() + z * M * K;
        const float* bz = b.data() + (shared_b ? 0 : z * K * N);
        double s = bias ? double((*bias)[c]) : 0.0;
        for (int64_t k = 0; k < K; ++k) {
            s += double(az[r * K + k]) * (trans_b ? bz[c * K + k] : bz[k * N + c]);
        }
        return s;
    }

    void run(const std::vector<float>& got, Result& r) const {
        ErrorMeter m;
        const double macs = double(batch) * M * N * K;
        if (macs <= double(1 << 26)) {
            for (int64_t z = 0; z < batch; ++z)
                for (int64_t i = 0; i < M; ++i)
                    for (int64_t j = 0; j < N; ++j) m.add(got[(z * M + i) * N + j], want(z, i, j));
            r.checked = fmt::format("all {} outputs", m.count());
        } else {
            std::vector<float> pick = random_values(2 * 2048 + 3, 77);
            auto index = [](float u, int64_t n) {
                return std::min<int64_t>(n - 1, static_cast<int64_t>((u + 1.f) * 0.5f * float(n)));
            };
            for (int s = 0; s < 2048; ++s) {
                int64_t z = index(pick[2 * s], batch), flat = index(pick[2 * s + 1], M * N);
                m.add(got[z * M * N + flat], want(z, flat / N, flat % N));
            }
            int64_t z = batch - 1;
            for (int64_t j = 0; j < N; j += std::max<int64_t>(1, N / 64)) {
                m.add(got[(z * M + M - 1) * N + j], want(z, M - 1, j));
            }
            for (int64_t i = 0; i < M; i += std::max<int64_t>(1, M / 64)) {
                m.add(got[(z * M + i) * N + N - 1], want(z, i, N - 1));
            }
            m.add(got[(z * M + M - 1) * N + N - 1], want(z, M - 1, N - 1));
            r.checked = fmt::format("{} sampled outputs", m.count());
        }
        r.error = m.error();
    }
};

// fp32 sums of up to 4096 products of values in [-1, 1): the error stays orders of magnitude
// below this, while a wrong tile or index is off by the size of the values.
constexpr double kGemmTolerance = 1e-4;

// Records one GemmCall with a forced variant (the sweep).
class VariantGemmOp final : public Op {
  public:
    explicit VariantGemmOp(ops::GemmCall call) : call_(std::move(call)) {}
    std::string_view name() const override { return "bench.gemm"; }
    void record(Recorder& rec, const Args&) const override { ops::record_gemm(rec, name(), call_); }

  private:
    ops::GemmCall call_;
};

// The mm kernel used before the GEMM family (bench/baseline_mm_vec4.wgsl): 32x32 tiles, 64
// invocations of 4x4 outputs; K and N multiples of 4.
class BaselineMmOp final : public Op {
  public:
    std::string_view name() const override { return "bench.baseline_mm"; }
    void record(Recorder& rec, const Args& args) const override {
        const Tensor& a = args.tensor(0, "a");
        const Tensor& b = args.tensor(1, "b");
        const Tensor& c = args.tensor(2, "c");
        struct {
            uint32_t M, N, K, batch, a_stride, b_stride, c_stride, pad;
        } p{uint32_t(a.shape()[0]), uint32_t(b.shape()[1]), uint32_t(a.shape()[1]), 1, 0, 0, 0, 0};
        Kernel k = rec.kernel("mm_vec4 (before)", std::string(wgsl::bench_baseline_mm_vec4));
        rec.dispatch(k, {a, b, c, Binding::uniform(p)}, Grid{(p.N + 31) / 32, (p.M + 31) / 32, 1});
    }
};

}  // namespace

void bench_gemm(Context& ctx, const MeasureOptions& options, const std::string& filter, DType dtype,
                std::vector<Result>& rows) {
    const double element = dtype == DType::f16 ? 2.0 : 4.0;
    for (const GemmCase& g : kCases) {
        const std::string op_name = g.op;
        const bool linear = op_name == "linear", bmm = op_name == "bmm";
        Result r;
        r.group = "gemm";
        r.name = bmm ? fmt::format("bmm {}x{}x{}x{}{} ({})", g.batch, g.M, g.K, g.N,
                                   dtype_suffix(dtype), g.where)
                     : fmt::format("{} {}x{}x{}{}{} ({})", g.op, g.M, g.K, g.N,
                                   linear ? "+bias" : "", dtype_suffix(dtype), g.where);
        if (!filter.empty() && r.name.find(filter) == std::string::npos) continue;
        fmt::print(stderr, "  {}\n", r.name);

        std::vector<float> a = random_values(g.batch * g.M * g.K, 11);
        std::vector<float> b = random_values(g.batch * g.K * g.N, 12);
        std::vector<float> bias = random_values(g.N, 13);
        Shape sa = bmm ? Shape{g.batch, g.M, g.K} : Shape{g.M, g.K};
        Shape sb = bmm ? Shape{g.batch, g.K, g.N} : linear ? Shape{g.N, g.K} : Shape{g.K, g.N};
        Shape sc = bmm ? Shape{g.batch, g.M, g.N} : Shape{g.M, g.N};
        // (float16: a, b and bias are rounded in place, so the reference uses what the GPU reads)
        Tensor ta = upload(ctx, dtype, sa, a);
        Tensor tb = upload(ctx, dtype, sb, b);
        Tensor tbias = upload(ctx, dtype, {g.N}, bias);
        Tensor tc = poisoned(ctx, dtype, sc);  // unwritten outputs fail

        r.flops = 2.0 * g.batch * g.M * g.N * g.K;
        r.bytes = element * (a.size() + b.size() + g.batch * g.M * g.N + (linear ? g.N : 0));
        std::function<void()> record;
        if (linear) {
            record = [&] { ctx.record(op("aten.linear.default"), {ta, tb, tbias, tc}); };
        } else {
            record = [&, name = fmt::format("aten.{}.default", g.op)] {
                ctx.record(op(name), {ta, tb, tc});
            };
        }
        GemmCheck check{g.batch, g.M, g.K, g.N, a, b, linear ? &bias : nullptr, linear, false};
        Measured m = measure(
            ctx, record,
            [&] {
                check.run(download(tc), r);
                return r.error <= (dtype == DType::f16 ? kFloat16Tolerance : kGemmTolerance);
            },
            options);
        r.ok = m.ok;
        r.timing = m.timing;
        const ops::GemmVariant& v = ops::choose_gemm_variant(ctx.device_info(), g.M, g.N, g.batch);
        r.kernel = m.timing.kernels.empty() ? fmt::format("gemm {} (default choice)", v.name)
                                            : kernel_names(m.timing.kernels);
        rows.push_back(std::move(r));
    }
}

SweepShape parse_sweep_shape(const std::string& text) {
    std::vector<int64_t> dims;
    size_t at = 0;
    while (at <= text.size()) {
        size_t x = text.find('x', at);
        std::string part = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
        char* end = nullptr;
        long long v = std::strtoll(part.c_str(), &end, 10);
        if (part.empty() || *end != '\0' || v < 1 || v > (1 << 20)) {
            throw InvalidArgument(
                fmt::format("bad sweep shape '{}': expected S, MxKxN or BxMxKxN "
                            "with sizes 1..1048576",
                            text));
        }
        dims.push_back(v);
        if (x == std::string::npos) break;
        at = x + 1;
    }
    if (dims.size() == 1) return {1, dims[0], dims[0], dims[0]};
    if (dims.size() == 3) return {1, dims[0], dims[1], dims[2]};
    if (dims.size() == 4) return {dims[0], dims[1], dims[2], dims[3]};
    throw InvalidArgument(fmt::format("bad sweep shape '{}': expected S, MxKxN or BxMxKxN", text));
}

void sweep_gemm(Context& ctx, const MeasureOptions& options, const std::vector<SweepShape>& shapes,
                const std::vector<uint32_t>& splits, std::vector<Result>& rows) {
    for (const SweepShape& s : shapes) {
        const int64_t count_a = s.batch * s.M * s.K, count_b = s.batch * s.K * s.N,
                      count_c = s.batch * s.M * s.N;
        std::vector<float> a = random_values(count_a, 21);
        std::vector<float> b = random_values(count_b, 22);
        Tensor ta = ctx.tensor(DType::f32, {s.batch, s.M, s.K}).set_data(a);
        Tensor tb = ctx.tensor(DType::f32, {s.batch, s.K, s.N}).set_data(b);
        Tensor tc = ctx.tensor(DType::f32, {s.batch, s.M, s.N});
        GemmCheck check{s.batch, s.M, s.K, s.N, a, b, nullptr, false, false};
        const std::string name = s.batch == 1
                                     ? fmt::format("gemm {}x{}x{}", s.M, s.K, s.N)
                                     : fmt::format("gemm {}x{}x{}x{}", s.batch, s.M, s.K, s.N);
        // Times one kernel writing `out` (poisoned first, so a kernel that writes nothing cannot
        // pass on the previous kernel's result).
        auto run = [&](const std::string& kernel, const Op& gemm, std::vector<Arg> args,
                       Tensor out) {
            Result r;
            r.group = "sweep";
            r.name = name;
            r.kernel = kernel;
            fmt::print(stderr, "  {} {}\n", r.name, r.kernel);
            r.flops = 2.0 * s.batch * s.M * s.N * s.K;
            r.bytes = 4.0 * (count_a + count_b + count_c);
            out.set_data(std::vector<float>(count_c, NAN));
            Measured m = measure(
                ctx, [&] { ctx.record(gemm, args); },
                [&] {
                    check.run(out.get_data<float>(), r);
                    return r.error <= kGemmTolerance;
                },
                options);
            r.ok = m.ok;
            r.timing = m.timing;
            rows.push_back(std::move(r));
        };
        if (s.batch == 1 && s.K % 4 == 0 && s.N % 4 == 0) {
            Tensor a2 = ctx.tensor(DType::f32, {s.M, s.K}).set_data(a);
            Tensor b2 = ctx.tensor(DType::f32, {s.K, s.N}).set_data(b);
            Tensor c2 = ctx.tensor(DType::f32, {s.M, s.N});
            run("before: mm_vec4", BaselineMmOp(), {a2, b2, c2}, c2);
        }
        ops::GemmCall call;
        call.a = ta;
        call.b = tb;
        call.c = tc;
        call.p.M = static_cast<uint32_t>(s.M);
        call.p.N = static_cast<uint32_t>(s.N);
        call.p.K = static_cast<uint32_t>(s.K);
        call.p.batch = static_cast<uint32_t>(s.batch);
        call.p.a_batch_stride = static_cast<uint32_t>(s.M * s.K);
        call.p.b_batch_stride = static_cast<uint32_t>(s.K * s.N);
        call.p.c_batch_stride = static_cast<uint32_t>(s.M * s.N);
        call.p.alpha = 1.f;
        for (const ops::GemmVariant& v : ops::gemm_variants()) {
            if (!ops::gemm_variant_fits(v, ctx.device_info().limits)) continue;
            call.variant = v.name;
            for (uint32_t split : splits) {
                call.splits = split;
                std::string kernel(v.name);
                if (splits.size() > 1 || split != 0) {
                    kernel += split == 0 ? " split default" : fmt::format(" split {}", split);
                }
                run(kernel, VariantGemmOp(call), {tc}, tc);
            }
        }
    }
}

}  // namespace wgx::bench
