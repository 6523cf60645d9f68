// Tensors larger than one storage binding, bound in parts (ops/common/row_split.h): the
// embedding's table in ranges of rows, a linear layer's weight [N, K] in ranges of rows, each
// part computing those columns of the output. The binding limit is lowered to a few KiB
// (DeviceOptions::max_storage_binding_bytes) so that small tensors span 3 to 13 parts; every
// case asserts how many. The recording checks every binding against the lowered limit, so a
// part that did not fit would fail, not pass unnoticed. Float64 references on random inputs,
// outputs poisoned first:
//   aten.embedding / aten.index.Tensor (dim 0): exact; float32, float16 and int32 tables, odd
//     row widths, indices in the first and last row of every part and outside [0, V) (zeros);
//   aten.linear: max_rel_error <= 1e-5 in float32, f16_error_ratio <= 1 in float16; odd K and
//     N, N not a multiple of the part size, M = 1 and 3 (the few-rows kernel) and 9, 13, 17
//     (the tile kernel, scalar and vec4 stores), rank-3 input, bias and none;
//   wgx.linear_epilogue: bias, SiLU, per-column scale and residual in parts;
//   record_gemm with split K forced: the reduce pass writing each part's columns;
//   errors: a row too wide for any aligned part names the weight and the limit; a B [K, N]
//     that mm does not split is refused at its binding, by name.
// One test uses a real table of more than 128 MiB (the device's own limit), as embedding table
// and tied output projection, when the device's limit is at most 256 MiB (1-1.5 s on lavapipe).
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <map>

#include "base/half.h"
#include "f16_accumulation_check.h"
#include "ops/common/row_split.h"
#include "ops/matmul/gemm.h"
#include "test_util.h"

