// sub, div (and its rounding modes), maximum/minimum, pow, fmod/remainder, the .Scalar forms,
// comparisons (bool output packed four per word) and where, against float64 references; float32 and
// float16 tensors.
#include <functional>

#include "half_test_util.h"
#include "ops/common/broadcast.h"
#include "test_util.h"

namespace wgx::test {
namespace {

using Fn2 = std::function<double(double, double)>;

std::vector<double> broadcast_ref(const Shape& sa, const std::vector<double>& a, const Shape& sb,
                                  const std::vector<double>& b, const Shape& out, const Fn2& f) {
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
        r[i] = f(a[ia], b[ib]);
    }
    return r;
}

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

// PyTorch's fmod is C's (the sign of self); its remainder is Python's % (the sign of other).
double fmod_ref(double x, double y) { return std::fmod(x, y); }
double remainder_ref(double x, double y) {
    const double r = std::fmod(x, y);
    return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

void expect_close(const std::vector<float>& got, const std::vector<double>& want, double tol,
                  const std::string& what) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i])) {
            ASSERT_TRUE(std::isnan(got[i])) << what << " at " << i;
        } else if (std::isinf(want[i])) {
            ASSERT_EQ(double(got[i]), want[i]) << what << " at " << i;
        } else {
            ASSERT_LE(std::abs(got[i] - want[i]), tol * std::max(1.0, std::abs(want[i])))
                << what << " at " << i << ": got " << got[i] << " want " << want[i];
        }
    }
}

std::vector<float> run2(const std::string& name, const Shape& sa, const std::vector<float>& a,
                        const Shape& sb, const std::vector<float>& b, std::vector<Arg> extra = {}) {
    Shape out_shape = *ops::broadcast_shapes(sa, sb);
    Tensor ta = ctx().tensor(DType::f32, sa).set_data(a);
    Tensor tb = ctx().tensor(DType::f32, sb).set_data(b);
    Tensor out = ctx().tensor(DType::f32, out_shape);
    poison(out);
    std::vector<Arg> args = {ta, tb};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(out);
    ctx().reset();
    ctx().record(op(name), args);
    ctx().submit();
    auto r = out.get_data<float>();
    ctx().reset();
    return r;
}

TEST(ArithOps, TensorFormsMatchReference) {
    const Shape sa{3, 1, 7}, sb{5, 1};
    auto a = random_floats(21, 1), b = random_floats(5, 2);
    for (auto& x : b) x += (x >= 0 ? 0.5f : -0.5f);  // keep divisors away from 0
    Shape so = *ops::broadcast_shapes(sa, sb);
    auto check = [&](const std::string& name, const Fn2& f, std::vector<Arg> extra = {},
                     double tol = 1e-6) {
        expect_close(run2(name, sa, a, sb, b, extra),
                     broadcast_ref(sa, widen(a), sb, widen(b), so, f), tol, name);
    };
    check("aten.sub.Tensor", [](double x, double y) { return x - 2.5 * y; }, {2.5});
    check("aten.div.Tensor", [](double x, double y) { return x / y; });
    check("aten.div.Tensor_mode", [](double x, double y) { return std::trunc(x / y); },
          {std::string("trunc")});
    check("aten.div.Tensor_mode", [](double x, double y) { return std::floor(x / y); },
          {std::string("floor")});
    check("aten.div.Tensor_mode", [](double x, double y) { return x / y; }, {Arg()});
    check("aten.maximum.default", [](double x, double y) { return std::max(x, y); });
    check("aten.minimum.default", [](double x, double y) { return std::min(x, y); });
    check(
        "aten.pow.Tensor_Tensor", [](double x, double y) { return std::pow(x, y); }, {}, 2e-6);
}

// float16 tensors: inputs rounded to float16 on the host, the reference in float64 on the rounded
// values. The kernels compute in f32 and round once on store, so each output is within the f32
// error of the float32 test (`err`, relative to max(1, |want|)) plus one float16 rounding
// (half_close: 2^-11 relative, 2^-24 absolute).
void expect_half_close(const std::vector<float>& got, const std::vector<double>& want, double err,
                       const std::string& what) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_TRUE(half_close(got[i], want[i], err * std::max(1.0, std::abs(want[i]))))
            << what << " float16 at " << i << ": got " << got[i] << " want " << want[i];
    }
}

