// The LLM ops of ExecuTorch's Llama exports (src/ops/llm) against float64 references written
// here, on random inputs (never all zeros) and outputs poisoned with NaN first:
//   aten.embedding: exact (a gather); V not a multiple of 4, odd and 1-wide rows, int64 and
//     int32 indices of ranks 1-3, out-of-range indices giving zero rows, float16 and int32
//     tables;
//   et_vk.rms_norm: max_rel_error <= 1e-5 (float32 sums of squares), rows of 1 to 4099, both
//     workgroup-reduction paths, float16 (half_close: that tolerance plus one float16
//     rounding, as for the other float16 tests here);
//   et_vk.apply_rotary_emb{,_hf,_interleaved}: max_rel_error <= 1e-6 (two products and a sum
//     per element), odd head counts, GQA, partial rotation and start_pos for the HF form,
//     freqs_cis of rank 2 and 4 for the interleaved form;
//   llama.sdpa_with_kv_cache / update_cache / custom_sdpa: max_rel_error <= 2e-5 (float32 dot
//     products of up to 128 terms and sums of up to 1024 exponentials), head sizes 32, 48, 64,
//     128, GQA ratios 1, 2, 4, 8, contexts 64 to 1024, input_pos 0, inside and at the end of
//     the context, S = 1, 3 (the one-row kernel), 7 and 20 (the block kernel), causal and not,
//     explicit scale; the caches after the op exactly equal the reference (written positions)
//     and their old contents (every other position); caches persist from one run to the next.
#include <algorithm>
#include <cmath>

#include "base/half.h"
#include "half_test_util.h"
#include "reduction_paths.h"
#include "test_util.h"

