// Elementwise unary ops against float64 references: odd and prime sizes, large-magnitude inputs
// (WGSL's exp/tanh overflow traps), int32 where supported, float16 (computed in f32, stored
// rounded). Tolerances are per op (atol + rtol).
#include <functional>

#include "half_test_util.h"
#include "test_util.h"

namespace wgx::test {
namespace {

struct UnaryCase {
    std::string op;
    std::function<double(double)> ref;
    double atol = 1e-6, rtol = 1e-6;
    enum Domain { any, positive, above_minus_one } domain = any;
    std::vector<Arg> extra;  // scalars between self and out
};

double gelu_exact(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) {
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

std::vector<UnaryCase> cases() {
    using D = UnaryCase::Domain;
    return {
        {"aten.relu.default", [](double x) { return std::max(x, 0.0); }},
        {"aten.sigmoid.default", sigmoid},
        {"aten.tanh.default", [](double x) { return std::tanh(x); }, 2e-6, 2e-6},
        {"aten.silu.default", [](double x) { return x * sigmoid(x); }},
        {"aten.hardswish.default", [](double x) { return x * std::clamp(x + 3, 0.0, 6.0) / 6; }},
        {"aten.hardsigmoid.default", [](double x) { return std::clamp(x + 3, 0.0, 6.0) / 6; }},
        {"aten.exp.default", [](double x) { return std::exp(x); }, 1e-6, 2e-6},
        {"aten.log.default", [](double x) { return std::log(x); }, 2e-6, 1e-6, D::positive},
        {"aten.log1p.default", [](double x) { return std::log1p(x); }, 1e-6, 2e-6,
         D::above_minus_one},
        {"aten.sqrt.default", [](double x) { return std::sqrt(x); }, 1e-6, 1e-6, D::positive},
        {"aten.rsqrt.default", [](double x) { return 1 / std::sqrt(x); }, 1e-6, 4e-6, D::positive},
        {"aten.neg.default", [](double x) { return -x; }},
        {"aten.abs.default", [](double x) { return std::abs(x); }},
        {"aten.sin.default", [](double x) { return std::sin(x); }, 2e-6},
        {"aten.cos.default", [](double x) { return std::cos(x); }, 2e-6},
        {"aten.erf.default", [](double x) { return std::erf(x); }, 2e-7},
        {"aten.reciprocal.default", [](double x) { return 1 / x; }, 1e-6, 2e-6, D::positive},
        {"aten.floor.default", [](double x) { return std::floor(x); }},
        {"aten.ceil.default", [](double x) { return std::ceil(x); }},
        {"aten.round.default", [](double x) { return std::nearbyint(x); }},
        {"aten.trunc.default", [](double x) { return std::trunc(x); }},
        {"aten.sign.default", [](double x) { return double((x > 0) - (x < 0)); }},
        {"aten.gelu.default", gelu_exact, 1e-6, 1e-6, D::any, {std::string("none")}},
        {"aten.gelu.default", gelu_tanh, 2e-6, 2e-6, D::any, {std::string("tanh")}},
        {"aten.hardtanh.default",
         [](double x) { return std::clamp(x, 0.0, 6.0); },
         1e-6,
         1e-6,
         D::any,
         {0.0, 6.0}},
        {"aten.clamp.default",
         [](double x) { return std::clamp(x, -0.5, 0.25); },
         1e-6,
         1e-6,
         D::any,
         {-0.5, 0.25}},
        {"aten.clamp.default",
         [](double x) { return std::max(x, -0.5); },
         1e-6,
         1e-6,
         D::any,
         {-0.5, Arg()}},
        {"aten.leaky_relu.default",
         [](double x) { return x > 0 ? x : 0.2 * x; },
         1e-6,
         1e-6,
         D::any,
         {0.2}},
    };
}

void check(const UnaryCase& c, const std::vector<float>& input, const std::string& what) {
    const int64_t n = static_cast<int64_t>(input.size());
    Tensor x = ctx().tensor(DType::f32, {n}).set_data(input);
    Tensor out = ctx().tensor(DType::f32, {n});
    poison(out);
    std::vector<Arg> args = {x};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    args.push_back(out);
    ctx().reset();
    ctx().record(op(c.op), args);
    ctx().submit();
    auto got = out.get_data<float>();
    for (int64_t i = 0; i < n; ++i) {
        double want = c.ref(double(input[i]));
        if (std::isinf(want)) {
            ASSERT_EQ(got[i], float(want)) << c.op << " " << what << " x=" << input[i];
            continue;
        }
        ASSERT_TRUE(std::isfinite(got[i])) << c.op << " " << what << " x=" << input[i];
        ASSERT_LE(std::abs(got[i] - want), c.atol + c.rtol * std::abs(want))
            << c.op << " " << what << " x=" << input[i] << " got " << got[i] << " want " << want;
    }
    ctx().reset();
}

// The same op on float16 tensors: `input` is rounded to float16 first and the reference is taken
// on the rounded values, so the only errors are the op's f32 error (the case's atol + rtol) and
// one rounding of the result to float16 (2^-11 relative, 2^-24 absolute near zero): half_close.
void check_half(const UnaryCase& c, const std::vector<float>& input, const std::string& what) {
    const int64_t n = static_cast<int64_t>(input.size());
    const std::vector<float> rounded = round_to_half(input);
    Tensor x = half_tensor({n}, rounded);
    Tensor out = half_output({n});
    std::vector<Arg> args = {x};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    args.push_back(out);
    ctx().reset();
    ctx().record(op(c.op), args);
    ctx().submit();
    auto got = read_half(out);
    for (int64_t i = 0; i < n; ++i) {
        double want = c.ref(double(rounded[i]));
        ASSERT_TRUE(half_close(got[i], want, c.atol + c.rtol * std::abs(want)))
            << c.op << " float16 " << what << " x=" << rounded[i] << " got " << got[i] << " want "
            << want;
    }
    ctx().reset();
}

TEST(UnaryOps, MatchFloat64ReferenceOnRandomInputs) {
    for (const UnaryCase& c : cases()) {
        for (int64_t n : {1, 7, 1031}) {
            auto v = random_floats(n, 100 + n);
            if (c.domain == UnaryCase::positive) {
                for (auto& x : v) x = std::abs(x) + 0.01f;
            } else if (c.domain == UnaryCase::above_minus_one) {
                // From just above -1 to e^6 - 1, many near 0.
                for (auto& x : v) x = std::exp(2.0f * x) - 1.0f;
            } else {
                for (auto& x : v) x *= 3.0f;
            }
            check(c, v, "n=" + std::to_string(n));
        }
    }
}

TEST(UnaryOps, LargeMagnitudesStayFinite) {
    std::vector<float> big = {-1e4f, -300.f, -89.f, -20.f, 20.f, 80.f, 300.f, 1e4f};
    for (const UnaryCase& c : cases()) {
        if (c.domain != UnaryCase::any || c.op == "aten.exp.default" ||
            c.op == "aten.sin.default" || c.op == "aten.cos.default") {
            continue;
        }
        check(c, big, "large inputs");
    }
    // exp saturates to +inf like PyTorch rather than producing NaN.
    check(cases()[6], {-200.f, -50.f, 50.f, 88.f}, "exp range");
}

TEST(UnaryOps, Float16MatchesFloat64Reference) {
    for (const UnaryCase& c : cases()) {
        for (int64_t n : {7, 1031}) {
            auto v = random_floats(n, 200 + n);
            if (c.domain == UnaryCase::positive) {
                for (auto& x : v) x = std::abs(x) + 0.01f;
            } else if (c.domain == UnaryCase::above_minus_one) {
                // From just above -1 to e^6 - 1, many near 0.
                for (auto& x : v) x = std::exp(2.0f * x) - 1.0f;
            } else {
                for (auto& x : v) x *= 3.0f;
            }
            check_half(c, v, "n=" + std::to_string(n));
        }
    }
}

// Large float16 inputs: still finite where the result is, and exp beyond the float16 range
// becomes +inf as in PyTorch (exp(12) = 162755 > 65504).
TEST(UnaryOps, Float16LargeMagnitudes) {
    std::vector<float> big = {-1e4f, -300.f, -89.f, -20.f, 20.f, 80.f, 300.f, 1e4f};
    for (const UnaryCase& c : cases()) {
        if (c.domain != UnaryCase::any || c.op == "aten.sin.default" ||
            c.op == "aten.cos.default") {
            continue;
        }
        check_half(c, big, "large inputs");
    }
    check_half(cases()[6], {-20.f, 5.f, 11.f, 12.f}, "exp range");
}

// log1p near 0, where log(1 + x) in float32 would keep few or none of x's digits (1 + 1e-8 is
// 1): relative error within a few float32 roundings; and its edges, -1 giving -inf and huge x.
TEST(UnaryOps, Log1pKeepsSmallArguments) {
    const std::vector<float> xs = {1e-10f, -3e-9f, 4.7e-8f, -6.1e-8f, 1.3e-7f, 2e-6f,
                                   -5e-5f, 3e-4f,  -0.01f,  0.7f,     -0.999f, 3e7f};
    Tensor x = ctx().tensor(DType::f32, {int64_t(xs.size())}).set_data(xs);
    Tensor out = ctx().tensor(DType::f32, {int64_t(xs.size())});
    poison(out);
    ctx().reset();
    ctx().record(op("aten.log1p.default"), {x, out});
    ctx().submit();
    const auto got = out.get_data<float>();
    for (size_t i = 0; i < xs.size(); ++i) {
        const double want = std::log1p(double(xs[i]));
        EXPECT_LE(std::abs(got[i] - want), 4e-7 * std::abs(want)) << "x=" << xs[i];
    }
    check(cases()[8], {-1.f, 1e30f, 3e38f}, "edges");
    ctx().reset();
}

TEST(UnaryOps, IntegerReluNegAbsAreExact) {
    auto ints = random_ints(37, 9, -1000, 1000);
    for (const char* name : {"aten.relu.default", "aten.neg.default", "aten.abs.default"}) {
        Tensor x = ctx().tensor(DType::i32, {37}).set_data(ints);
        Tensor out = ctx().tensor(DType::i32, {37});
        ctx().reset();
        ctx().record(op(name), {x, out});
        ctx().submit();
        auto got = out.get_data<int32_t>();
        for (int i = 0; i < 37; ++i) {
            int32_t want = std::string(name) == "aten.relu.default"  ? std::max(ints[i], 0)
                           : std::string(name) == "aten.neg.default" ? -ints[i]
                                                                     : std::abs(ints[i]);
            ASSERT_EQ(got[i], want) << name << " at " << i;
        }
        ctx().reset();
    }
}

TEST(UnaryOps, FloatOnlyOpsRejectIntegers) {
    Tensor x = ctx().tensor(DType::i32, {4});
    EXPECT_THROW(ctx().record(op("aten.sigmoid.default"), {x, x}), InvalidArgument);
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test