std::vector<float> run_half(const std::string& name, const std::vector<Tensor>& inputs,
                            std::vector<Arg> extra, const Shape& out_shape) {
    Tensor out = half_output(out_shape);
    std::vector<Arg> args(inputs.begin(), inputs.end());
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(out);
    ctx().reset();
    ctx().record(op(name), args);
    ctx().submit();
    auto r = read_half(out);
    ctx().reset();
    return r;
}

TEST(ArithOps, Float16TensorFormsMatchReference) {
    for (auto [sa, sb] : std::vector<std::pair<Shape, Shape>>{{{3, 1, 7}, {5, 1}}, {{33}, {33}}}) {
        auto a = round_to_half(random_floats(numel(sa), 51));
        auto b = random_floats(numel(sb), 52);
        for (auto& x : b) x += (x >= 0 ? 0.5f : -0.5f);  // keep divisors away from 0
        b = round_to_half(b);
        Shape so = *ops::broadcast_shapes(sa, sb);
        Tensor ta = half_tensor(sa, a), tb = half_tensor(sb, b);
        auto check = [&](const std::string& name, const Fn2& f, std::vector<Arg> extra = {},
                         double err = 1e-6) {
            expect_half_close(run_half(name, {ta, tb}, extra, so),
                              broadcast_ref(sa, widen(a), sb, widen(b), so, f), err,
                              name + " " + shape_string(so));
        };
        check("aten.sub.Tensor", [](double x, double y) { return x - 2.5 * y; }, {2.5});
        check("aten.div.Tensor", [](double x, double y) { return x / y; });
        check("aten.div.Tensor_mode", [](double x, double y) { return std::trunc(x / y); },
              {std::string("trunc")});
        check("aten.div.Tensor_mode", [](double x, double y) { return std::floor(x / y); },
              {std::string("floor")});
        check("aten.maximum.default", [](double x, double y) { return std::max(x, y); });
        check("aten.minimum.default", [](double x, double y) { return std::min(x, y); });
        check(
            "aten.pow.Tensor_Tensor", [](double x, double y) { return std::pow(x, y); }, {}, 2e-6);
    }
}

TEST(ArithOps, Float16ScalarFormsMatchReference) {
    auto a = round_to_half(random_floats(37, 53));
    Tensor ta = half_tensor({37}, a);
    auto check = [&](const std::string& name, std::vector<Arg> extra,
                     std::function<double(double)> f) {
        std::vector<double> want;
        for (float x : a) want.push_back(f(x));
        expect_half_close(run_half(name, {ta}, extra, {37}), want, 2e-6, name);
    };
    check("aten.add.Scalar", {1.25, 2.0}, [](double x) { return x + 2.5; });
    check("aten.sub.Scalar", {1.25, int64_t(1)}, [](double x) { return x - 1.25; });
    check("aten.rsub.Scalar", {1.0, 3.0}, [](double x) { return 1.0 - 3.0 * x; });
    check("aten.mul.Scalar", {-0.3}, [](double x) { return -0.3 * x; });
    check("aten.div.Scalar", {3.0}, [](double x) { return x / 3.0; });
    check("aten.pow.Tensor_Scalar", {int64_t(3)}, [](double x) { return x * x * x; });
    check("aten.pow.Tensor_Scalar", {0.5}, [](double x) { return x < 0 ? NAN : std::sqrt(x); });
    check("aten.fmod.Scalar", {0.375}, [](double x) { return fmod_ref(x, 0.375); });
    check("aten.remainder.Scalar", {-0.375}, [](double x) { return remainder_ref(x, -0.375); });
}

