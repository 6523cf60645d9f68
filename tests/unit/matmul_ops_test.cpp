// linear, addmm, bmm and matmul against float64 references written here: sizes 1, odd and prime
// (partial tiles in every direction), K a multiple of 4 or not (the vec4 and scalar kernels
// behind bmm/matmul), leading dims of rank up to 5, every bias broadcast, alpha and beta.
// Tolerance: max_rel_error <= 1e-5 (float32 fma accumulation, K <= 300). Float16 tensors
// (inputs rounded to float16 on the host, the reference on the rounded values): f16_error_ratio
// <= 1, one rounding to float16 plus float32 accumulation (f16_accumulation_check.h).
#include "f16_accumulation_check.h"
#include "ops/common/broadcast.h"
#include "test_util.h"

namespace wgx::test {
namespace {

Tensor make(const Shape& s, uint32_t seed) {
    return ctx().tensor(DType::f32, s).set_data(random_floats(numel(s), seed));
}

std::vector<double> values(const Tensor& t) {
    auto v = t.get_data<float>();
    return {v.begin(), v.end()};
}

Tensor out_tensor(const Shape& s) {
    Tensor t = ctx().tensor(DType::f32, s);
    poison(t);
    return t;
}

// C[b] = A[b] @ B[b] for row-major [M, K] and [K, N] blocks (stride 0: shared).
std::vector<double> mm_ref(const std::vector<double>& a, const std::vector<double>& b,
                           int64_t batch, int64_t M, int64_t K, int64_t N, int64_t sa, int64_t sb) {
    std::vector<double> c(batch * M * N, 0);
    for (int64_t z = 0; z < batch; ++z) {
        for (int64_t i = 0; i < M; ++i) {
            for (int64_t j = 0; j < N; ++j) {
                double s = 0;
                for (int64_t k = 0; k < K; ++k) s += a[z * sa + i * K + k] * b[z * sb + k * N + j];
                c[(z * M + i) * N + j] = s;
            }
        }
    }
    return c;
}

std::vector<double> transpose(const std::vector<double>& w, int64_t rows, int64_t cols) {
    std::vector<double> t(w.size());
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = w[r * cols + c];
    }
    return t;
}

void record(std::string_view name, std::vector<Arg> args) {
    ctx().reset();
    ctx().record(op(name), args);
    ctx().submit();
}

TEST(MatmulOps, LinearWithAndWithoutBias) {
    struct Case {
        Shape input;
        int64_t N;
        bool bias;
    };
    std::vector<Case> cases = {
        {{1, 1}, 1, true},     {{7}, 5, true},         {{3, 13}, 17, true},
        {{33, 64}, 40, false}, {{2, 5, 31}, 37, true}, {{2, 3, 1, 4, 9}, 3, true},
        {{65, 129}, 33, true},  // partial tiles after full ones
    };
    for (const Case& c : cases) {
        int64_t K = c.input.back();
        int64_t M = numel(c.input) / K;
        Tensor x = make(c.input, 1);
        Tensor w = make({c.N, K}, 2);
        Tensor b = make({c.N}, 3);
        Shape out_shape = c.input;
        out_shape.back() = c.N;
        Tensor out = out_tensor(out_shape);
        record("aten.linear.default", {x, w, c.bias ? Arg(b) : Arg(), out});
        auto want = mm_ref(values(x), transpose(values(w), c.N, K), 1, M, K, c.N, 0, 0);
        if (c.bias) {
            auto bv = values(b);
            for (size_t i = 0; i < want.size(); ++i) want[i] += bv[i % c.N];
        }
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-5)
            << "M " << M << " K " << K << " N " << c.N;
    }
    ctx().reset();
}