namespace wgx::test {
namespace {

std::vector<float> run_and_read(const Op& o, std::vector<Arg> args, const Tensor& out) {
    ctx().reset();
    ctx().record(o, args);
    ctx().submit();
    return out.get_data<float>();
}

// ---------------------------------------------------------------------------------------------
// aten.embedding.default

// Random indices in [0, V), with every row index present when there are enough of them.
std::vector<int64_t> random_indices(size_t n, int64_t V, uint32_t seed) {
    auto r = random_ints(n, seed, 0, int(V - 1));
    std::vector<int64_t> v(r.begin(), r.end());
    for (size_t i = 0; i < n && int64_t(i) < V; i += 3) v[i] = int64_t(i);
    return v;
}

std::vector<double> gather(const std::vector<float>& w, int64_t V, int64_t D,
                           const std::vector<int64_t>& idx) {
    std::vector<double> out;
    for (int64_t i : idx) {
        for (int64_t d = 0; d < D; ++d) {
            out.push_back(i >= 0 && i < V ? double(w[size_t(i * D + d)]) : 0.0);
        }
    }
    return out;
}

TEST(LlmOps, EmbeddingGathersRows) {
    struct Case {
        int64_t V, D;
        Shape indices;
        DType index_type;
    };
    const std::vector<Case> cases = {
        {7, 5, {4}, DType::i64},   {13, 1, {2, 3}, DType::i64}, {50, 64, {3, 1, 5}, DType::i64},
        {33, 3, {17}, DType::i32}, {1, 9, {2, 2}, DType::i64},  {1001, 130, {1, 7}, DType::i64},
    };
    uint32_t seed = 10;
    for (const Case& c : cases) {
        auto w = random_floats(size_t(c.V * c.D), seed++);
        auto idx = random_indices(size_t(numel(c.indices)), c.V, seed++);
        Tensor tw = ctx().tensor(DType::f32, {c.V, c.D}).set_data(w);
        Tensor ti = ctx().tensor(c.index_type, c.indices);
        if (c.index_type == DType::i64) {
            ti.set_data(idx);
        } else {
            ti.set_data(std::vector<int32_t>(idx.begin(), idx.end()));
        }
        Shape os = c.indices;
        os.push_back(c.D);
        Tensor out = ctx().tensor(DType::f32, os);
        poison(out);
        auto got = run_and_read(op("aten.embedding.default"),
                                {tw, ti, int64_t(-1), false, false, out}, out);
        EXPECT_EQ(max_rel_error(got, gather(w, c.V, c.D, idx)), 0.0)
            << "V " << c.V << " D " << c.D << " indices " << shape_string(c.indices);
    }
}

// aten.index.Tensor with one index tensor at dim d (the earlier entries absent): self[..., idx,
// ...], as a static LLM export reads its rope tables at the cache position.
TEST(LlmOps, IndexTensorGathersAlongOneDim) {
    struct Case {
        Shape self;
        size_t dim;
        Shape index;
    };
    const std::vector<Case> cases = {
        {{128, 8}, 0, {1}}, {{5, 7, 3}, 1, {2, 2}}, {{4, 9, 2, 5}, 2, {3}},
        {{6, 11}, 1, {7}},  {{3, 5}, 0, {}},
    };
    uint32_t seed = 200;
    for (const Case& c : cases) {
        const auto x = random_floats(size_t(numel(c.self)), seed++);
        const int64_t size = c.self[c.dim];
        auto idx = random_indices(size_t(numel(c.index)), size, seed++);
        if (idx.size() > 1) idx[1] = size + 2;  // out of range: zeros
        Tensor tx = ctx().tensor(DType::f32, c.self).set_data(x);
        Tensor ti = ctx().tensor(DType::i64, c.index).set_data(idx);
        Shape os(c.self.begin(), c.self.begin() + std::ptrdiff_t(c.dim));
        os.insert(os.end(), c.index.begin(), c.index.end());
        os.insert(os.end(), c.self.begin() + std::ptrdiff_t(c.dim) + 1, c.self.end());
        Tensor out = ctx().tensor(DType::f32, os);
        poison(out);
        Arg::TensorList list(c.dim + 1);
        list[c.dim] = ti;
        const auto got = run_and_read(op("aten.index.Tensor"), {tx, list, out}, out);
        int64_t outer = 1, inner = 1;
        for (size_t d = 0; d < c.self.size(); ++d) {
            if (d < c.dim) outer *= c.self[d];
            if (d > c.dim) inner *= c.self[d];
        }
        std::vector<double> want;
        for (int64_t o = 0; o < outer; ++o) {
            for (int64_t i : idx) {
                for (int64_t r = 0; r < inner; ++r) {
                    want.push_back(i >= 0 && i < size ? x[size_t((o * size + i) * inner + r)]
                                                      : 0.0);
                }
            }
        }
        EXPECT_EQ(max_rel_error(got, want), 0.0) << shape_string(c.self) << " dim " << c.dim;
    }
    Tensor tx = ctx().tensor(DType::f32, {3, 4});
    Tensor ti = ctx().tensor(DType::i64, {2});
    Tensor out = ctx().tensor(DType::f32, {2, 2});
    expect_invalid("aten.index.Tensor", {tx, Arg::TensorList{ti, ti}, out}, {"more than one"});
    Tensor mask = ctx().tensor(DType::boolean, {3});
    expect_invalid("aten.index.Tensor", {tx, Arg::TensorList{mask}, out}, {"boolean masks"});
}

TEST(LlmOps, EmbeddingOutOfRangeIndicesGiveZeroRows) {
    const int64_t V = 11, D = 7;
    auto w = random_floats(size_t(V * D), 3);
    const std::vector<int64_t> idx = {0, -1, 10, 11, 5, 1000000, -7, 3};
    Tensor tw = ctx().tensor(DType::f32, {V, D}).set_data(w);
    Tensor ti = ctx().tensor(DType::i64, {int64_t(idx.size())}).set_data(idx);
    Tensor out = ctx().tensor(DType::f32, {int64_t(idx.size()), D});
    poison(out);
    auto got =
        run_and_read(op("aten.embedding.default"), {tw, ti, int64_t(-1), false, false, out}, out);
    EXPECT_EQ(max_rel_error(got, gather(w, V, D, idx)), 0.0);
}

TEST(LlmOps, EmbeddingOfInt32AndFloat16Tables) {
    const int64_t V = 9, D = 6;
    auto idx = random_indices(10, V, 4);
    Tensor ti = ctx().tensor(DType::i64, {10}).set_data(idx);
    {
        auto wi = random_ints(size_t(V * D), 5, -1000, 1000);
        Tensor tw = ctx().tensor(DType::i32, {V, D}).set_data(wi);
        Tensor out = ctx().tensor(DType::i32, {10, D});
        out.set_data(std::vector<int32_t>(size_t(10 * D), 12345678));
        ctx().reset();
        ctx().record(op("aten.embedding.default"), {tw, ti, int64_t(-1), false, false, out});
        ctx().submit();
        auto got = out.get_data<int32_t>();
        for (size_t n = 0; n < idx.size(); ++n) {
            for (int64_t d = 0; d < D; ++d) {
                EXPECT_EQ(got[n * D + size_t(d)], wi[size_t(idx[n] * D + d)]);
            }
        }
    }
    if (ctx().device_info().features.shader_f16) {
        auto w = round_to_half(random_floats(size_t(V * D), 6));
        Tensor tw = half_tensor({V, D}, w);
        Tensor out = half_output({10, D});
        ctx().reset();
        ctx().record(op("aten.embedding.default"), {tw, ti, int64_t(-1), false, false, out});
        ctx().submit();
        EXPECT_EQ(max_rel_error(read_half(out), gather(w, V, D, idx)), 0.0);
    }
    ctx().reset();
}

TEST(LlmOps, EmbeddingRejectsBadArguments) {
    Tensor tw = ctx().tensor(DType::f32, {5, 3}).set_data(random_floats(15, 1));
    Tensor ti = ctx().tensor(DType::i64, {4}).set_data(std::vector<int64_t>{0, 1, 2, 3});
    Tensor tf = ctx().tensor(DType::f32, {4}).set_data(random_floats(4, 2));
    Tensor out = ctx().tensor(DType::f32, {4, 3});
    Tensor bad = ctx().tensor(DType::f32, {4, 4});
    expect_invalid("aten.embedding.default", {tw, tf, int64_t(-1), false, false, out},
                   {"indices", "float32"});
    expect_invalid("aten.embedding.default", {tw, ti, int64_t(-1), false, false, bad},
                   {"out", "[4, 3]"});
}

// ---------------------------------------------------------------------------------------------
// et_vk.rms_norm.default

std::vector<double> rms_norm_ref(const std::vector<float>& x, const std::vector<float>& w,
                                 int64_t n, double eps) {
    std::vector<double> out(x.size());
    for (size_t r = 0; r < x.size() / size_t(n); ++r) {
        double q = 0;
        for (int64_t k = 0; k < n; ++k) q += double(x[r * n + k]) * x[r * n + k];
        const double inv = 1 / std::sqrt(q / double(n) + eps);
        for (int64_t k = 0; k < n; ++k) out[r * n + k] = x[r * n + k] * inv * w[size_t(k)];
    }
    return out;
}

TEST(LlmOps, RmsNormMatchesFloat64) {
    const std::vector<std::pair<Shape, double>> cases = {
        {{1}, 1e-5},         {{13}, 1e-6},   {{4, 37}, 1e-5},      {{3, 4099}, 1e-5},
        {{2, 3, 768}, 1e-5}, {{5, 64}, 0.5}, {{1, 7, 2048}, 1e-6}, {{6, 1}, 1e-3},
    };
    on_both_reduction_paths([&](const std::string& path) {
        uint32_t seed = 20;
        for (const auto& [shape, eps] : cases) {
            const int64_t n = shape.back();
            auto x = random_floats(size_t(numel(shape)), seed++);
            for (float& v : x) v = 0.3f + 2.f * v;
            auto w = random_floats(size_t(n), seed++);
            Tensor tx = ctx().tensor(DType::f32, shape).set_data(x);
            Tensor tw = ctx().tensor(DType::f32, {n}).set_data(w);
            Tensor out = ctx().tensor(DType::f32, shape);
            poison(out);
            auto got = run_and_read(op("et_vk.rms_norm.default"), {tx, tw, eps, out}, out);
            EXPECT_LE(max_rel_error(got, rms_norm_ref(x, w, n, eps)), 1e-5)
                << path << " " << shape_string(shape);
        }
    });
    ctx().reset();
}

TEST(LlmOps, RmsNormFloat16) {
    WGX_SKIP_WITHOUT_F16();
    for (const Shape& shape : {Shape{3, 100}, Shape{2, 5, 513}}) {
        const int64_t n = shape.back();
        auto x = round_to_half(random_floats(size_t(numel(shape)), 31));
        auto w = round_to_half(random_floats(size_t(n), 32));
        Tensor out = half_output(shape);
        ctx().reset();
        ctx().record(op("et_vk.rms_norm.default"),
                     {half_tensor(shape, x), half_tensor({n}, w), 1e-5, out});
        ctx().submit();
        auto got = read_half(out);
        auto want = rms_norm_ref(x, w, n, 1e-5);
        for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_TRUE(half_close(got[i], want[i], 1e-5))
                << shape_string(shape) << " at " << i << ": " << got[i] << " vs " << want[i];
        }
    }
    ctx().reset();
}

TEST(LlmOps, RmsNormRejectsBadArguments) {
    Tensor x = ctx().tensor(DType::f32, {2, 8}).set_data(random_floats(16, 1));
    Tensor w = ctx().tensor(DType::f32, {7}).set_data(random_floats(7, 2));
    Tensor out = ctx().tensor(DType::f32, {2, 8});
    expect_invalid("et_vk.rms_norm.default", {x, w, 1e-5, out}, {"weight", "[8]"});
}

// wgx.add_rms_norm.default: the residual add and the norm after it (fuse_residual_norm). The sum
// is float32 as the add stores it; the norm of that sum is checked in float64.
TEST(LlmOps, AddRmsNormStoresTheSumAndItsNorm) {
    const std::vector<Shape> shapes = {{1, 2048}, {3, 37}, {2, 3, 768}, {1, 4099}, {5, 1}};
    on_both_reduction_paths([&](const std::string& path) {
        uint32_t seed = 60;
        for (const Shape& shape : shapes) {
            const int64_t n = shape.back();
            const auto a = random_floats(size_t(numel(shape)), seed++);
            const auto b = random_floats(size_t(numel(shape)), seed++);
            const auto w = random_floats(size_t(n), seed++);
            std::vector<float> sum(a.size());
            for (size_t i = 0; i < a.size(); ++i) sum[i] = a[i] + b[i];
            Tensor ta = ctx().tensor(DType::f32, shape).set_data(a);
            Tensor tb = ctx().tensor(DType::f32, shape).set_data(b);
            Tensor tw = ctx().tensor(DType::f32, {n}).set_data(w);
            Tensor h = ctx().tensor(DType::f32, shape), norm = ctx().tensor(DType::f32, shape);
            poison(h);
            poison(norm);
            const auto got = run_and_read(op("wgx.add_rms_norm.default"),
                                          {ta, tb, tw, 1e-5, Arg::TensorList{h, norm}}, norm);
            EXPECT_EQ(h.get_data<float>(), sum) << path << " " << shape_string(shape);
            EXPECT_LE(max_rel_error(got, rms_norm_ref(sum, w, n, 1e-5)), 1e-5)
                << path << " " << shape_string(shape);
        }
    });
    ctx().reset();
}

TEST(LlmOps, AddRmsNormRejectsBadArguments) {
    Tensor x = ctx().tensor(DType::f32, {2, 8}).set_data(random_floats(16, 1));
    Tensor w = ctx().tensor(DType::f32, {8}).set_data(random_floats(8, 2));
    Tensor out = ctx().tensor(DType::f32, {2, 8}), sum = ctx().tensor(DType::f32, {2, 8});
    expect_invalid("wgx.add_rms_norm.default",
                   {x, ctx().tensor(DType::f32, {2, 7}), w, 1e-5, Arg::TensorList{sum, out}},
                   {"other", "[2, 8]"});
    expect_invalid("wgx.add_rms_norm.default", {x, x, w, 1e-5, Arg::TensorList{sum}}, "2 outputs");
}

// wgx.silu_mul.default: silu(self) * other (fuse_silu_mul), with the binary ops' broadcasting.
TEST(LlmOps, SiluMulMatchesFloat64) {
    const std::vector<std::pair<Shape, Shape>> cases = {
        {{1, 8192}, {1, 8192}}, {{3, 37}, {3, 37}}, {{2, 5, 7}, {1, 5, 1}}, {{1}, {1}}};
    uint32_t seed = 80;
    for (const auto& [sa, sb] : cases) {
        auto a = random_floats(size_t(numel(sa)), seed++);
        for (float& v : a) v *= 6.f;  // both tails of the sigmoid
        const auto b = random_floats(size_t(numel(sb)), seed++);
        Tensor ta = ctx().tensor(DType::f32, sa).set_data(a);
        Tensor tb = ctx().tensor(DType::f32, sb).set_data(b);
        Tensor out = ctx().tensor(DType::f32, sa);
        poison(out);
        auto got = run_and_read(op("wgx.silu_mul.default"), {ta, tb, out}, out);
        std::vector<double> want(a.size());
        for (size_t i = 0; i < a.size(); ++i) {
            // other's element for out's element i: index 0 along other's dims of size 1.
            size_t rest = i, j = 0, stride = 1;
            for (size_t d = sa.size(); d-- > 0;) {
                const size_t at = rest % size_t(sa[d]);
                rest /= size_t(sa[d]);
                if (sb[d] != 1) j += at * stride;
                stride *= size_t(sb[d]);
            }
            const double x = a[i];
            want[i] = x / (1 + std::exp(-x)) * double(b[j]);
        }
        EXPECT_LE(max_rel_error(got, want), 1e-5) << shape_string(sa) << " * " << shape_string(sb);
    }
}

// ---------------------------------------------------------------------------------------------
// et_vk.apply_rotary_emb{,_hf,_interleaved}.default

// x [B, S, H, Dh] rotated: Llama pairs (2i, 2i+1) with cos/sin [S, Dh/2].
std::vector<double> rope_llama_ref(const std::vector<float>& x, const Shape& s,
                                   const std::vector<float>& cos, const std::vector<float>& sin) {
    const int64_t S = s[1], H = s[2], Dh = s[3];
    std::vector<double> out(x.size());
    for (size_t base = 0; base < x.size(); base += size_t(Dh)) {
        const int64_t pos = int64_t(base / size_t(H * Dh)) % S;
        for (int64_t i = 0; i < Dh / 2; ++i) {
            const double x0 = x[base + 2 * i], x1 = x[base + 2 * i + 1];
            const double c = cos[size_t(pos * (Dh / 2) + i)], sn = sin[size_t(pos * (Dh / 2) + i)];
            out[base + 2 * i] = x0 * c - x1 * sn;
            out[base + 2 * i + 1] = x0 * sn + x1 * c;
        }
    }
    return out;
}

// HF: out = x * cos + rotate_half(x) * sin over the first rot elements, freqs row start + s.
std::vector<double> rope_hf_ref(const std::vector<float>& x, const Shape& s,
                                const std::vector<float>& cos, const std::vector<float>& sin,
                                int64_t rot, int64_t start) {
    const int64_t S = s[1], H = s[2], Dh = s[3], h = rot / 2;
    std::vector<double> out(x.size());
    for (size_t base = 0; base < x.size(); base += size_t(Dh)) {
        const int64_t pos = int64_t(base / size_t(H * Dh)) % S + start;
        for (int64_t d = 0; d < Dh; ++d) {
            if (d >= rot) {
                out[base + d] = x[base + d];
                continue;
            }
            const double rotated = d < h ? -double(x[base + d + h]) : double(x[base + d - h]);
            out[base + d] = x[base + d] * double(cos[size_t(pos * rot + d)]) +
                            rotated * double(sin[size_t(pos * rot + d)]);
        }
    }
    return out;
}

struct RopeCase {
    int64_t B, S, Hq, Hk, Dh;
};

TEST(LlmOps, RotaryEmbMatchesLlamaPairs) {
    const std::vector<RopeCase> cases = {
        {1, 1, 4, 2, 32}, {2, 7, 3, 1, 6}, {1, 5, 8, 8, 64}, {1, 3, 2, 2, 2}, {1, 13, 5, 1, 128},
    };
    uint32_t seed = 40;
    for (const RopeCase& c : cases) {
        const Shape qs{c.B, c.S, c.Hq, c.Dh}, ks{c.B, c.S, c.Hk, c.Dh}, fs{c.S, c.Dh / 2};
        auto xq = random_floats(size_t(numel(qs)), seed++);
        auto xk = random_floats(size_t(numel(ks)), seed++);
        auto cos = random_floats(size_t(numel(fs)), seed++);
        auto sin = random_floats(size_t(numel(fs)), seed++);
        Tensor q_out = ctx().tensor(DType::f32, qs), k_out = ctx().tensor(DType::f32, ks);
        poison(q_out);
        poison(k_out);
        ctx().reset();
        ctx().record(
            op("et_vk.apply_rotary_emb.default"),
            {ctx().tensor(DType::f32, qs).set_data(xq), ctx().tensor(DType::f32, ks).set_data(xk),
             ctx().tensor(DType::f32, fs).set_data(cos), ctx().tensor(DType::f32, fs).set_data(sin),
             Arg::TensorList{q_out, k_out}});
        ctx().submit();
        const std::string what = shape_string(qs) + " " + shape_string(ks);
        EXPECT_LE(max_rel_error(q_out.get_data<float>(), rope_llama_ref(xq, qs, cos, sin)), 1e-6)
            << what;
        EXPECT_LE(max_rel_error(k_out.get_data<float>(), rope_llama_ref(xk, ks, cos, sin)), 1e-6)
            << what;
    }
    ctx().reset();
}

TEST(LlmOps, RotaryEmbHfRotatesHalves) {
    struct Case {
        RopeCase r;
        int64_t rot, start, positions;
    };
    const std::vector<Case> cases = {
        {{1, 1, 4, 2, 32}, 32, 0, 1},   {{1, 7, 4, 1, 64}, 64, 3, 16},
        {{2, 5, 3, 3, 32}, 24, 2, 9},   {{1, 1, 2, 1, 10}, 10, 14, 15},
        {{1, 4, 6, 2, 128}, 128, 0, 4},
    };
    uint32_t seed = 60;
    for (const Case& c : cases) {
        const RopeCase& r = c.r;
        const Shape qs{r.B, r.S, r.Hq, r.Dh}, ks{r.B, r.S, r.Hk, r.Dh}, fs{c.positions, c.rot};
        auto xq = random_floats(size_t(numel(qs)), seed++);
        auto xk = random_floats(size_t(numel(ks)), seed++);
        auto cos = random_floats(size_t(numel(fs)), seed++);
        auto sin = random_floats(size_t(numel(fs)), seed++);
        Tensor q_out = ctx().tensor(DType::f32, qs), k_out = ctx().tensor(DType::f32, ks);
        poison(q_out);
        poison(k_out);
        ctx().reset();
        ctx().record(
            op("et_vk.apply_rotary_emb_hf.default"),
            {ctx().tensor(DType::f32, qs).set_data(xq), ctx().tensor(DType::f32, ks).set_data(xk),
             ctx().tensor(DType::f32, fs).set_data(cos), ctx().tensor(DType::f32, fs).set_data(sin),
             c.start, Arg::TensorList{q_out, k_out}});
        ctx().submit();
        const std::string what = shape_string(qs) + " rot " + std::to_string(c.rot) + " start " +
                                 std::to_string(c.start);
        EXPECT_LE(
            max_rel_error(q_out.get_data<float>(), rope_hf_ref(xq, qs, cos, sin, c.rot, c.start)),
            1e-6)
            << what;
        EXPECT_LE(
            max_rel_error(k_out.get_data<float>(), rope_hf_ref(xk, ks, cos, sin, c.rot, c.start)),
            1e-6)
            << what;
    }
    ctx().reset();
}

TEST(LlmOps, RotaryEmbInterleavedComplexPairs) {
    const std::vector<std::pair<Shape, Shape>> cases = {
        {{2, 5, 6}, {5, 6}}, {{1, 16, 64}, {1, 16, 32, 2}}, {{3, 7, 2}, {7, 1, 2}}};
    uint32_t seed = 80;
    for (const auto& [xs, fs] : cases) {
        auto x = random_floats(size_t(numel(xs)), seed++);
        auto f = random_floats(size_t(numel(fs)), seed++);
        Tensor out = ctx().tensor(DType::f32, xs);
        poison(out);
        const int64_t N = xs[1], C = xs[2];
        std::vector<double> want(x.size());
        for (size_t base = 0; base < x.size(); base += size_t(C)) {
            const int64_t n = int64_t(base / size_t(C)) % N;
            for (int64_t k = 0; k < C / 2; ++k) {
                const double a = x[base + 2 * k], b = x[base + 2 * k + 1];
                const double c = f[size_t(n * C + 2 * k)], sn = f[size_t(n * C + 2 * k + 1)];
                want[base + 2 * k] = a * c - b * sn;
                want[base + 2 * k + 1] = a * sn + b * c;
            }
        }
        auto got = run_and_read(op("et_vk.apply_rotary_emb_interleaved.default"),
                                {ctx().tensor(DType::f32, xs).set_data(x),
                                 ctx().tensor(DType::f32, fs).set_data(f), out},
                                out);
        EXPECT_LE(max_rel_error(got, want), 1e-6) << shape_string(xs) << " " << shape_string(fs);
    }
}

TEST(LlmOps, RotaryEmbFloat16) {
    WGX_SKIP_WITHOUT_F16();
    const Shape qs{1, 3, 4, 16}, ks{1, 3, 2, 16}, fs{3, 8};
    auto xq = round_to_half(random_floats(size_t(numel(qs)), 90));
    auto xk = round_to_half(random_floats(size_t(numel(ks)), 91));
    auto cos = round_to_half(random_floats(size_t(numel(fs)), 92));
    auto sin = round_to_half(random_floats(size_t(numel(fs)), 93));
    Tensor q_out = half_output(qs), k_out = half_output(ks);
    ctx().reset();
    ctx().record(op("et_vk.apply_rotary_emb.default"),
                 {half_tensor(qs, xq), half_tensor(ks, xk), half_tensor(fs, cos),
                  half_tensor(fs, sin), Arg::TensorList{q_out, k_out}});
    ctx().submit();
    for (const auto& [t, x, s] : {std::tuple{&q_out, &xq, qs}, std::tuple{&k_out, &xk, ks}}) {
        auto got = read_half(*t);
        auto want = rope_llama_ref(*x, s, cos, sin);
        for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_TRUE(half_close(got[i], want[i], 1e-6))
                << i << ": " << got[i] << " vs " << want[i];
        }
    }
    ctx().reset();
}