TEST(ArithOps, Float16MaximumPropagatesNaN) {
    Tensor x = half_tensor({3}, {1.f, std::nanf(""), 3.f});
    Tensor y = half_tensor({3}, {std::nanf(""), 2.f, -3.f});
    auto mx = run_half("aten.maximum.default", {x, y}, {}, {3});
    auto mn = run_half("aten.minimum.default", {x, y}, {}, {3});
    EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
    EXPECT_EQ(mx[2], 3.f);
    EXPECT_TRUE(std::isnan(mn[0]) && std::isnan(mn[1]));
    EXPECT_EQ(mn[2], -3.f);
}

TEST(ArithOps, PowHandlesNegativeBasesAndZero) {
    std::vector<float> x = {-2.f, -2.f, -2.f, 0.f, 0.f, 0.f, 3.f, -1.5f};
    std::vector<float> y = {2.f, 3.f, 0.5f, 2.f, 0.f, -1.f, -2.f, 4.f};
    std::vector<double> want;
    for (size_t i = 0; i < x.size(); ++i) want.push_back(std::pow(double(x[i]), double(y[i])));
    expect_close(run2("aten.pow.Tensor_Tensor", {8}, x, {8}, y), want, 2e-6, "pow");
}

TEST(ArithOps, MaximumAndMinimumPropagateNaN) {
    std::vector<float> x = {1.f, std::nanf(""), 3.f};
    std::vector<float> y = {std::nanf(""), 2.f, -3.f};
    auto mx = run2("aten.maximum.default", {3}, x, {3}, y);
    auto mn = run2("aten.minimum.default", {3}, x, {3}, y);
    EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
    EXPECT_EQ(mx[2], 3.f);
    EXPECT_TRUE(std::isnan(mn[0]) && std::isnan(mn[1]));
    EXPECT_EQ(mn[2], -3.f);
}

TEST(ArithOps, IntegerFloorDivisionRoundsTowardMinusInfinity) {
    std::vector<int32_t> a = {7, -7, 7, -7, 6, -6, 0, 13};
    std::vector<int32_t> b = {2, 2, -2, -2, 3, 3, 5, -4};
    for (const char* mode : {"floor", "trunc"}) {
        Tensor ta = ctx().tensor(DType::i32, {8}).set_data(a);
        Tensor tb = ctx().tensor(DType::i32, {8}).set_data(b);
        Tensor out = ctx().tensor(DType::i32, {8});
        ctx().reset();
        ctx().record(op("aten.div.Tensor_mode"), {ta, tb, std::string(mode), out});
        ctx().submit();
        auto got = out.get_data<int32_t>();
        for (int i = 0; i < 8; ++i) {
            double q = double(a[i]) / b[i];
            int32_t want =
                std::string(mode) == "floor" ? int32_t(std::floor(q)) : int32_t(std::trunc(q));
            EXPECT_EQ(got[i], want) << mode << " " << a[i] << "/" << b[i];
        }
        ctx().reset();
    }
}

// |got - want| within a few float32 ulps of |x|: the result is exact when the kernel's
// quotient is, and each step of it is one rounding of a value no larger than |x|.
void expect_modulo_close(const std::vector<float>& got, const std::vector<double>& want,
                         const std::vector<double>& x, const std::string& what) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i])) {
            EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i;
        } else if (std::isinf(want[i])) {
            EXPECT_EQ(double(got[i]), want[i]) << what << " at " << i;
        } else {
            EXPECT_LE(std::abs(got[i] - want[i]), 4 * 0x1p-24 * std::max(std::abs(x[i]), 1.0))
                << what << " at " << i << ": got " << got[i] << " want " << want[i];
        }
    }
}

