// aten.add.Tensor and aten.mul.Tensor against a float64 reference: sizes 1, odd and prime,
// broadcasting in every position, integer dtypes, float16 (with the fused gates), and a grid
// large enough to fold.
#include <algorithm>
#include <cmath>
#include <string_view>

#include "half_test_util.h"
#include "ops/common/broadcast.h"
#include "test_util.h"

namespace wgx::test {
namespace {

struct Case {
    Shape a, b;
};

// Reference: out[i] = f(a[ia], b[ib]) in float64 with NumPy broadcasting.
template <typename F>
std::vector<double> reference(const Shape& sa, const std::vector<float>& a, const Shape& sb,
                              const std::vector<float>& b, const Shape& out, F f) {
    auto stra = ops::broadcast_strides(sa, out);
    auto strb = ops::broadcast_strides(sb, out);
    auto sizes = ops::padded_sizes(out);
    std::vector<double> r(numel(out));
    for (size_t i = 0; i < r.size(); ++i) {
        size_t rest = i, ia = 0, ib = 0;
        for (int d = kMaxRank - 1; d >= 0; --d) {
            size_t coord = rest % sizes[d];
            rest /= sizes[d];
            ia += coord * stra[d];
            ib += coord * strb[d];
        }
        r[i] = f(double(a[ia]), double(b[ib]));
    }
    return r;
}

const std::vector<Case>& cases() {
    static const std::vector<Case> c = {
        {{1}, {1}},
        {{7}, {7}},
        {{13, 17}, {13, 17}},
        {{2, 3}, {1, 3}},           // the seed's example shape
        {{5, 1}, {1, 11}},          // both sides broadcast
        {{3, 1, 7}, {4, 1}},        // rank mismatch
        {{1}, {2, 3, 5}},           // scalar-like left operand
        {{2, 3, 5, 7}, {3, 1, 1}},  // broadcast in the middle
        {{1, 3, 1, 5}, {2, 1, 4, 1}},
        {{2, 1, 2, 1, 2, 1, 2, 3}, {1, 2, 1, 2, 1, 2, 1, 3}},  // rank 8
        {{257}, {1}},
        {{31, 29}, {29}},
        {{1, 6, 5, 4}, {1, 6, 1, 1}},  // a squeeze-excitation scale: dims merge to [6, 20]
        {{4, 5, 6}, {1, 5, 6}},        // b repeats: [4, 30]
        {{3, 4, 5, 2}, {3, 1, 5, 2}},  // broadcast inside: nothing merges across it
    };
    return c;
}

// coalesce_dims keeps every operand's element for every flat output index, merges what is
// contiguous, and leaves broadcast boundaries alone.
TEST(Broadcast, CoalescedDimsAddressTheSameElements) {
    for (const Case& c : cases()) {
        const Shape out = *ops::broadcast_shapes(c.a, c.b);
        auto sizes = ops::padded_sizes(out);
        auto sa = ops::broadcast_strides(c.a, out), sb = ops::broadcast_strides(c.b, out);
        auto csizes = sizes;
        auto csa = sa, csb = sb;
        const size_t rank = ops::coalesce_dims(csizes, {&csa, &csb});
        ASSERT_GE(rank, 1u);
        for (size_t d = 0; d + rank < kMaxRank; ++d) EXPECT_EQ(csizes[d], 1u);
        auto index = [](size_t i, const auto& sz, const auto& st) {
            size_t at = 0;
            for (int d = kMaxRank - 1; d >= 0; --d) {
                at += (i % sz[d]) * st[d];
                i /= sz[d];
            }
            return at;
        };
        for (int64_t i = 0; i < numel(out); ++i) {
            ASSERT_EQ(index(i, sizes, sa), index(i, csizes, csa)) << shape_string(out) << " " << i;
            ASSERT_EQ(index(i, sizes, sb), index(i, csizes, csb)) << shape_string(out) << " " << i;
        }
    }
    // The squeeze-excitation scale merges to [6, 20]; equal shapes to one dim.
    auto sizes = ops::padded_sizes({1, 6, 5, 4});
    auto sa = ops::broadcast_strides({1, 6, 5, 4}, {1, 6, 5, 4});
    auto sb = ops::broadcast_strides({1, 6, 1, 1}, {1, 6, 5, 4});
    EXPECT_EQ(ops::coalesce_dims(sizes, {&sa, &sb}), 2u);
    EXPECT_EQ(sizes[kMaxRank - 1], 20u);
    EXPECT_EQ(sizes[kMaxRank - 2], 6u);
    EXPECT_EQ(sb[kMaxRank - 1], 0u);
    EXPECT_EQ(sb[kMaxRank - 2], 1u);
    auto same = ops::padded_sizes({2, 3, 4});
    auto s1 = ops::broadcast_strides({2, 3, 4}, {2, 3, 4});
    EXPECT_EQ(ops::coalesce_dims(same, {&s1}), 1u);
    EXPECT_EQ(same[kMaxRank - 1], 24u);
}

class BinaryOps : public ::testing::TestWithParam<Case> {};

TEST_P(BinaryOps, AddWithAlphaMatchesFloat64Reference) {
    const Case& c = GetParam();
    auto out_shape = *ops::broadcast_shapes(c.a, c.b);
    auto a = random_floats(numel(c.a), 11);
    auto b = random_floats(numel(c.b), 12);
    Tensor ta = ctx().tensor(DType::f32, c.a).set_data(a);
    Tensor tb = ctx().tensor(DType::f32, c.b).set_data(b);
    Tensor out = ctx().tensor(DType::f32, out_shape);
    poison(out);
    ctx().reset();
    ctx().record(op("aten.add.Tensor"), {ta, tb, -0.75, out});
    ctx().submit();
    auto want =
        reference(c.a, a, c.b, b, out_shape, [](double x, double y) { return x - 0.75 * y; });
    EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-6);
    ctx().reset();
}

TEST_P(BinaryOps, MulMatchesFloat64Reference) {
    const Case& c = GetParam();
    auto out_shape = *ops::broadcast_shapes(c.a, c.b);
    auto a = random_floats(numel(c.a), 21);
    auto b = random_floats(numel(c.b), 22);
    Tensor ta = ctx().tensor(DType::f32, c.a).set_data(a);
    Tensor tb = ctx().tensor(DType::f32, c.b).set_data(b);
    Tensor out = ctx().tensor(DType::f32, out_shape);
    poison(out);
    ctx().reset();
    ctx().record(op("aten.mul.Tensor"), {ta, tb, out});
    ctx().submit();
    auto want = reference(c.a, a, c.b, b, out_shape, [](double x, double y) { return x * y; });
    EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-6);
    ctx().reset();
}