TEST(LlmOps, RotaryEmbRejectsBadArguments) {
    const Shape qs{1, 3, 4, 8}, ks{1, 3, 2, 8};
    Tensor xq = ctx().tensor(DType::f32, qs).set_data(random_floats(96, 1));
    Tensor xk = ctx().tensor(DType::f32, ks).set_data(random_floats(48, 2));
    Tensor f = ctx().tensor(DType::f32, {3, 4}).set_data(random_floats(12, 3));
    Tensor f5 = ctx().tensor(DType::f32, {3, 5}).set_data(random_floats(15, 3));
    Tensor qo = ctx().tensor(DType::f32, qs), ko = ctx().tensor(DType::f32, ks);
    expect_invalid("et_vk.apply_rotary_emb.default", {xq, xk, f5, f5, Arg::TensorList{qo, ko}},
                   {"freqs_cos", "[3, 4]"});
    expect_invalid("et_vk.apply_rotary_emb_hf.default",
                   {xq, xk, f, f, int64_t(1), Arg::TensorList{qo, ko}}, {"start_pos 1", "3 rows"});
    expect_invalid("et_vk.apply_rotary_emb.default", {xq, xk, f, f, Arg::TensorList{ko, qo}},
                   {"xq_out"});
}

// ---------------------------------------------------------------------------------------------
// llama.sdpa_with_kv_cache / update_cache / custom_sdpa