TEST(ArithOps, FmodAndRemainderMatchReference) {
    // Dividends up to about 120 in magnitude over divisors of 0.1 to 3 or so, either sign.
    const Shape sa = {3, 1, 7}, sb = {1, 5, 7};
    std::vector<float> a = random_floats(21, 41), b = random_floats(35, 42);
    for (float& v : a) v *= 40.f;
    for (float& v : b) v = (v < 0 ? -1.f : 1.f) * (0.1f + 1.5f * std::abs(v));
    // Exact multiples, a zero divisor and special values in the first row.
    a[0] = 6.f, b[0] = 3.f;
    a[1] = -7.5f, b[1] = 2.5f;
    a[2] = 5.f, b[2] = 0.f;
    a[3] = INFINITY, b[3] = 2.f;
    a[4] = 3.f, b[4] = INFINITY;
    a[5] = -1.f, b[5] = INFINITY;
    a[6] = NAN;
    const Shape out = {3, 5, 7};
    const auto dividend = [](double x, double) { return x; };
    for (const auto& [name, ref] : {std::pair{"aten.fmod.Tensor", &fmod_ref},
                                    std::pair{"aten.remainder.Tensor", &remainder_ref}}) {
        auto want = broadcast_ref(sa, widen(a), sb, widen(b), out, ref);
        auto xs = broadcast_ref(sa, widen(a), sb, widen(b), out, dividend);
        expect_modulo_close(run2(name, sa, a, sb, b), want, xs, name);
        // Equal shapes take the kernel's other variant.
        auto same = random_floats(35, 43);
        for (float& v : same) v *= 25.f;
        auto want_same = broadcast_ref(sb, widen(same), sb, widen(b), sb, ref);
        expect_modulo_close(run2(name, sb, same, sb, b), want_same, widen(same),
                            std::string(name) + " same shape");
    }
}

TEST(ArithOps, IntegerFmodAndRemainderTakeTheSignsOfPyTorch) {
    std::vector<int32_t> a = {7, -7, 7, -7, 6, -6, 0, 13, -13, 100, -1, 2147483647};
    std::vector<int32_t> b = {2, 2, -2, -2, 3, 3, 5, -4, 4, 7, 9, -3};
    const auto n = static_cast<int64_t>(a.size());
    for (DType dt : {DType::i32, DType::i64}) {
        for (const char* name : {"aten.fmod.Tensor", "aten.remainder.Tensor"}) {
            Tensor ta = ctx().tensor(dt, {n});
            Tensor tb = ctx().tensor(dt, {n});
            Tensor out = ctx().tensor(dt, {n});
            if (dt == DType::i32) {
                ta.set_data(a);
                tb.set_data(b);
            } else {
                ta.set_data(std::vector<int64_t>(a.begin(), a.end()));
                tb.set_data(std::vector<int64_t>(b.begin(), b.end()));
            }
            ctx().reset();
            ctx().record(op(name), {ta, tb, out});
            ctx().submit();
            std::vector<int64_t> got;
            if (dt == DType::i32) {
                for (int32_t v : out.get_data<int32_t>()) got.push_back(v);
            } else {
                got = out.get_data<int64_t>();
            }
            const bool fmod = std::string(name) == "aten.fmod.Tensor";
            for (int64_t i = 0; i < n; ++i) {
                const double want = fmod ? fmod_ref(a[i], b[i]) : remainder_ref(a[i], b[i]);
                EXPECT_EQ(double(got[i]), want) << name << " " << a[i] << ", " << b[i];
            }
            ctx().reset();
        }
    }
}

TEST(ArithOps, ScalarFormsMatchReference) {
    auto a = random_floats(37, 3);
    auto run1 = [&](const std::string& name, std::vector<Arg> extra) {
        Tensor ta = ctx().tensor(DType::f32, {37}).set_data(a);
        Tensor out = ctx().tensor(DType::f32, {37});
        poison(out);
        std::vector<Arg> args = {ta};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back(out);
        ctx().reset();
        ctx().record(op(name), args);
        ctx().submit();
        auto r = out.get_data<float>();
        ctx().reset();
        return r;
    };
    auto check = [&](const std::string& name, std::vector<Arg> extra,
                     std::function<double(double)> f) {
        std::vector<double> want;
        for (float x : a) want.push_back(f(x));
        expect_close(run1(name, extra), want, 2e-6, name);
    };
    check("aten.add.Scalar", {1.25, 2.0}, [](double x) { return x + 2.5; });
    check("aten.sub.Scalar", {1.25, int64_t(1)}, [](double x) { return x - 1.25; });
    check("aten.rsub.Scalar", {1.0, 3.0}, [](double x) { return 1.0 - 3.0 * x; });
    check("aten.mul.Scalar", {-0.5}, [](double x) { return -0.5 * x; });
    check("aten.div.Scalar", {4.0}, [](double x) { return x / 4.0; });
    check("aten.pow.Tensor_Scalar", {2.0}, [](double x) { return x * x; });
    check("aten.pow.Tensor_Scalar", {int64_t(3)}, [](double x) { return x * x * x; });
    check("aten.pow.Tensor_Scalar", {0.5}, [](double x) { return x < 0 ? NAN : std::sqrt(x); });
    check("aten.fmod.Scalar", {0.375}, [](double x) { return fmod_ref(x, 0.375); });
    check("aten.remainder.Scalar", {-0.375}, [](double x) { return remainder_ref(x, -0.375); });
}