TEST(MatmulOps, AddmmBroadcastsSelfWithAlphaBeta) {
    const int64_t M = 19, K = 23, N = 29;
    Tensor a = make({M, K}, 4);
    Tensor b = make({K, N}, 5);
    auto prod = mm_ref(values(a), values(b), 1, M, K, N, 0, 0);
    struct Case {
        Shape self;
        double beta, alpha;
    };
    std::vector<Case> cases = {
        {{M, N}, 1, 1},     {{N}, 0.5, 2}, {{1, N}, -1, 1},
        {{M, 1}, 2, -0.25}, {{}, 1.5, 1},  {{1}, 1, 3},
    };
    for (const Case& c : cases) {
        Tensor self = make(c.self, 6);
        auto sv = values(self);
        auto strides = ops::broadcast_strides(c.self, {M, N});
        std::vector<double> want(M * N);
        for (int64_t i = 0; i < M; ++i) {
            for (int64_t j = 0; j < N; ++j) {
                double s = sv[i * strides[kMaxRank - 2] + j * strides[kMaxRank - 1]];
                want[i * N + j] = c.beta * s + c.alpha * prod[i * N + j];
            }
        }
        Tensor out = out_tensor({M, N});
        record("aten.addmm.default", {self, a, b, c.beta, c.alpha, out});
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-5)
            << "self rank " << c.self.size() << " beta " << c.beta;
    }
    // beta = 0 ignores self, even NaN (as PyTorch).
    Tensor nan = ctx().tensor(DType::f32, {M, N});
    poison(nan);
    Tensor out = out_tensor({M, N});
    record("aten.addmm.default", {nan, a, b, 0.0, 1.0, out});
    EXPECT_LE(max_rel_error(out.get_data<float>(), prod), 1e-5);
    ctx().reset();
}

TEST(MatmulOps, BmmBothKernels) {
    struct Case {
        int64_t B, M, K, N;
    };
    // K, N multiples of 4 take the vec4 kernel; others the scalar one.
    for (const Case& c :
         std::vector<Case>{{1, 1, 1, 1}, {3, 5, 7, 11}, {4, 33, 16, 36}, {2, 64, 300, 8}}) {
        Tensor a = make({c.B, c.M, c.K}, 7);
        Tensor b = make({c.B, c.K, c.N}, 8);
        Tensor out = out_tensor({c.B, c.M, c.N});
        record("aten.bmm.default", {a, b, out});
        auto want = mm_ref(values(a), values(b), c.B, c.M, c.K, c.N, c.M * c.K, c.K * c.N);
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-5)
            << c.B << "x" << c.M << "x" << c.K << "x" << c.N;
    }
    ctx().reset();
}

TEST(MatmulOps, MatmulRanksAndBatchBroadcast) {
    struct Case {
        Shape a, b, out;
    };
    std::vector<Case> cases = {
        {{7}, {7}, {}},                        // dot
        {{5, 7}, {7}, {5}},                    // matrix-vector
        {{7}, {7, 3}, {3}},                    // vector-matrix
        {{2, 3, 5, 7}, {7, 4}, {2, 3, 5, 4}},  // batch folded into rows
        {{2, 3, 5, 8}, {8}, {2, 3, 5}},
        {{5, 7}, {2, 7, 3}, {2, 5, 3}},  // shared left operand
        {{7}, {3, 7, 2}, {3, 2}},
        {{2, 1, 5, 7}, {3, 7, 4}, {2, 3, 5, 4}},     // rejected below (both broadcast)
        {{1, 3, 5, 7}, {2, 3, 7, 4}, {2, 3, 5, 4}},  // rejected: self broadcasts
        {{2, 3, 5, 7}, {2, 3, 7, 4}, {2, 3, 5, 4}},
        {{3, 5, 7}, {1, 7, 4}, {3, 5, 4}},
        {{1, 5, 12}, {4, 12, 8}, {4, 5, 8}},
    };
    for (const Case& c : cases) {
        Tensor a = make(c.a, 9);
        Tensor b = make(c.b, 10);
        Tensor out = out_tensor(c.out);
        Shape ba = c.a.size() > 2 ? Shape(c.a.begin(), c.a.end() - 2) : Shape{};
        Shape bb = c.b.size() > 2 ? Shape(c.b.begin(), c.b.end() - 2) : Shape{};
        int64_t na = numel(ba), nb = numel(bb), count = numel(*ops::broadcast_shapes(ba, bb));
        if (nb != 1 && (na != 1 && na != count)) {
            EXPECT_THROW(record("aten.matmul.default", {a, b, out}), InvalidArgument);
            continue;
        }
        record("aten.matmul.default", {a, b, out});
        int64_t M = c.a.size() == 1 ? 1 : c.a[c.a.size() - 2];
        int64_t K = c.a.back();
        int64_t N = c.b.size() == 1 ? 1 : c.b.back();
        auto want = nb == 1
                        ? mm_ref(values(a), values(b), 1, M * na, K, N, 0, 0)
                        : mm_ref(values(a), values(b), count, M, K, N, na == 1 ? 0 : M * K, K * N);
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-5)
            << c.a.size() << "-D @ " << c.b.size() << "-D";
    }
    ctx().reset();
}