struct SdpaCase {
    int64_t D, Hq, Hkv, C, start, S;
    bool causal = true;
    std::optional<double> scale;
};

std::string describe(const SdpaCase& c) {
    return "D " + std::to_string(c.D) + " Hq " + std::to_string(c.Hq) + " Hkv " +
           std::to_string(c.Hkv) + " C " + std::to_string(c.C) + " start " +
           std::to_string(c.start) + " S " + std::to_string(c.S) + (c.causal ? "" : " not causal") +
           (c.scale ? " scaled" : "");
}

// The caches with k / v written at [start, start + S) (B = 1).
std::vector<float> written(std::vector<float> cache, const std::vector<float>& x,
                           const SdpaCase& c) {
    std::copy(x.begin(), x.end(), cache.begin() + c.start * c.Hkv * c.D);
    return cache;
}

// Attention of q [1, S, Hq, D] over the caches [1, C, Hkv, D], in float64.
std::vector<double> sdpa_ref(const std::vector<float>& q, const std::vector<float>& kc,
                             const std::vector<float>& vc, const SdpaCase& c) {
    const double scale = c.scale ? *c.scale : 1 / std::sqrt(double(c.D));
    std::vector<double> out(q.size());
    for (int64_t s = 0; s < c.S; ++s) {
        const int64_t keys = c.causal ? c.start + s + 1 : c.start + c.S;
        for (int64_t h = 0; h < c.Hq; ++h) {
            const int64_t g = h / (c.Hq / c.Hkv);
            const float* qr = &q[size_t((s * c.Hq + h) * c.D)];
            std::vector<double> sc(static_cast<size_t>(keys));
            double m = -INFINITY;
            for (int64_t j = 0; j < keys; ++j) {
                const float* kr = &kc[size_t((j * c.Hkv + g) * c.D)];
                double dot = 0;
                for (int64_t d = 0; d < c.D; ++d) dot += double(qr[d]) * kr[d];
                sc[size_t(j)] = scale * dot;
                m = std::max(m, sc[size_t(j)]);
            }
            double sum = 0;
            for (double& x : sc) sum += (x = std::exp(x - m));
            for (int64_t d = 0; d < c.D; ++d) {
                double acc = 0;
                for (int64_t j = 0; j < keys; ++j) {
                    acc += sc[size_t(j)] * vc[size_t((j * c.Hkv + g) * c.D + d)];
                }
                out[size_t((s * c.Hq + h) * c.D + d)] = acc / sum;
            }
        }
    }
    return out;
}