TEST(CompareOps, BoolOutputsMatchAtEveryPackingOffset) {
    const std::vector<std::pair<std::string, std::function<bool(double, double)>>> cmps = {
        {"eq", [](double x, double y) { return x == y; }},
        {"ne", [](double x, double y) { return x != y; }},
        {"lt", [](double x, double y) { return x < y; }},
        {"le", [](double x, double y) { return x <= y; }},
        {"gt", [](double x, double y) { return x > y; }},
        {"ge", [](double x, double y) { return x >= y; }},
    };
    for (int64_t n : {1, 5, 7, 1031}) {
        auto ai = random_ints(n, 7, -3, 3);
        auto bi = random_ints(n, 8, -3, 3);
        std::vector<float> a(ai.begin(), ai.end()), b(bi.begin(), bi.end());  // many ties
        for (const auto& [cmp, f] : cmps) {
            Tensor ta = ctx().tensor(DType::f32, {n}).set_data(a);
            Tensor tb = ctx().tensor(DType::f32, {n}).set_data(b);
            Tensor out = ctx().tensor(DType::boolean, {n});
            Tensor outs = ctx().tensor(DType::boolean, {n});
            ctx().reset();
            ctx().record(op("aten." + cmp + ".Tensor"), {ta, tb, out});
            ctx().record(op("aten." + cmp + ".Scalar"), {ta, 1.0, outs});
            ctx().submit();
            auto got = out.get_data<uint8_t>();
            auto got_s = outs.get_data<uint8_t>();
            for (int64_t i = 0; i < n; ++i) {
                ASSERT_EQ(got[i], f(a[i], b[i]) ? 1 : 0) << cmp << " n=" << n << " at " << i;
                ASSERT_EQ(got_s[i], f(a[i], 1.0) ? 1 : 0)
                    << cmp << ".Scalar n=" << n << " at " << i;
            }
            ctx().reset();
        }
    }
}

// float16 operands compare exactly (every half is a float); the .Scalar forms compare with the
// scalar as a float32, like the float32 graph the float16 program was made from.
TEST(CompareOps, Float16InputsWithBroadcast) {
    const Shape sa{3, 1, 7}, sb{5, 1}, so{3, 5, 7};
    auto ai = random_ints(numel(sa), 17, -3, 3), bi = random_ints(numel(sb), 18, -3, 3);
    std::vector<float> a(ai.begin(), ai.end()), b(bi.begin(), bi.end());  // many ties
    a[0] = 0.3f;  // not a half: stored as 0.30004883, so above the scalar 0.3
    a = round_to_half(a);
    Tensor ta = half_tensor(sa, a), tb = half_tensor(sb, b);
    auto want = broadcast_ref(sa, widen(a), sb, widen(b), so,
                              [](double x, double y) { return double(x <= y); });
    Tensor out = ctx().tensor(DType::boolean, so);
    Tensor outs = ctx().tensor(DType::boolean, sa);
    Tensor outn = ctx().tensor(DType::boolean, sa);
    ctx().reset();
    ctx().record(op("aten.le.Tensor"), {ta, tb, out});
    ctx().record(op("aten.gt.Scalar"), {ta, 0.3, outs});
    ctx().record(op("aten.logical_not.default"), {ta, outn});
    ctx().submit();
    auto got = out.get_data<uint8_t>();
    for (int64_t i = 0; i < numel(so); ++i) ASSERT_EQ(got[i], want[i]) << "le at " << i;
    auto got_s = outs.get_data<uint8_t>(), got_n = outn.get_data<uint8_t>();
    for (int64_t i = 0; i < numel(sa); ++i) {
        ASSERT_EQ(got_s[i], double(a[i]) > double(0.3f) ? 1 : 0) << "gt.Scalar at " << i;
        ASSERT_EQ(got_n[i], a[i] == 0 ? 1 : 0) << "logical_not at " << i;
    }
    ctx().reset();
}