// The fusion pass's gates: self * sigmoid(gate) and self * hardsigmoid(gate), broadcasting.
// Gate values span [-8, 8] so both the sigmoid's tails and hardsigmoid's clamps are reached.
TEST_P(BinaryOps, GatesMatchFloat64Reference) {
    const Case& c = GetParam();
    auto out_shape = *ops::broadcast_shapes(c.a, c.b);
    auto a = random_floats(numel(c.a), 31);
    auto b = random_floats(numel(c.b), 32);
    for (float& v : b) v *= 8.0f;
    Tensor ta = ctx().tensor(DType::f32, c.a).set_data(a);
    Tensor tb = ctx().tensor(DType::f32, c.b).set_data(b);
    for (const char* name : {"wgx.mul_sigmoid.default", "wgx.mul_hardsigmoid.default"}) {
        const bool sig = std::string_view(name) == "wgx.mul_sigmoid.default";
        Tensor out = ctx().tensor(DType::f32, out_shape);
        poison(out);
        ctx().reset();
        ctx().record(op(name), {ta, tb, out});
        ctx().submit();
        auto want = reference(c.a, a, c.b, b, out_shape, [&](double x, double y) {
            return x * (sig ? 1.0 / (1.0 + std::exp(-y)) : std::clamp(y + 3.0, 0.0, 6.0) / 6.0);
        });
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-6) << name;
        ctx().reset();
    }
}

// Float16 tensors: inputs rounded to float16 on the host, the reference in float64 on the rounded
// values. The kernels compute in f32 and round once on store, so each output is within the f32
// error (below 1e-6 absolute for these operands of magnitude < 10, and 1e-6 relative for the
// sigmoid) of exact, plus one float16 rounding (half_close: 2^-11 relative, 2^-24 absolute).
TEST_P(BinaryOps, Float16MatchesFloat64Reference) {
    const Case& c = GetParam();
    auto out_shape = *ops::broadcast_shapes(c.a, c.b);
    auto a = round_to_half(random_floats(numel(c.a), 41));
    auto b = random_floats(numel(c.b), 42);
    for (float& v : b) v *= 4.0f;  // gates reach the sigmoid's tails and hardsigmoid's clamps
    b = round_to_half(b);
    Tensor ta = half_tensor(c.a, a);
    Tensor tb = half_tensor(c.b, b);
    struct Check {
        const char* name;
        std::vector<Arg> extra;
        double (*ref)(double, double);
    };
    const Check checks[] = {
        {"aten.add.Tensor", {-0.75}, [](double x, double y) { return x - 0.75 * y; }},
        {"aten.mul.Tensor", {}, [](double x, double y) { return x * y; }},
        {"wgx.mul_sigmoid.default",
         {},
         [](double x, double y) { return x / (1.0 + std::exp(-y)); }},
        {"wgx.mul_hardsigmoid.default",
         {},
         [](double x, double y) { return x * std::clamp(y + 3.0, 0.0, 6.0) / 6.0; }},
    };
    for (const Check& k : checks) {
        Tensor out = half_output(out_shape);
        std::vector<Arg> args = {ta, tb};
        args.insert(args.end(), k.extra.begin(), k.extra.end());
        args.push_back(out);
        ctx().reset();
        ctx().record(op(k.name), args);
        ctx().submit();
        auto got = read_half(out);
        auto want = reference(c.a, a, c.b, b, out_shape, k.ref);
        for (size_t i = 0; i < want.size(); ++i) {
            ASSERT_TRUE(half_close(got[i], want[i], 1e-6 * (1 + std::abs(want[i]))))
                << k.name << " at " << i << ": got " << got[i] << " want " << want[i];
        }
        ctx().reset();
    }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    auto dims = [](const Shape& s) {
        std::string r;
        for (auto d : s) r += (r.empty() ? "" : "x") + std::to_string(d);
        return r;
    };
    return dims(info.param.a) + "_by_" + dims(info.param.b);
}