Arg scale_arg(const SdpaCase& c) { return c.scale ? Arg(*c.scale) : Arg(); }

// Runs sdpa_with_kv_cache for `c` and checks out and both caches.
void check_sdpa_with_kv_cache(const SdpaCase& c, uint32_t seed, const std::string& path) {
    const Shape qs{1, c.S, c.Hq, c.D}, ks{1, c.S, c.Hkv, c.D}, cs{1, c.C, c.Hkv, c.D};
    auto q = random_floats(size_t(numel(qs)), seed);
    auto k = random_floats(size_t(numel(ks)), seed + 1);
    auto v = random_floats(size_t(numel(ks)), seed + 2);
    auto kc = random_floats(size_t(numel(cs)), seed + 3);
    auto vc = random_floats(size_t(numel(cs)), seed + 4);
    Tensor tkc = ctx().tensor(DType::f32, cs).set_data(kc);
    Tensor tvc = ctx().tensor(DType::f32, cs).set_data(vc);
    Tensor out = ctx().tensor(DType::f32, qs);
    poison(out);
    auto got = run_and_read(
        op("llama.sdpa_with_kv_cache.default"),
        {ctx().tensor(DType::f32, qs).set_data(q), ctx().tensor(DType::f32, ks).set_data(k),
         ctx().tensor(DType::f32, ks).set_data(v), tkc, tvc, c.start, c.S, Arg(), 0.0, c.causal,
         scale_arg(c), out},
        out);
    const auto kc_want = written(kc, k, c), vc_want = written(vc, v, c);
    const double err = max_rel_error(got, sdpa_ref(q, kc_want, vc_want, c));
    EXPECT_LE(err, 2e-5) << path << " " << describe(c);
    EXPECT_TRUE(tkc.get_data<float>() == kc_want) << "k_cache " << describe(c);
    EXPECT_TRUE(tvc.get_data<float>() == vc_want) << "v_cache " << describe(c);
    std::printf("[sdpa] %s %s: max_rel_error %.2e\n", path.c_str(), describe(c).c_str(), err);
    // Which attention kernel ran (on devices with timestamp queries; the profiled run repeats
    // the same cache writes, so the caches stay as checked).
    const std::string kernel = c.S >= 4 && c.D <= 128 ? "/prefill_" : "/decode_";
    const auto labels = recorded_kernels();
    if (!labels.empty()) {
        EXPECT_TRUE(
            std::any_of(labels.begin(), labels.end(),
                        [&](const std::string& l) { return l.find(kernel) != std::string::npos; }))
            << describe(c) << " did not run " << kernel;
    }
}