namespace wgx::test {
namespace {

// A context whose ops see a storage binding limit of `bytes`; one per limit in the process.
Context& capped(uint64_t bytes) {
    static std::map<uint64_t, Context> contexts;
    auto it = contexts.find(bytes);
    if (it == contexts.end()) {
        DeviceOptions options;
        options.max_storage_binding_bytes = bytes;
        it = contexts.emplace(bytes, Context::create(options)).first;
    }
    return it->second;
}

// A tensor of `dt` holding `v` (values the dtype holds exactly).
Tensor upload(Context& c, DType dt, const Shape& s, const std::vector<double>& v) {
    Tensor t = c.tensor(dt, s);
    if (dt == DType::f32) {
        t.set_data(std::vector<float>(v.begin(), v.end()));
    } else if (dt == DType::f16) {
        std::vector<uint16_t> h;
        for (double x : v) h.push_back(float_to_half(float(x)));
        t.set_data(h);
    } else {
        t.set_data(std::vector<int32_t>(v.begin(), v.end()));
    }
    return t;
}

std::vector<double> download(const Tensor& t) {
    if (t.dtype() == DType::f32) {
        auto v = t.get_data<float>();
        return {v.begin(), v.end()};
    }
    if (t.dtype() == DType::f16) {
        std::vector<double> v;
        for (uint16_t h : t.get_data<uint16_t>()) v.push_back(half_to_float(h));
        return v;
    }
    auto v = t.get_data<int32_t>();
    return {v.begin(), v.end()};
}

// Random values that `dt` holds exactly, none zero.
std::vector<double> random_values(DType dt, size_t n, uint32_t seed) {
    if (dt == DType::i32) {
        auto v = random_ints(n, seed, 1, 1000);
        return {v.begin(), v.end()};
    }
    auto v = dt == DType::f16 ? f16_random(n, seed) : random_floats(n, seed);
    return {v.begin(), v.end()};
}

// An output of `dt` filled with NaN (int32: a value no input has), so unwritten elements show.
Tensor poisoned(Context& c, DType dt, const Shape& s) {
    const size_t n = size_t(numel(s));
    if (dt == DType::i32) return upload(c, dt, s, std::vector<double>(n, -77777.0));
    return upload(c, dt, s, std::vector<double>(n, std::nan("")));
}

void run(Context& c, std::string_view name, std::vector<Arg> args) {
    c.reset();
    c.record(op(name), args);
    c.submit();
}

size_t part_count(Context& c, int64_t rows, uint64_t row_bytes,
                  std::initializer_list<uint64_t> also = {}) {
    return ops::split_rows(c.device_info().limits, rows, row_bytes, also, "test").size();
}

// ---------------------------------------------------------------------------------------------
// The row gather

// Indices in the first and last row of every part, outside [0, V), and random rows.
std::vector<int64_t> indices_across_parts(Context& c, int64_t V, uint64_t row_bytes, size_t n,
                                          uint32_t seed) {
    std::vector<int64_t> idx = {-1, V, V + 5};
    for (const auto& r :
         ops::split_rows(c.device_info().limits, V, row_bytes, {}, "test indices")) {
        idx.push_back(r.first);
        idx.push_back(r.first + r.count - 1);
    }
    for (int32_t r : random_ints(n > idx.size() ? n - idx.size() : 0, seed, 0, int(V - 1))) {
        idx.push_back(r);
    }
    idx.resize(n);
    return idx;
}

std::vector<double> gather(const std::vector<double>& w, int64_t V, int64_t D,
                           const std::vector<int64_t>& idx) {
    std::vector<double> out;
    for (int64_t i : idx) {
        for (int64_t d = 0; d < D; ++d) out.push_back(i >= 0 && i < V ? w[size_t(i * D + d)] : 0);
    }
    return out;
}

TEST(SplitBindings, EmbeddingTableInParts) {
    struct Case {
        DType dt;
        int64_t V, D;
        Shape indices;
        size_t parts;  // at least
    };
    const std::vector<Case> cases = {
        {DType::f32, 301, 37, {2, 13}, 13},
        {DType::f16, 203, 19, {11}, 3},
        {DType::i32, 150, 33, {3, 5}, 4},
        {DType::f32, 97, 64, {1}, 6},  // one token: a decode step
    };
    Context& c = capped(4096);
    uint32_t seed = 1;
    for (const Case& k : cases) {
        if (k.dt == DType::f16 && !c.device_info().features.shader_f16) continue;
        const uint64_t row_bytes = uint64_t(k.D) * device_size(k.dt);
        const size_t parts = part_count(c, k.V, row_bytes);
        EXPECT_GE(parts, k.parts) << dtype_name(k.dt) << " V " << k.V << " D " << k.D;
        const auto w = random_values(k.dt, size_t(k.V * k.D), seed++);
        auto idx = indices_across_parts(c, k.V, row_bytes, size_t(numel(k.indices)), seed++);
        if (k.indices == Shape{1}) idx = {k.V - 1};  // the last part's last row
        Tensor tw = upload(c, k.dt, {k.V, k.D}, w);
        Tensor ti = c.tensor(DType::i64, k.indices).set_data(idx);
        Shape os = k.indices;
        os.push_back(k.D);
        Tensor out = poisoned(c, k.dt, os);
        run(c, "aten.embedding.default", {tw, ti, int64_t(-1), false, false, out});
        EXPECT_EQ(download(out), gather(w, k.V, k.D, idx))
            << dtype_name(k.dt) << " V " << k.V << " D " << k.D << ", " << parts << " parts";
    }
    c.reset();
}

// aten.index.Tensor on dim 0 gathers rows through the same kernel, so it splits too.
TEST(SplitBindings, IndexTensorOnDimZeroInParts) {
    Context& c = capped(4096);
    const int64_t V = 120, D = 41;
    EXPECT_GE(part_count(c, V, D * 4), 5u);
    const auto w = random_values(DType::f32, size_t(V * D), 30);
    const auto idx = indices_across_parts(c, V, D * 4, 17, 31);
    Tensor tw = upload(c, DType::f32, {V, D}, w);
    Tensor ti = c.tensor(DType::i64, {17}).set_data(idx);
    Tensor out = poisoned(c, DType::f32, {17, D});
    run(c, "aten.index.Tensor", {tw, Arg::TensorList{ti}, out});
    EXPECT_EQ(download(out), gather(w, V, D, idx));
    c.reset();
}

// ---------------------------------------------------------------------------------------------
// The linear layer

struct Reference {
    std::vector<double> want, magnitude;  // magnitude: the sum of |terms| (f16_error_ratio)
};

// y [M, N] = x [M, K] @ w [N, K]^T (+ bias [N]).
Reference linear_ref(const std::vector<double>& x, const std::vector<double>& w,
                     const std::vector<double>* bias, int64_t M, int64_t K, int64_t N) {
    Reference r{std::vector<double>(size_t(M * N)), std::vector<double>(size_t(M * N))};
    for (int64_t m = 0; m < M; ++m) {
        for (int64_t n = 0; n < N; ++n) {
            double s = bias ? (*bias)[size_t(n)] : 0, a = std::abs(s);
            for (int64_t k = 0; k < K; ++k) {
                const double t = x[size_t(m * K + k)] * w[size_t(n * K + k)];
                s += t;
                a += std::abs(t);
            }
            r.want[size_t(m * N + n)] = s;
            r.magnitude[size_t(m * N + n)] = a;
        }
    }
    return r;
}

TEST(SplitBindings, LinearWeightInParts) {
    struct Case {
        DType dt;
        Shape input;
        int64_t N;
        bool bias;
        size_t parts;  // at least
    };
    const std::vector<Case> cases = {
        {DType::f32, {1, 37}, 301, true, 7},      // decode: the few-rows kernel
        {DType::f32, {3, 53}, 157, false, 5},     // few rows, M > 1
        {DType::f32, {9, 64}, 131, true, 5},      // tile kernel, scalar stores (N odd)
        {DType::f32, {17, 67}, 96, true, 4},      // tile kernel, vec4 stores
        {DType::f32, {2, 5, 33}, 150, false, 3},  // rank 3: M = 10
        {DType::f16, {1, 45}, 333, true, 5},     {DType::f16, {13, 40}, 201, true, 3},
        {DType::f16, {4, 29}, 300, false, 3},
    };
    Context& c = capped(8192);
    uint32_t seed = 100;
    for (const Case& k : cases) {
        if (k.dt == DType::f16 && !c.device_info().features.shader_f16) continue;
        const int64_t K = k.input.back(), M = numel(k.input) / K;
        const uint64_t es = device_size(k.dt);
        const size_t parts = part_count(c, k.N, uint64_t(K) * es, {es});
        const std::string what = fmt::format("{} M {} K {} N {}{}, {} parts", dtype_name(k.dt), M,
                                             K, k.N, k.bias ? " bias" : "", parts);
        EXPECT_GE(parts, k.parts) << what;
        const auto x = random_values(k.dt, size_t(M * K), seed++);
        const auto w = random_values(k.dt, size_t(k.N * K), seed++);
        const auto b = random_values(k.dt, size_t(k.N), seed++);
        Shape os = k.input;
        os.back() = k.N;
        Tensor out = poisoned(c, k.dt, os);
        run(c, "aten.linear.default",
            {upload(c, k.dt, k.input, x), upload(c, k.dt, {k.N, K}, w),
             k.bias ? Arg(upload(c, k.dt, {k.N}, b)) : Arg(), out});
        const Reference r = linear_ref(x, w, k.bias ? &b : nullptr, M, K, k.N);
        std::vector<double> got = download(out);
        if (k.dt == DType::f32) {
            EXPECT_LE(max_rel_error(std::vector<float>(got.begin(), got.end()), r.want), 1e-5)
                << what;
        } else {
            EXPECT_LE(f16_error_ratio(std::vector<float>(got.begin(), got.end()), r.want,
                                      r.magnitude, K + 1),
                      1.0)
                << what;
        }
    }
    c.reset();
}

// The fused linear op binds its scale and residual from each part's first column too.
TEST(SplitBindings, LinearEpilogueInParts) {
    Context& c = capped(4096);
    const int64_t M = 6, K = 29, N = 123;
    EXPECT_GE(part_count(c, N, K * 4, {4}), 4u);
    const auto x = random_values(DType::f32, size_t(M * K), 200);
    const auto w = random_values(DType::f32, size_t(N * K), 201);
    const auto b = random_values(DType::f32, size_t(N), 202);
    const auto scale = random_values(DType::f32, size_t(N), 203);
    const auto res = random_values(DType::f32, size_t(M * N), 204);
    Tensor out = poisoned(c, DType::f32, {M, N});
    run(c, "wgx.linear_epilogue.default",
        {upload(c, DType::f32, {M, K}, x), upload(c, DType::f32, {N, K}, w),
         upload(c, DType::f32, {N}, b), std::string("silu"), upload(c, DType::f32, {N}, scale),
         upload(c, DType::f32, {M, N}, res), false, out});
    std::vector<double> want = linear_ref(x, w, &b, M, K, N).want;
    for (size_t i = 0; i < want.size(); ++i) {
        const double v = want[i];
        want[i] = v / (1.0 + std::exp(-v)) * scale[i % size_t(N)] + res[i];
    }
    const auto got = download(out);
    EXPECT_LE(max_rel_error(std::vector<float>(got.begin(), got.end()), want), 1e-5);
    c.reset();
}

// Records one prepared GemmCall (the args only satisfy the contract).
class GemmOp final : public Op {
  public:
    explicit GemmOp(ops::GemmCall call) : call_(std::move(call)) {}
    std::string_view name() const override { return "test.gemm"; }
    void record(Recorder& rec, const Args&) const override { ops::record_gemm(rec, name(), call_); }