INSTANTIATE_TEST_SUITE_P(Shapes, BinaryOps, ::testing::ValuesIn(cases()), case_name);

TEST(BinaryOps, AddWithoutAlphaDefaultsToOne) {
    Tensor a = ctx().tensor(DType::f32, {3}).set_data({1.f, 2.f, 3.f});
    Tensor b = ctx().tensor(DType::f32, {3}).set_data({0.5f, 0.25f, 0.125f});
    Tensor out = ctx().tensor(DType::f32, {3});
    ctx().reset();
    ctx().record(op("aten.add.Tensor"), {a, b, out});
    ctx().submit();
    EXPECT_EQ(out.get_data<float>(), (std::vector<float>{1.5f, 2.25f, 3.125f}));
    ctx().reset();
}

TEST(BinaryOps, IntegerAddAndMulAreExact) {
    for (DType dt : {DType::i32, DType::i64}) {
        auto a = random_ints(35, 5, -1000, 1000);
        auto b = random_ints(7, 6, -1000, 1000);
        Tensor ta = ctx().tensor(dt, {5, 7});
        Tensor tb = ctx().tensor(dt, {7});
        if (dt == DType::i32) {
            ta.set_data(a);
            tb.set_data(b);
        } else {
            ta.set_data(std::vector<int64_t>(a.begin(), a.end()));
            tb.set_data(std::vector<int64_t>(b.begin(), b.end()));
        }
        Tensor sum = ctx().tensor(dt, {5, 7});
        Tensor prod = ctx().tensor(dt, {5, 7});
        ctx().reset();
        ctx().record(op("aten.add.Tensor"), {ta, tb, int64_t(3), sum});
        ctx().record(op("aten.mul.Tensor"), {ta, tb, prod});
        ctx().submit();
        std::vector<int64_t> s, p;
        if (dt == DType::i32) {
            for (int32_t v : sum.get_data<int32_t>()) s.push_back(v);
            for (int32_t v : prod.get_data<int32_t>()) p.push_back(v);
        } else {
            s = sum.get_data<int64_t>();
            p = prod.get_data<int64_t>();
        }
        for (int i = 0; i < 35; ++i) {
            ASSERT_EQ(s[i], a[i] + 3 * b[i % 7]) << dtype_name(dt) << " at " << i;
            ASSERT_EQ(p[i], a[i] * b[i % 7]) << dtype_name(dt) << " at " << i;
        }
        ctx().reset();
    }
}

TEST(BinaryOps, GridLargeEnoughToFold) {
    // More elements than 65,535 workgroups of 256 threads cover, so the grid folds into 2-D.
    const int64_t n = 65535ll * 256 + 4099;
    auto a = random_floats(n, 31);
    auto b = random_floats(1, 32);
    Tensor ta = ctx().tensor(DType::f32, {n}).set_data(a);
    Tensor tb = ctx().tensor(DType::f32, {1}).set_data(b);
    Tensor out = ctx().tensor(DType::f32, {n});
    poison(out);
    ctx().reset();
    ctx().record(op("aten.mul.Tensor"), {ta, tb, out});
    ctx().submit();
    auto got = out.get_data<float>();
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
        double want = double(a[i]) * double(b[0]);
        worst = std::max(worst, std::abs(got[i] - want));
        if (!(std::abs(got[i] - want) <= 1e-5 * std::max(1.0, std::abs(want)))) {
            FAIL() << "element " << i << ": got " << got[i] << ", want " << want;
        }
    }
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test