TEST(LlmOps, SdpaWithKvCacheDecode) {
    const std::vector<SdpaCase> cases = {
        {32, 4, 4, 64, 0, 1},          // first token
        {64, 4, 2, 128, 37, 1},        // GQA 2
        {128, 8, 2, 256, 255, 1},      // GQA 4, the last position
        {48, 8, 1, 1024, 1000, 1},     // GQA 8, a long context: 32 splits of the keys
        {32, 2, 1, 8192, 8000, 1},     // splits of 250 keys: two blocks each, one partial
        {256, 4, 2, 128, 100, 1},      // head size above the workgroup: several columns each
        {64, 4, 4, 64, 5, 3},          // a few rows on the one-row kernel
        {32, 2, 1, 64, 20, 3, false},  // not causal: every row sees all written positions
        {64, 4, 2, 96, 50, 1, true, 0.3},
    };
    on_both_reduction_paths([&](const std::string& path) {
        uint32_t seed = 100;
        for (const SdpaCase& c : cases) check_sdpa_with_kv_cache(c, seed += 10, path);
    });
    ctx().reset();
}

TEST(LlmOps, SdpaWithKvCachePrefill) {
    const std::vector<SdpaCase> cases = {
        {32, 8, 2, 100, 0, 7},        // GQA 4 from position 0
        {64, 4, 1, 64, 57, 7},        // ends at the last position
        {128, 2, 2, 64, 10, 7},       // head size 128
        {48, 8, 1, 1024, 900, 7},     // GQA 8, a long context
        {64, 4, 2, 128, 3, 20},       // several row blocks, the last one partial
        {32, 4, 4, 64, 9, 7, false},  // not causal
        {64, 2, 1, 64, 0, 16, true, 0.05},
    };
    uint32_t seed = 300;
    for (const SdpaCase& c : cases) check_sdpa_with_kv_cache(c, seed += 10, "prefill");
    ctx().reset();
}