TEST(CompareOps, BroadcastAndIntegers) {
    auto a = random_ints(15, 11, -5, 5);
    auto b = random_ints(5, 12, -5, 5);
    Tensor ta = ctx().tensor(DType::i32, {3, 5}).set_data(a);
    Tensor tb = ctx().tensor(DType::i32, {5}).set_data(b);
    Tensor out = ctx().tensor(DType::boolean, {3, 5});
    ctx().reset();
    ctx().record(op("aten.lt.Tensor"), {ta, tb, out});
    ctx().submit();
    auto got = out.get_data<uint8_t>();
    for (int i = 0; i < 15; ++i) ASSERT_EQ(got[i], a[i] < b[i % 5] ? 1 : 0) << i;
    ctx().reset();
}

TEST(WhereOp, SelectsWithThreeWayBroadcast) {
    const Shape sc{4, 1}, sa{1, 6}, sb{4, 6};
    std::vector<uint8_t> c = {1, 0, 0, 1};
    auto a = random_floats(6, 21), b = random_floats(24, 22);
    Tensor tc = ctx().tensor(DType::boolean, sc).set_data(c);
    Tensor ta = ctx().tensor(DType::f32, sa).set_data(a);
    Tensor tb = ctx().tensor(DType::f32, sb).set_data(b);
    Tensor out = ctx().tensor(DType::f32, {4, 6});
    poison(out);
    ctx().reset();
    ctx().record(op("aten.where.self"), {tc, ta, tb, out});
    ctx().submit();
    auto got = out.get_data<float>();
    for (int r = 0; r < 4; ++r)
        for (int k = 0; k < 6; ++k)
            ASSERT_EQ(got[r * 6 + k], c[r] ? a[k] : b[r * 6 + k]) << r << "," << k;
    ctx().reset();
}

TEST(WhereOp, Float16SelectsWithThreeWayBroadcast) {
    const Shape sc{4, 1}, sa{1, 7}, sb{4, 7};
    std::vector<uint8_t> c = {1, 0, 0, 1};
    auto a = round_to_half(random_floats(7, 23)), b = round_to_half(random_floats(28, 24));
    Tensor tc = ctx().tensor(DType::boolean, sc).set_data(c);
    Tensor ta = half_tensor(sa, a), tb = half_tensor(sb, b);
    Tensor out = half_output({4, 7});
    ctx().reset();
    ctx().record(op("aten.where.self"), {tc, ta, tb, out});
    ctx().submit();
    auto got = read_half(out);
    for (int r = 0; r < 4; ++r)
        for (int k = 0; k < 7; ++k)
            ASSERT_EQ(got[r * 7 + k], c[r] ? a[k] : b[r * 7 + k]) << r << "," << k;
    ctx().reset();
}

TEST(ArithOps, ErrorsNameTheOp) {
    Tensor f = ctx().tensor(DType::f32, {4});
    Tensor i = ctx().tensor(DType::i32, {4});
    Tensor bad = ctx().tensor(DType::f32, {4});
    EXPECT_THROW(ctx().record(op("aten.div.Tensor"), {i, i, i}), InvalidArgument);
    EXPECT_THROW(ctx().record(op("aten.lt.Tensor"), {f, f, bad}), InvalidArgument);
    EXPECT_THROW(ctx().record(op("aten.div.Tensor_mode"), {f, f, std::string("round"), f}),
                 InvalidArgument);
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test