// A float16 operand: its tensor and its values (float16 already) for the reference.
struct Half {
    Tensor t;
    std::vector<double> v;
};

Half make_half(const Shape& s, uint32_t seed) {
    auto v = f16_random(numel(s), seed);
    return {half_tensor(s, v), std::vector<double>(v.begin(), v.end())};
}

// The products' absolute sums, for f16_error_ratio: mm_ref on |a| and |b|.
std::vector<double> abs_values(std::vector<double> v) {
    for (double& x : v) x = std::abs(x);
    return v;
}

// Float16 through every GEMM op: linear with and without bias (the few-rows gemv kernel, vec4
// and scalar tiles, the transposed weight), addmm with a broadcast self, alpha and beta, bmm on
// both access paths and matmul with a shared operand.
TEST(MatmulOps, Float16MatchesFloat64) {
    WGX_SKIP_WITHOUT_F16();
    uint32_t seed = 300;
    // linear: {input shape, N, bias}
    struct LinearCase {
        Shape input;
        int64_t N;
        bool bias;
    };
    for (const LinearCase& c : std::vector<LinearCase>{{{1, 768}, 300, true},  // gemv
                                                       {{3, 13}, 17, true},
                                                       {{33, 64}, 40, false},  // vec4
                                                       {{2, 5, 31}, 37, true},
                                                       {{65, 129}, 33, true}}) {
        const int64_t K = c.input.back(), M = numel(c.input) / K;
        Half x = make_half(c.input, seed++), w = make_half({c.N, K}, seed++),
             b = make_half({c.N}, seed++);
        Shape out_shape = c.input;
        out_shape.back() = c.N;
        Tensor out = half_output(out_shape);
        record("aten.linear.default", {x.t, w.t, c.bias ? Arg(b.t) : Arg(), out});
        auto want = mm_ref(x.v, transpose(w.v, c.N, K), 1, M, K, c.N, 0, 0);
        auto mag = mm_ref(abs_values(x.v), abs_values(transpose(w.v, c.N, K)), 1, M, K, c.N, 0, 0);
        if (c.bias) {
            for (size_t i = 0; i < want.size(); ++i) {
                want[i] += b.v[i % c.N];
                mag[i] += std::abs(b.v[i % c.N]);
            }
        }
        EXPECT_LE(f16_error_ratio(read_half(out), want, mag, K + 1), 1.0)
            << "linear f16 M " << M << " K " << K << " N " << c.N;
    }
    // addmm: self [M, 1] broadcast along the rows, beta and alpha.
    {
        const int64_t M = 19, K = 23, N = 29;
        const double beta = -0.5, alpha = 1.5;
        Half a = make_half({M, K}, seed++), b = make_half({K, N}, seed++),
             self = make_half({M, 1}, seed++);
        Tensor out = half_output({M, N});
        record("aten.addmm.default", {self.t, a.t, b.t, beta, alpha, out});
        auto prod = mm_ref(a.v, b.v, 1, M, K, N, 0, 0);
        auto mag = mm_ref(abs_values(a.v), abs_values(b.v), 1, M, K, N, 0, 0);
        std::vector<double> want(M * N);
        for (int64_t i = 0; i < M * N; ++i) {
            want[i] = beta * self.v[i / N] + alpha * prod[i];
            mag[i] = std::abs(beta * self.v[i / N]) + std::abs(alpha) * mag[i];
        }
        EXPECT_LE(f16_error_ratio(read_half(out), want, mag, K + 2), 1.0) << "addmm f16";
    }
    // bmm: K, N multiples of 4 (vec4<f16>) and not (scalar).
    struct BmmCase {
        int64_t B, M, K, N;
    };
    for (const BmmCase& c : std::vector<BmmCase>{{3, 5, 7, 11}, {4, 33, 16, 36}, {2, 64, 300, 8}}) {
        Half a = make_half({c.B, c.M, c.K}, seed++), b = make_half({c.B, c.K, c.N}, seed++);
        Tensor out = half_output({c.B, c.M, c.N});
        record("aten.bmm.default", {a.t, b.t, out});
        auto want = mm_ref(a.v, b.v, c.B, c.M, c.K, c.N, c.M * c.K, c.K * c.N);
        auto mag =
            mm_ref(abs_values(a.v), abs_values(b.v), c.B, c.M, c.K, c.N, c.M * c.K, c.K * c.N);
        EXPECT_LE(f16_error_ratio(read_half(out), want, mag, c.K), 1.0)
            << "bmm f16 " << c.B << "x" << c.M << "x" << c.K << "x" << c.N;
    }
    // matmul with a shared left operand (batch stride 0).
    {
        Half a = make_half({5, 12}, seed++), b = make_half({4, 12, 8}, seed++);
        Tensor out = half_output({4, 5, 8});
        record("aten.matmul.default", {a.t, b.t, out});
        auto want = mm_ref(a.v, b.v, 4, 5, 12, 8, 0, 12 * 8);
        auto mag = mm_ref(abs_values(a.v), abs_values(b.v), 4, 5, 12, 8, 0, 12 * 8);
        EXPECT_LE(f16_error_ratio(read_half(out), want, mag, 12), 1.0) << "matmul f16";
    }
    ctx().reset();
}