// Prefill of 7 tokens and then two decode steps on the same caches, each run its own recording:
// the later runs see the keys the earlier ones wrote.
TEST(LlmOps, SdpaWithKvCacheStatePersistsAcrossRuns) {
    const int64_t D = 32, Hq = 4, Hkv = 2, C = 64;
    const Shape cs{1, C, Hkv, D};
    auto kc = random_floats(size_t(numel(cs)), 500);
    auto vc = random_floats(size_t(numel(cs)), 501);
    Tensor tkc = ctx().tensor(DType::f32, cs).set_data(kc);
    Tensor tvc = ctx().tensor(DType::f32, cs).set_data(vc);
    uint32_t seed = 510;
    int64_t pos = 0;
    for (int64_t S : {7, 1, 1}) {
        const SdpaCase c{D, Hq, Hkv, C, pos, S};
        const Shape qs{1, S, Hq, D}, ks{1, S, Hkv, D};
        auto q = random_floats(size_t(numel(qs)), seed++);
        auto k = random_floats(size_t(numel(ks)), seed++);
        auto v = random_floats(size_t(numel(ks)), seed++);
        Tensor out = ctx().tensor(DType::f32, qs);
        poison(out);
        auto got = run_and_read(
            op("sdpa_with_kv_cache.default"),
            {ctx().tensor(DType::f32, qs).set_data(q), ctx().tensor(DType::f32, ks).set_data(k),
             ctx().tensor(DType::f32, ks).set_data(v), tkc, tvc, pos, S, Arg(), 0.0, true, Arg(),
             out},
            out);
        kc = written(kc, k, c);
        vc = written(vc, v, c);
        EXPECT_LE(max_rel_error(got, sdpa_ref(q, kc, vc, c)), 2e-5) << describe(c);
        EXPECT_TRUE(tkc.get_data<float>() == kc) << describe(c);
        EXPECT_TRUE(tvc.get_data<float>() == vc) << describe(c);
        pos += S;
    }
    ctx().reset();
}