  private:
    ops::GemmCall call_;
};

// Split K inside each part: the tile pass writes a part's partial sums [splits, M, part], the
// reduce pass adds them into the part's columns of C, its residual read at the same places.
TEST(SplitBindings, SplitKInEachPart) {
    Context& c = capped(8192);
    const int64_t M = 8, K = 96, N = 100;
    EXPECT_GE(part_count(c, N, K * 4, {4}), 5u);
    const auto x = random_values(DType::f32, size_t(M * K), 300);
    const auto w = random_values(DType::f32, size_t(N * K), 301);
    const auto b = random_values(DType::f32, size_t(N), 302);
    const auto res = random_values(DType::f32, size_t(M * N), 303);
    for (uint32_t splits : {1u, 2u, 3u}) {
        Tensor out = poisoned(c, DType::f32, {M, N});
        ops::GemmCall call{upload(c, DType::f32, {M, K}, x), upload(c, DType::f32, {N, K}, w),
                           upload(c, DType::f32, {N}, b), out};
        call.p = {uint32_t(M), uint32_t(N), uint32_t(K), 1, 0, 0, 0, 0, 0, 1, 1.f, 1.f};
        call.trans_b = true;
        call.residual = upload(c, DType::f32, {M, N}, res);
        call.splits = splits;
        call.variant = ops::gemm_variants().back().name;  // the smallest tile: fits every device
        const GemmOp gemm(call);
        c.reset();
        c.record(gemm, {out});
        c.submit();
        std::vector<double> want = linear_ref(x, w, &b, M, K, N).want;
        for (size_t i = 0; i < want.size(); ++i) want[i] += res[i];
        const auto got = download(out);
        EXPECT_LE(max_rel_error(std::vector<float>(got.begin(), got.end()), want), 1e-5)
            << "splits " << splits;
    }
    c.reset();
}

// Expects recording to throw InvalidArgument whose message has every one of `parts`.
void expect_refused(Context& c, std::string_view name, std::vector<Arg> args,
                    std::initializer_list<std::string> parts) {
    c.reset();
    try {
        c.record(op(name), args);
        ADD_FAILURE() << name << ": accepted";
    } catch (const InvalidArgument& e) {
        const std::string msg = e.what();
        for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg;
    }
    c.reset();
}

TEST(SplitBindings, WhatCannotBeSplitIsRefusedByName) {
    Context& c = capped(4096);
    auto t = [&](const Shape& s) { return c.tensor(DType::f32, s); };
    // One row of 6000 bytes: no part of whole rows fits 4096 bytes.
    expect_refused(
        c, "aten.linear.default", {t({1, 1500}), t({8, 1500}), Arg(), t({1, 8})},
        {"aten.linear.default", "weight float32 [8, 1500]", "maxStorageBufferBindingSize", "4096"});
    // mm reads B [K, N] as stored: its rows are not the output's columns, so it stays whole.
    expect_refused(c, "aten.mm.default", {t({2, 40}), t({40, 50}), t({2, 50})},
                   {"aten.mm.default", "binding 1", "float32 [40, 50]", "8000 bytes",
                    "maxStorageBufferBindingSize (4096 bytes)"});
    // An elementwise op binds whole tensors.
    expect_refused(c, "aten.relu.default", {t({1100}), t({1100})},
                   {"aten.relu.default", "binding 0", "4400 bytes"});
}

// The device's own limit (128 MiB on lavapipe): a tied table of 1024-wide float32 rows just past
// it, read by the embedding and, as the output projection, by the linear layer of one token.
TEST(SplitBindings, RealTableLargerThanOneBinding) {
    Context& c = ctx();
    const DeviceLimits& limits = c.device_info().limits;
    const int64_t D = 1024;
    const uint64_t row_bytes = D * 4;
    if (limits.max_storage_binding_bytes > (uint64_t(256) << 20)) {
        GTEST_SKIP() << "the device binds " << limits.max_storage_binding_bytes
                     << " bytes at once; a larger table would take too long to test";
    }
    const int64_t V = int64_t(limits.max_storage_binding_bytes / row_bytes) + 77;
    if (uint64_t(V) * row_bytes > limits.max_buffer_bytes) GTEST_SKIP() << "maxBufferSize";
    const auto parts = ops::split_rows(limits, V, row_bytes, {4}, "test");
    ASSERT_EQ(parts.size(), 2u);
    const auto t0 = std::chrono::steady_clock::now();
    // A cheap pattern rather than random numbers: 34 M of them would take seconds to draw.
    auto value = [](int64_t v, int64_t d) {
        return float(int((v * 131 + d * 71) % 509) - 254) / 256.f + 1.f / 512.f;
    };
    std::vector<float> w(size_t(V * D));
    for (int64_t v = 0; v < V; ++v) {
        for (int64_t d = 0; d < D; ++d) w[size_t(v * D + d)] = value(v, d);
    }
    Tensor table = c.tensor(DType::f32, {V, D}).set_data(w);
    // Rows on both sides of the parts' boundary and the last one.
    const int64_t edge = parts[1].first;
    const std::vector<int64_t> idx = {0, edge - 1, edge, V - 1};
    Tensor ids = c.tensor(DType::i64, {4}).set_data(idx);
    Tensor rows = c.tensor(DType::f32, {4, D});
    Tensor logits = c.tensor(DType::f32, {1, V});
    poison(rows);
    poison(logits);
    c.reset();
    c.record(op("aten.embedding.default"), {table, ids, int64_t(-1), false, false, rows});
    // The boundary row's embedding, projected by the same table.
    Tensor x = rows.view(2 * D, {1, D});
    c.record(op("aten.linear.default"), {x, table, Arg(), logits});
    c.submit();
    std::vector<double> want_rows;
    for (int64_t i : idx) {
        for (int64_t d = 0; d < D; ++d) want_rows.push_back(value(i, d));
    }
    EXPECT_EQ(max_rel_error(rows.get_data<float>(), want_rows), 0.0);
    std::vector<double> want(static_cast<size_t>(V));
    for (int64_t v = 0; v < V; ++v) {
        double s = 0;
        for (int64_t d = 0; d < D; ++d) s += double(value(edge, d)) * value(v, d);
        want[size_t(v)] = s;
    }
    EXPECT_LE(max_rel_error(logits.get_data<float>(), want), 1e-5);
    c.reset();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[wgx] table [%lld, %lld] float32 (%.1f MiB, 2 parts): %.2f s\n", (long long)V,
                (long long)D, double(V * D * 4) / (1 << 20), s);
}

}  // namespace
}  // namespace wgx::test