TEST(MatmulOps, BadArgumentsAreRejected) {
    Tensor x = make({4, 6}, 11);
    Tensor w = make({5, 6}, 12);
    Tensor w2 = make({5, 7}, 13);
    Tensor b5 = make({5}, 14);
    Tensor b4 = make({4}, 15);
    Tensor o45 = ctx().tensor(DType::f32, {4, 5});
    Tensor o44 = ctx().tensor(DType::f32, {4, 4});
    Tensor xi = ctx().tensor(DType::i32, {4, 6});
    Tensor m65 = make({6, 5}, 16);
    Tensor t3 = make({2, 4, 6}, 17);
    Tensor t3b = make({3, 6, 5}, 18);
    Tensor o3 = ctx().tensor(DType::f32, {2, 4, 5});
    expect_invalid("aten.linear.default", {x, w2, b5, o45}, "features");
    expect_invalid("aten.linear.default", {x, w, b4, o45}, "bias");
    expect_invalid("aten.linear.default", {x, w, b5, o44}, "out");
    expect_invalid("aten.linear.default", {xi, w, b5, o45}, "int32");
    expect_invalid("aten.addmm.default", {b4, x, m65, 1.0, 1.0, o45}, "self");
    expect_invalid("aten.addmm.default", {b5, x, w, 1.0, 1.0, o45}, "chain");
    expect_invalid("aten.bmm.default", {t3, t3b, o3}, "chain");
    expect_invalid("aten.bmm.default", {x, m65, o45}, "3-D");
    expect_invalid("aten.matmul.default", {x, w, o45}, "chain");
    expect_invalid("aten.matmul.default", {x, m65, o44}, "out");
}

// Float32 and float16 tensors in one call are refused, naming the op and both arguments.
TEST(MatmulOps, MixedFloat32AndFloat16AreRejected) {
    WGX_SKIP_WITHOUT_F16();
    Tensor x = make({4, 6}, 19);
    Tensor w16 = half_tensor({5, 6}, f16_random(30, 20));
    Tensor b16 = half_tensor({5}, f16_random(5, 21));
    Tensor o45 = ctx().tensor(DType::f32, {4, 5});
    Tensor o45h = half_output({4, 5});
    Tensor x16 = half_tensor({4, 6}, f16_random(24, 22));
    Tensor m65 = make({6, 5}, 23);
    expect_invalid("aten.linear.default", {x, w16, b16, o45}, "weight is float16");
    expect_invalid("aten.linear.default", {x16, w16, make({5}, 24), o45h}, "bias is float32");
    expect_invalid("aten.mm.default", {x16, m65, o45h}, "all float32 or all float16");
    expect_invalid("aten.addmm.default",
                   {b16, x16, half_tensor({6, 5}, f16_random(30, 25)), 1.0, 1.0, o45},
                   "out is float32");
    expect_invalid("aten.bmm.default",
                   {half_tensor({1, 4, 6}, f16_random(24, 26)), ctx().tensor(DType::f32, {1, 6, 5}),
                    half_output({1, 4, 5})},
                   "mat2 is float32");
    expect_invalid("aten.matmul.default", {x16, m65, o45h}, "other is float32");
}

}  // namespace
}  // namespace wgx::test