// update_cache for k and v, then custom_sdpa over the caches: the plain export's split of
// sdpa_with_kv_cache.
TEST(LlmOps, UpdateCacheThenCustomSdpa) {
    const std::vector<SdpaCase> cases = {
        {64, 8, 2, 128, 0, 7},
        {32, 4, 1, 64, 63, 1},
        {48, 4, 4, 80, 30, 3, false, 0.2},
        {128, 4, 2, 64, 40, 9},
    };
    uint32_t seed = 700;
    for (const SdpaCase& c : cases) {
        const Shape qs{1, c.S, c.Hq, c.D}, ks{1, c.S, c.Hkv, c.D}, cs{1, c.C, c.Hkv, c.D};
        auto q = random_floats(size_t(numel(qs)), seed++);
        auto k = random_floats(size_t(numel(ks)), seed++);
        auto v = random_floats(size_t(numel(ks)), seed++);
        auto kc = random_floats(size_t(numel(cs)), seed++);
        auto vc = random_floats(size_t(numel(cs)), seed++);
        Tensor tkc = ctx().tensor(DType::f32, cs).set_data(kc);
        Tensor tvc = ctx().tensor(DType::f32, cs).set_data(vc);
        Tensor dummy_k = ctx().tensor(DType::f32, {1}), dummy_v = ctx().tensor(DType::f32, {1});
        Tensor out = ctx().tensor(DType::f32, qs);
        poison(out);
        ctx().reset();
        ctx().record(op("llama.update_cache.default"),
                     {ctx().tensor(DType::f32, ks).set_data(k), tkc, c.start, dummy_k});
        ctx().record(op("update_cache.default"),
                     {ctx().tensor(DType::f32, ks).set_data(v), tvc, c.start, dummy_v});
        ctx().record(op("llama.custom_sdpa.default"),
                     {ctx().tensor(DType::f32, qs).set_data(q), tkc, tvc, c.start, Arg(), 0.0,
                      c.causal, scale_arg(c), out});
        ctx().submit();
        kc = written(kc, k, c);
        vc = written(vc, v, c);
        const double err = max_rel_error(out.get_data<float>(), sdpa_ref(q, kc, vc, c));
        EXPECT_LE(err, 2e-5) << describe(c);
        EXPECT_TRUE(tkc.get_data<float>() == kc) << describe(c);
        EXPECT_TRUE(tvc.get_data<float>() == vc) << describe(c);
        std::printf("[custom_sdpa] %s: max_rel_error %.2e\n", describe(c).c_str(), err);
    }
    ctx().reset();
}

TEST(LlmOps, SdpaWithKvCacheFloat16) {
    WGX_SKIP_WITHOUT_F16();
    for (const SdpaCase& c : {SdpaCase{64, 4, 2, 64, 30, 1}, SdpaCase{32, 4, 1, 64, 5, 7}}) {
        const Shape qs{1, c.S, c.Hq, c.D}, ks{1, c.S, c.Hkv, c.D}, cs{1, c.C, c.Hkv, c.D};
        auto q = round_to_half(random_floats(size_t(numel(qs)), 800));
        auto k = round_to_half(random_floats(size_t(numel(ks)), 801));
        auto v = round_to_half(random_floats(size_t(numel(ks)), 802));
        auto kc = round_to_half(random_floats(size_t(numel(cs)), 803));
        auto vc = round_to_half(random_floats(size_t(numel(cs)), 804));
        Tensor tkc = half_tensor(cs, kc), tvc = half_tensor(cs, vc);
        Tensor out = half_output(qs);
        ctx().reset();
        ctx().record(op("llama.sdpa_with_kv_cache.default"),
                     {half_tensor(qs, q), half_tensor(ks, k), half_tensor(ks, v), tkc, tvc, c.start,
                      c.S, Arg(), 0.0, true, Arg(), out});
        ctx().submit();
        kc = written(kc, k, c);
        vc = written(vc, v, c);
        auto got = read_half(out);
        auto want = sdpa_ref(q, kc, vc, c);
        for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_TRUE(half_close(got[i], want[i], 2e-5))
                << describe(c) << " at " << i << ": " << got[i] << " vs " << want[i];
        }
        EXPECT_TRUE(read_half(tkc) == kc) << describe(c);
        EXPECT_TRUE(read_half(tvc) == vc) << describe(c);
    }
    ctx().reset();
}

TEST(LlmOps, SdpaRejectsBadArguments) {
    const Shape qs{1, 3, 4, 8}, ks{1, 3, 2, 8}, cs{1, 10, 2, 8};
    Tensor q = ctx().tensor(DType::f32, qs).set_data(random_floats(96, 1));
    Tensor k = ctx().tensor(DType::f32, ks).set_data(random_floats(48, 2));
    Tensor v = ctx().tensor(DType::f32, ks).set_data(random_floats(48, 3));
    Tensor kc = ctx().tensor(DType::f32, cs).set_data(random_floats(160, 4));
    Tensor vc = ctx().tensor(DType::f32, cs).set_data(random_floats(160, 5));
    Tensor out = ctx().tensor(DType::f32, qs);
    Tensor mask = ctx().tensor(DType::f32, {3, 10}).set_data(random_floats(30, 6));
    auto call = [&](int64_t pos, int64_t seq_len, Arg m) {
        return std::vector<Arg>{q, k, v, kc, vc, pos, seq_len, m, 0.0, true, Arg(), out};
    };
    expect_invalid("llama.sdpa_with_kv_cache.default", call(8, 3, Arg()),
                   {"input_pos 8", "seq_len 3", "10 positions"});
    expect_invalid("llama.sdpa_with_kv_cache.default", call(-1, 3, Arg()), {"input_pos -1"});
    expect_invalid("llama.sdpa_with_kv_cache.default", call(0, 3, mask), {"attn_mask"});
    expect_invalid("llama.custom_sdpa.default",
                   {q, kc, vc, int64_t(8), Arg(), 0.0, true, Arg(), out}, {"start_pos 8"});
    expect_invalid("llama.update_cache.default", {k, kc, int64_t(9), out}, {"start_pos 9"});
    Tensor kc3 = ctx().tensor(DType::f32, {1, 10, 3, 8});
    expect_invalid("llama.custom_sdpa.default",
                   {q, kc3, kc3, int64_t(0), Arg(), 0.0, true, Arg(), out}, {"multiple"});
}

}  // namespace
}  // namespace wgx::test
