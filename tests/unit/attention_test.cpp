// wgx.attention against a float64 reference written here: q, k and v as contiguous tensors and
// as strided slices of one packed projection (the layout the fusion pass reads), sizes 1, odd
// and at the op's limits (256 keys, head size 128), fewer and more query rows than a workgroup
// takes, scores scaled, fully masked rows (-inf keys) with and without zero_masked_rows, float16
// storage, and the argument checks. Tolerance: max_rel_error <= 2e-5 (float32 dot products of
// length <= 128 and sums of <= 256 exponentials).
#include "half_test_util.h"
#include "test_util.h"

namespace wgx::test {
namespace {

struct ViewSpec {
    int64_t offset, batch, row, col;
};

struct Problem {
    int64_t B, Lq, Lk, D, DV;
    double scale;
};

// out[b, i, c] in float64, with q/k/v element (b, r, c) at view.offset + b * batch + ...
std::vector<double> reference(const Problem& p, const std::vector<float>& q, ViewSpec qv,
                              const std::vector<float>& k, ViewSpec kv, const std::vector<float>& v,
                              ViewSpec vv, bool zero_masked) {
    auto at = [](const std::vector<float>& t, ViewSpec s, int64_t b, int64_t r, int64_t c) {
        return double(t[size_t(s.offset + b * s.batch + r * s.row + c * s.col)]);
    };
    std::vector<double> out(size_t(p.B * p.Lq * p.DV));
    for (int64_t b = 0; b < p.B; ++b) {
        for (int64_t i = 0; i < p.Lq; ++i) {
            std::vector<double> s(size_t(p.Lk));
            double m = -INFINITY;
            for (int64_t j = 0; j < p.Lk; ++j) {
                double dot = 0;
                for (int64_t c = 0; c < p.D; ++c) dot += at(q, qv, b, i, c) * at(k, kv, b, j, c);
                s[size_t(j)] = p.scale * dot;
                m = std::max(m, s[size_t(j)]);
            }
            double sum = 0;
            for (auto& x : s) sum += (x = std::exp(x - m));
            for (int64_t c = 0; c < p.DV; ++c) {
                double acc = 0;
                for (int64_t j = 0; j < p.Lk; ++j) acc += s[size_t(j)] * at(v, vv, b, j, c);
                double& o = out[size_t((b * p.Lq + i) * p.DV + c)];
                o = acc / sum;
                if (m == -INFINITY) o = zero_masked ? 0.0 : NAN;
            }
        }
    }
    return out;
}

std::vector<Arg> call_args(const Problem& p, Tensor q, ViewSpec qv, Tensor k, ViewSpec kv, Tensor v,
                           ViewSpec vv, bool zero_masked, Tensor out) {
    auto list = [](ViewSpec s) { return std::vector<int64_t>{s.offset, s.batch, s.row, s.col}; };
    return {q,
            k,
            v,
            list(qv),
            list(kv),
            list(vv),
            std::vector<int64_t>{p.B, p.Lq, p.Lk, p.D, p.DV},
            p.scale,
            zero_masked,
            out};
}

std::vector<float> run(const std::vector<Arg>& args, const Tensor& out) {
    ctx().reset();
    ctx().record(op("wgx.attention.default"), args);
    ctx().submit();
    return out.get_data<float>();
}

// Contiguous [B, L, C] views.
ViewSpec contiguous(int64_t L, int64_t C) { return {0, L * C, C, 1}; }

TEST(Attention, ContiguousInputsMatchFloat64) {
    const std::vector<Problem> problems = {
        {1, 1, 1, 1, 1, 1.0},         {2, 7, 5, 3, 4, 0.5},        {3, 13, 13, 16, 16, 0.25},
        {1, 9, 31, 8, 5, 1.0},        {2, 26, 26, 16, 16, 0.25},   {1, 8, 256, 64, 64, 0.125},
        {12, 33, 197, 64, 64, 0.125}, {1, 17, 40, 128, 128, 0.08}, {1, 5, 3, 7, 100, 1.3},
    };
    uint32_t seed = 1;
    for (const Problem& p : problems) {
        auto q = random_floats(size_t(p.B * p.Lq * p.D), seed++);
        auto k = random_floats(size_t(p.B * p.Lk * p.D), seed++);
        auto v = random_floats(size_t(p.B * p.Lk * p.DV), seed++);
        Tensor tq = ctx().tensor(DType::f32, {p.B, p.Lq, p.D}).set_data(q);
        Tensor tk = ctx().tensor(DType::f32, {p.B, p.Lk, p.D}).set_data(k);
        Tensor tv = ctx().tensor(DType::f32, {p.B, p.Lk, p.DV}).set_data(v);
        Tensor out = ctx().tensor(DType::f32, {p.B, p.Lq, p.DV});
        poison(out);
        auto got = run(call_args(p, tq, contiguous(p.Lq, p.D), tk, contiguous(p.Lk, p.D), tv,
                                 contiguous(p.Lk, p.DV), false, out),
                       out);
        auto want = reference(p, q, contiguous(p.Lq, p.D), k, contiguous(p.Lk, p.D), v,
                              contiguous(p.Lk, p.DV), false);
        EXPECT_LE(max_rel_error(got, want), 2e-5)
            << "B " << p.B << " Lq " << p.Lq << " Lk " << p.Lk << " D " << p.D << " DV " << p.DV;
    }
}

// q, k, v cut from one [L, 3 * H * d] projection (heads as the batch), and k read transposed
// from a [B, d, Lk] tensor: the layouts passes/fuse_attention hands the op.
TEST(Attention, StridedViewsOfAPackedProjection) {
    for (auto [H, L, d] :
         {std::tuple<int64_t, int64_t, int64_t>{3, 26, 16}, {5, 11, 7}, {2, 64, 9}}) {
        const int64_t E = H * d;
        auto qkv = random_floats(size_t(L * 3 * E), uint32_t(100 + H));
        Tensor t = ctx().tensor(DType::f32, {L, 3 * E}).set_data(qkv);
        const Problem p{H, L, L, d, d, 1.0 / std::sqrt(double(d))};
        const ViewSpec qv{0, d, 3 * E, 1}, kv{E, d, 3 * E, 1}, vv{2 * E, d, 3 * E, 1};
        Tensor out = ctx().tensor(DType::f32, {H, L, d});
        poison(out);
        auto got = run(call_args(p, t, qv, t, kv, t, vv, true, out), out);
        EXPECT_LE(max_rel_error(got, reference(p, qkv, qv, qkv, kv, qkv, vv, true)), 2e-5)
            << "H " << H << " L " << L << " d " << d;

        // k stored transposed: element (b, j, c) of k at b * d * L + c * L + j.
        auto kt = random_floats(size_t(H * d * L), uint32_t(200 + H));
        Tensor tkt = ctx().tensor(DType::f32, {H, d, L}).set_data(kt);
        const ViewSpec ktv{0, d * L, 1, L};
        poison(out);
        got = run(call_args(p, t, qv, tkt, ktv, t, vv, false, out), out);
        EXPECT_LE(max_rel_error(got, reference(p, qkv, qv, kt, ktv, qkv, vv, false)), 2e-5);
    }
}

// Keys of -inf in k make some rows' scores all -inf: 0 with zero_masked_rows, NaN without (as
// softmax gives); the other rows stay exact.
TEST(Attention, FullyMaskedRows) {
    const Problem p{2, 10, 6, 4, 3, 1.0};
    auto q = random_floats(size_t(p.B * p.Lq * p.D), 7);
    auto k = random_floats(size_t(p.B * p.Lk * p.D), 8);
    auto v = random_floats(size_t(p.B * p.Lk * p.DV), 9);
    // Rows 0 and 9 of batch 1: q = (1, 0, 0, 0); every key of batch 1 has k[.., 0] = -inf, so
    // those rows score -inf everywhere. Other rows of batch 1 then see NaN or +-inf mixes, so
    // only batch 0 and the two masked rows are compared.
    for (int64_t j = 0; j < p.Lk; ++j) k[size_t((p.Lk + j) * p.D)] = -INFINITY;
    for (int64_t i : {0, 9}) {
        for (int64_t c = 0; c < p.D; ++c) q[size_t((p.Lq + i) * p.D + c)] = c == 0 ? 1.f : 0.f;
    }
    Tensor tq = ctx().tensor(DType::f32, {p.B, p.Lq, p.D}).set_data(q);
    Tensor tk = ctx().tensor(DType::f32, {p.B, p.Lk, p.D}).set_data(k);
    Tensor tv = ctx().tensor(DType::f32, {p.B, p.Lk, p.DV}).set_data(v);
    for (bool zero : {true, false}) {
        Tensor out = ctx().tensor(DType::f32, {p.B, p.Lq, p.DV});
        poison(out);
        auto got = run(call_args(p, tq, contiguous(p.Lq, p.D), tk, contiguous(p.Lk, p.D), tv,
                                 contiguous(p.Lk, p.DV), zero, out),
                       out);
        // Batch 0 against the reference.
        const Problem p0{1, p.Lq, p.Lk, p.D, p.DV, p.scale};
        auto want = reference(p0, q, contiguous(p.Lq, p.D), k, contiguous(p.Lk, p.D), v,
                              contiguous(p.Lk, p.DV), zero);
        std::vector<float> batch0(got.begin(), got.begin() + p.Lq * p.DV);
        EXPECT_LE(max_rel_error(batch0, want), 2e-5);
        for (int64_t i : {0, 9}) {
            for (int64_t c = 0; c < p.DV; ++c) {
                float x = got[size_t((p.Lq + i) * p.DV + c)];
                if (zero) {
                    EXPECT_EQ(x, 0.f) << "row " << i;
                } else {
                    EXPECT_TRUE(std::isnan(x)) << "row " << i << ": " << x;
                }
            }
        }
    }
}

TEST(Attention, Float16Storage) {
    WGX_SKIP_WITHOUT_F16();
    const Problem p{3, 21, 50, 16, 24, 0.25};
    auto q = round_to_half(random_floats(size_t(p.B * p.Lq * p.D), 31));
    auto k = round_to_half(random_floats(size_t(p.B * p.Lk * p.D), 32));
    auto v = round_to_half(random_floats(size_t(p.B * p.Lk * p.DV), 33));
    Tensor out = half_output({p.B, p.Lq, p.DV});
    auto args = call_args(p, half_tensor({p.B, p.Lq, p.D}, q), contiguous(p.Lq, p.D),
                          half_tensor({p.B, p.Lk, p.D}, k), contiguous(p.Lk, p.D),
                          half_tensor({p.B, p.Lk, p.DV}, v), contiguous(p.Lk, p.DV), false, out);
    ctx().reset();
    ctx().record(op("wgx.attention.default"), args);
    ctx().submit();
    auto got = read_half(out);
    auto want = reference(p, q, contiguous(p.Lq, p.D), k, contiguous(p.Lk, p.D), v,
                          contiguous(p.Lk, p.DV), false);
    for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_TRUE(half_close(got[i], want[i], 2e-5)) << i << ": " << got[i] << " vs " << want[i];
    }
}

TEST(Attention, RejectsBadArguments) {
    const Problem p{2, 4, 5, 3, 3, 1.0};
    Tensor q = ctx().tensor(DType::f32, {2, 4, 3}).set_data(random_floats(24, 1));
    Tensor k = ctx().tensor(DType::f32, {2, 5, 3}).set_data(random_floats(30, 2));
    Tensor v = ctx().tensor(DType::f32, {2, 5, 3}).set_data(random_floats(30, 3));
    Tensor out = ctx().tensor(DType::f32, {2, 4, 3});
    auto expect_error = [&](std::vector<Arg> args, const char* needle) {
        ctx().reset();
        try {
            ctx().record(op("wgx.attention.default"), args);
            ADD_FAILURE() << "no error; expected one mentioning " << needle;
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    // A view reaching past its tensor.
    expect_error(
        call_args(p, q, {1, 12, 3, 1}, k, contiguous(5, 3), v, contiguous(5, 3), false, out),
        "q_view");
    // Too many keys for the kernel.
    Tensor big = ctx().tensor(DType::f32, {1, 300, 3});
    expect_error(call_args({1, 4, 300, 3, 3, 1.0}, q, contiguous(4, 3), big, contiguous(300, 3),
                           big, contiguous(300, 3), false, out),
                 "at most 256 keys");
    // out of the wrong size, a malformed view, non-positive sizes.
    Tensor small = ctx().tensor(DType::f32, {2, 4, 2});
    expect_error(
        call_args(p, q, contiguous(4, 3), k, contiguous(5, 3), v, contiguous(5, 3), false, small),
        "out");
    auto args =
        call_args(p, q, contiguous(4, 3), k, contiguous(5, 3), v, contiguous(5, 3), false, out);
    args[4] = std::vector<int64_t>{0, 15, 3};
    expect_error(args, "k_view");
    expect_error(call_args({0, 4, 5, 3, 3, 1.0}, q, contiguous(4, 3), k, contiguous(5, 3), v,
                           contiguous(5, 3), false, out),
                 "sizes");
}

}  // namespace
}  // namespace wgx::test
