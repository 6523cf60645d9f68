// aten.mm.default against a float64 reference, through both kernels (scalar tiled and vec4), in
// float32 and with float16 tensors (inputs rounded to float16 on the host; f16_error_ratio's
// bound: one rounding to float16 plus float32 accumulation).
#include "f16_accumulation_check.h"
#include "test_util.h"

namespace wgx::test {
namespace {

struct MmCase {
    int64_t M, K, N;
};

class Mm : public ::testing::TestWithParam<MmCase> {};

TEST_P(Mm, MatchesFloat64Reference) {
    auto [M, K, N] = GetParam();
    auto a = random_floats(M * K, 41);
    auto b = random_floats(K * N, 42);
    Tensor ta = ctx().tensor(DType::f32, {M, K}).set_data(a);
    Tensor tb = ctx().tensor(DType::f32, {K, N}).set_data(b);
    Tensor out = ctx().tensor(DType::f32, {M, N});
    poison(out);
    ctx().reset();
    ctx().record(op("aten.mm.default"), {ta, tb, out});
    ctx().submit();
    std::vector<double> want(M * N, 0.0);
    for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k)
            for (int64_t j = 0; j < N; ++j) want[i * N + j] += double(a[i * K + k]) * b[k * N + j];
    // fp32 accumulation over K terms: error grows like sqrt(K) * eps * |terms|.
    double tol = 4e-7 * std::sqrt(double(K)) * 4;
    EXPECT_LE(max_rel_error(out.get_data<float>(), want), tol) << M << "x" << K << "x" << N;
    ctx().reset();
}

TEST_P(Mm, Float16MatchesFloat64Reference) {
    WGX_SKIP_WITHOUT_F16();
    auto [M, K, N] = GetParam();
    auto a = f16_random(M * K, 43);
    auto b = f16_random(K * N, 44);
    Tensor out = half_output({M, N});
    ctx().reset();
    ctx().record(op("aten.mm.default"), {half_tensor({M, K}, a), half_tensor({K, N}, b), out});
    ctx().submit();
    std::vector<double> want(M * N, 0.0), magnitude(M * N, 0.0);
    for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k)
            for (int64_t j = 0; j < N; ++j) {
                const double t = double(a[i * K + k]) * b[k * N + j];
                want[i * N + j] += t;
                magnitude[i * N + j] += std::abs(t);
            }
    EXPECT_LE(f16_error_ratio(read_half(out), want, magnitude, K), 1.0)
        << M << "x" << K << "x" << N;
    ctx().reset();
}

INSTANTIATE_TEST_SUITE_P(Sizes, Mm,
                         ::testing::Values(MmCase{1, 1, 1}, MmCase{2, 2, 2}, MmCase{3, 5, 7},
                                           MmCase{17, 13, 29}, MmCase{31, 37, 41},
                                           MmCase{32, 32, 32}, MmCase{33, 16, 36}, MmCase{4, 8, 4},
                                           MmCase{64, 128, 96}, MmCase{100, 64, 1},
                                           MmCase{1, 300, 200}, MmCase{129, 257, 67}),
                         [](const ::testing::TestParamInfo<MmCase>& info) {
                             return std::to_string(info.param.M) + "x" +
                                    std::to_string(info.param.K) + "x" +
                                    std::to_string(info.param.N);
                         });

TEST(MmValidation, RejectsMismatchedInnerDims) {
    Tensor a = ctx().tensor(DType::f32, {2, 3});
    Tensor b = ctx().tensor(DType::f32, {4, 2});
    Tensor out = ctx().tensor(DType::f32, {2, 2});
    try {
        ctx().record(op("aten.mm.default"), {a, b, out});
        FAIL() << "expected an error";
    } catch (const InvalidArgument& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("aten.mm.default"), std::string::npos) << m;
        EXPECT_NE(m.find("[2, 3]"), std::string::npos) << m;
        EXPECT_NE(m.find("[4, 2]"), std::string::npos) << m;
    }
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test
