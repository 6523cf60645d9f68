// native_layer_norm, native_group_norm and _native_batch_norm_legit_no_training against float64
// references written here: ranks 1..5, sizes 1, odd and prime, several eps, absent weight and
// bias, absent statistics outputs, rows short and long (workgroups of every width). Layer and
// group norm run on both workgroup-reduction paths (subgroup operations and the
// workgroup-memory fallback).
// Tolerance: max_rel_error <= 1e-5 for out, mean and rstd (two-pass float32 statistics).
// float16 (every tensor float16): inputs, weights and statistics are rounded to float16 on the
// host and the float64 reference uses the rounded values; the kernels compute in float32 and
// round each output once, so the error is at most half a float16 ulp of the value (2^-11
// relative) plus the float32 error: kHalfTol.
#include <cmath>

#include "base/half.h"
#include "half_test_util.h"
#include "reduction_paths.h"
#include "test_util.h"

namespace wgx::test {
namespace {

// Inputs with an offset and scale, so the mean matters and var is not ~1.
std::vector<float> inputs(size_t n, uint32_t seed, float offset = 0.75f, float scale = 2.5f) {
    auto v = random_floats(n, seed);
    for (float& x : v) x = offset + scale * x;
    return v;
}

Tensor out_tensor(const Shape& s, DType dtype = DType::f32) {
    Tensor t = ctx().tensor(dtype, s);
    if (dtype == DType::f16) {
        t.set_data(std::vector<uint16_t>(t.numel(), 0x7e00));  // NaN
    } else {
        poison(t);
    }
    return t;
}

constexpr double kHalfTol = 0x1p-11 + 1e-5;

double tolerance(DType dtype) { return dtype == DType::f16 ? kHalfTol : 1e-5; }

// v rounded to float16 (kept as floats: every float16 is a float) when dtype is float16.
std::vector<float> representable(std::vector<float> v, DType dtype) {
    if (dtype == DType::f16) {
        for (float& x : v) x = half_to_float(float_to_half(x));
    }
    return v;
}

// A tensor of `dtype` holding v (already representable).
Tensor tensor_of(DType dtype, const Shape& s, const std::vector<float>& v) {
    Tensor t = ctx().tensor(dtype, s);
    if (dtype == DType::f16) {
        std::vector<uint16_t> h;
        for (float x : v) h.push_back(float_to_half(x));
        t.set_data(h);
    } else {
        t.set_data(v);
    }
    return t;
}

std::vector<float> floats_of(const Tensor& t) {
    if (t.dtype() != DType::f16) return t.get_data<float>();
    std::vector<float> v;
    for (uint16_t h : t.get_data<uint16_t>()) v.push_back(half_to_float(h));
    return v;
}

struct Stats {
    std::vector<double> out, mean, rstd;
};

// Normalises rows of `len` elements; the affine index of element k of row r is
// (r % groups) * per_group + k / hw.
Stats norm_ref(const std::vector<float>& x, int64_t len, const std::vector<float>* w,
               const std::vector<float>* b, double eps, int64_t groups, int64_t per_group,
               int64_t hw) {
    Stats s;
    int64_t rows = int64_t(x.size()) / len;
    s.out.resize(x.size());
    for (int64_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (int64_t k = 0; k < len; ++k) mean += x[r * len + k];
        mean /= double(len);
        for (int64_t k = 0; k < len; ++k) var += (x[r * len + k] - mean) * (x[r * len + k] - mean);
        var /= double(len);
        double rstd = 1 / std::sqrt(var + eps);
        s.mean.push_back(mean);
        s.rstd.push_back(rstd);
        for (int64_t k = 0; k < len; ++k) {
            int64_t c = (r % groups) * per_group + k / hw;
            double y = (x[r * len + k] - mean) * rstd;
            if (w) y *= (*w)[c];
            if (b) y += (*b)[c];
            s.out[r * len + k] = y;
        }
    }
    return s;
}

void check_layer_norm(DType dtype, const std::string& path) {
    struct Case {
        Shape shape;
        size_t k;  // normalized dims
        double eps;
        bool weight, bias;
    };
    std::vector<Case> cases = {
        {{1}, 1, 1e-5, true, true},
        {{13}, 1, 1e-5, true, true},
        {{7, 1}, 1, 1e-3, true, true},      // one element per row: out = bias
        {{5, 768}, 1, 1e-5, true, true},    // transformer hidden size
        {{3, 4099}, 1, 1e-6, false, true},  // long prime rows; no weight
        {{2, 3, 17}, 2, 1e-5, true, false},
        {{2, 3, 5, 7}, 3, 0.1, false, false},
        {{2, 1, 3, 5, 11}, 2, 1e-5, true, true},
        {{4, 37}, 1, 1e-5, true, true},  // rows shorter than the workgroup
    };
    for (const Case& c : cases) {
        Shape norm(c.shape.end() - int64_t(c.k), c.shape.end());
        Shape stats = c.shape;
        for (size_t i = c.shape.size() - c.k; i < c.shape.size(); ++i) stats[i] = 1;
        auto x = representable(inputs(numel(c.shape), 1), dtype);
        auto w = representable(random_floats(numel(norm), 2), dtype);
        auto b = representable(random_floats(numel(norm), 3), dtype);
        Tensor tx = tensor_of(dtype, c.shape, x);
        Arg tw = c.weight ? Arg(tensor_of(dtype, norm, w)) : Arg();
        Arg tb = c.bias ? Arg(tensor_of(dtype, norm, b)) : Arg();
        Tensor out = out_tensor(c.shape, dtype), mean = out_tensor(stats, dtype),
               rstd = out_tensor(stats, dtype);
        ctx().reset();
        ctx().record(op("aten.native_layer_norm.default"),
                     {tx, norm, tw, tb, c.eps, Arg::TensorList{out, mean, rstd}});
        ctx().submit();
        Stats want = norm_ref(x, numel(norm), c.weight ? &w : nullptr, c.bias ? &b : nullptr, c.eps,
                              1, 0, 1);
        std::string what = std::string(dtype_name(dtype)) + " " + path + " " +
                           std::to_string(c.shape.size()) + "-D last " + std::to_string(c.k);
        double tol = tolerance(dtype);
        EXPECT_LE(max_rel_error(floats_of(out), want.out), tol) << what;
        EXPECT_LE(max_rel_error(floats_of(mean), want.mean), tol) << what;
        EXPECT_LE(max_rel_error(floats_of(rstd), want.rstd), tol) << what;
    }
    ctx().reset();
}

TEST(NormOps, LayerNormOverTrailingDims) {
    on_both_reduction_paths([](const std::string& path) { check_layer_norm(DType::f32, path); });
}

TEST(NormOps, Float16LayerNormComputesInFloat32) {
    WGX_SKIP_WITHOUT_F16();
    on_both_reduction_paths([](const std::string& path) { check_layer_norm(DType::f16, path); });
}

TEST(NormOps, LayerNormWithAbsentStatistics) {
    auto x = inputs(6 * 10, 4);
    Tensor tx = ctx().tensor(DType::f32, {6, 10}).set_data(x);
    Tensor out = out_tensor({6, 10});
    Tensor rstd = out_tensor({6, 1});
    ctx().reset();
    ctx().record(op("aten.native_layer_norm.default"),
                 {tx, std::vector<int64_t>{10}, Arg(), Arg(), 1e-5,
                  Arg::TensorList{out, std::nullopt, rstd}});
    ctx().submit();
    Stats want = norm_ref(x, 10, nullptr, nullptr, 1e-5, 1, 0, 1);
    EXPECT_LE(max_rel_error(out.get_data<float>(), want.out), 1e-5);
    EXPECT_LE(max_rel_error(rstd.get_data<float>(), want.rstd), 1e-5);
    ctx().reset();
}

void check_group_norm(DType dtype, const std::string& path) {
    struct Case {
        Shape shape;
        int64_t groups;
        double eps;
        bool weight, bias;
    };
    std::vector<Case> cases = {
        {{1, 1}, 1, 1e-5, true, true},
        {{2, 6, 5, 7}, 3, 1e-5, true, true},
        {{3, 4, 13}, 4, 1e-3, true, false},  // one channel per group
        {{1, 32, 9, 9}, 8, 1e-5, false, true},
        {{2, 5, 1, 3, 2}, 1, 1e-6, false, false},  // rank 5, one group
        {{2, 10, 257}, 5, 1e-5, true, true},
    };
    for (const Case& c : cases) {
        int64_t N = c.shape[0], C = c.shape[1], HxW = numel(c.shape) / (N * C);
        auto x = representable(inputs(numel(c.shape), 5), dtype);
        auto w = representable(random_floats(C, 6), dtype);
        auto b = representable(random_floats(C, 7), dtype);
        Tensor tx = tensor_of(dtype, c.shape, x);
        Arg tw = c.weight ? Arg(tensor_of(dtype, {C}, w)) : Arg();
        Arg tb = c.bias ? Arg(tensor_of(dtype, {C}, b)) : Arg();
        Tensor out = out_tensor(c.shape, dtype);
        Tensor mean = out_tensor({N, c.groups}, dtype), rstd = out_tensor({N, c.groups}, dtype);
        ctx().reset();
        ctx().record(op("aten.native_group_norm.default"),
                     {tx, tw, tb, N, C, HxW, c.groups, c.eps, Arg::TensorList{out, mean, rstd}});
        ctx().submit();
        Stats want = norm_ref(x, C / c.groups * HxW, c.weight ? &w : nullptr, c.bias ? &b : nullptr,
                              c.eps, c.groups, C / c.groups, HxW);
        std::string what = std::string(dtype_name(dtype)) + " " + path + " " +
                           std::to_string(c.shape.size()) + "-D, " + std::to_string(c.groups) +
                           " groups";
        double tol = tolerance(dtype);
        EXPECT_LE(max_rel_error(floats_of(out), want.out), tol) << what;
        EXPECT_LE(max_rel_error(floats_of(mean), want.mean), tol) << what;
        EXPECT_LE(max_rel_error(floats_of(rstd), want.rstd), tol) << what;
    }
    ctx().reset();
}

TEST(NormOps, GroupNormPerChannelAffine) {
    on_both_reduction_paths([](const std::string& path) { check_group_norm(DType::f32, path); });
}

TEST(NormOps, Float16GroupNormComputesInFloat32) {
    WGX_SKIP_WITHOUT_F16();
    on_both_reduction_paths([](const std::string& path) { check_group_norm(DType::f16, path); });
}

void check_batch_norm(DType dtype) {
    struct Case {
        Shape shape;
        double eps;
        bool weight, bias, stats;
    };
    std::vector<Case> cases = {
        {{1, 1}, 1e-5, true, true, false},        {{4, 7}, 1e-5, true, true, true},
        {{2, 3, 5, 7}, 1e-3, true, false, false}, {{1, 13, 11, 1}, 1e-5, false, true, true},
        {{3, 5, 17}, 0.5, false, false, false},   {{2, 3, 1, 4, 5}, 1e-5, true, true, false},
    };
    for (const Case& c : cases) {
        int64_t C = c.shape[1];
        int64_t inner = numel(c.shape) / (c.shape[0] * C);
        auto x = representable(inputs(numel(c.shape), 8), dtype);
        auto w = representable(random_floats(C, 9), dtype);
        auto b = representable(random_floats(C, 10), dtype);
        auto rm = representable(random_floats(C, 11), dtype);
        auto rv = random_floats(C, 12);
        for (float& v : rv) v = 0.1f + std::abs(v);
        rv = representable(rv, dtype);
        Tensor tx = tensor_of(dtype, c.shape, x);
        Arg tw = c.weight ? Arg(tensor_of(dtype, {C}, w)) : Arg();
        Arg tb = c.bias ? Arg(tensor_of(dtype, {C}, b)) : Arg();
        Tensor trm = tensor_of(dtype, {C}, rm);
        Tensor trv = tensor_of(dtype, {C}, rv);
        Tensor out = out_tensor(c.shape, dtype);
        Arg::TensorList outs = {out, std::nullopt, std::nullopt};
        Tensor save_mean = out_tensor({C}, dtype), save_invstd = out_tensor({C}, dtype);
        if (c.stats) outs = {out, save_mean, save_invstd};
        ctx().reset();
        ctx().record(op("aten._native_batch_norm_legit_no_training.default"),
                     {tx, tw, tb, trm, trv, 0.1, c.eps, outs});
        ctx().submit();
        std::vector<double> want(x.size()), invstd(C);
        for (int64_t c2 = 0; c2 < C; ++c2) invstd[c2] = 1 / std::sqrt(double(rv[c2]) + c.eps);
        for (size_t i = 0; i < x.size(); ++i) {
            int64_t ch = (int64_t(i) / inner) % C;
            double y = (x[i] - double(rm[ch])) * invstd[ch];
            if (c.weight) y *= w[ch];
            if (c.bias) y += b[ch];
            want[i] = y;
        }
        std::string what =
            std::string(dtype_name(dtype)) + " " + std::to_string(c.shape.size()) + "-D";
        double tol = tolerance(dtype);
        EXPECT_LE(max_rel_error(floats_of(out), want), tol) << what;
        if (c.stats) {
            EXPECT_EQ(floats_of(save_mean), rm) << what;
            EXPECT_LE(max_rel_error(floats_of(save_invstd), invstd), tol) << what;
        }
    }
    ctx().reset();
}

TEST(NormOps, BatchNormInference) { check_batch_norm(DType::f32); }

TEST(NormOps, Float16BatchNormComputesInFloat32) {
    WGX_SKIP_WITHOUT_F16();
    check_batch_norm(DType::f16);
}

TEST(NormOps, BadArgumentsAreRejected) {
    Tensor x = ctx().tensor(DType::f32, {2, 4, 3}).set_data(inputs(24, 13));
    Tensor xi = ctx().tensor(DType::i32, {2, 4, 3}).set_data(random_ints(24, 14));
    Tensor out = ctx().tensor(DType::f32, {2, 4, 3});
    Tensor bad = ctx().tensor(DType::f32, {2, 12});
    Tensor w3 = ctx().tensor(DType::f32, {3});
    Tensor w4 = ctx().tensor(DType::f32, {4});
    Tensor s21 = ctx().tensor(DType::f32, {2, 4, 1});
    Tensor s2 = ctx().tensor(DType::f32, {2, 2});
    const char* ln = "aten.native_layer_norm.default";
    const char* gn = "aten.native_group_norm.default";
    const char* bn = "aten._native_batch_norm_legit_no_training.default";
    expect_invalid(ln,
                   {x, std::vector<int64_t>{4}, Arg(), Arg(), 1e-5, Arg::TensorList{out, s21, s21}},
                   "normalized_shape");
    expect_invalid(ln,
                   {x, std::vector<int64_t>{3}, w4, Arg(), 1e-5, Arg::TensorList{out, s21, s21}},
                   "weight");
    expect_invalid(
        ln, {x, std::vector<int64_t>{3}, w3, Arg(), 1e-5, Arg::TensorList{bad, s21, s21}}, "out");
    expect_invalid(
        ln, {x, std::vector<int64_t>{4, 3}, Arg(), Arg(), 1e-5, Arg::TensorList{out, s21, s21}},
        "mean");
    expect_invalid(
        ln, {xi, std::vector<int64_t>{3}, Arg(), Arg(), 1e-5, Arg::TensorList{out, s21, s21}},
        "int32");
    expect_invalid(ln, {x, std::vector<int64_t>{3}, Arg(), Arg(), 1e-5, Arg::TensorList{out, s21}},
                   "3 outputs");
    expect_invalid(gn,
                   {x, w4, w4, int64_t(2), int64_t(4), int64_t(3), int64_t(3), 1e-5,
                    Arg::TensorList{out, s2, s2}},
                   "group 3");
    expect_invalid(gn,
                   {x, w4, w4, int64_t(2), int64_t(4), int64_t(4), int64_t(2), 1e-5,
                    Arg::TensorList{out, s2, s2}},
                   "HxW=4");
    expect_invalid(gn,
                   {x, w3, w4, int64_t(2), int64_t(4), int64_t(3), int64_t(2), 1e-5,
                    Arg::TensorList{out, s2, s2}},
                   "weight");
    expect_invalid(gn,
                   {x, w4, w4, int64_t(2), int64_t(4), int64_t(3), int64_t(2), 1e-5,
                    Arg::TensorList{out, s21, s2}},
                   "mean");
    expect_invalid(bn,
                   {x, w4, w4, w3, w4, 0.1, 1e-5, Arg::TensorList{out, std::nullopt, std::nullopt}},
                   "running_mean");
    expect_invalid(bn,
                   {x, w4, w4, w4, w4, 0.1, 1e-5, Arg::TensorList{bad, std::nullopt, std::nullopt}},
                   "out");
    expect_invalid(
        bn, {xi, w4, w4, w4, w4, 0.1, 1e-5, Arg::TensorList{out, std::nullopt, std::nullopt}},
        "int32");
    expect_invalid(bn, {x, w4, w4, w4, w4, 0.1, 1e-5, Arg::TensorList{out, w3, std::nullopt}},
                   "save_mean");
}

TEST(NormOps, Float16DoesNotMixWithFloat32) {
    WGX_SKIP_WITHOUT_F16();
    Tensor h = tensor_of(DType::f16, {2, 4, 3}, representable(inputs(24, 15), DType::f16));
    Tensor hout = ctx().tensor(DType::f16, {2, 4, 3});
    Tensor fout = ctx().tensor(DType::f32, {2, 4, 3});
    Tensor h3 = ctx().tensor(DType::f16, {3}), f3 = ctx().tensor(DType::f32, {3});
    Tensor h4 = ctx().tensor(DType::f16, {4}), f4 = ctx().tensor(DType::f32, {4});
    Tensor hs21 = ctx().tensor(DType::f16, {2, 4, 1}), fs21 = ctx().tensor(DType::f32, {2, 4, 1});
    Tensor hs2 = ctx().tensor(DType::f16, {2, 2}), fs2 = ctx().tensor(DType::f32, {2, 2});
    const char* ln = "aten.native_layer_norm.default";
    const char* gn = "aten.native_group_norm.default";
    const char* bn = "aten._native_batch_norm_legit_no_training.default";
    auto none = std::nullopt;
    expect_invalid(ln,
                   {h, std::vector<int64_t>{3}, f3, Arg(), 1e-5, Arg::TensorList{hout, hs21, hs21}},
                   "weight has dtype float32, expected float16");
    expect_invalid(ln,
                   {h, std::vector<int64_t>{3}, h3, h3, 1e-5, Arg::TensorList{fout, hs21, hs21}},
                   "out has dtype float32");
    expect_invalid(ln,
                   {h, std::vector<int64_t>{3}, h3, h3, 1e-5, Arg::TensorList{hout, fs21, none}},
                   "mean has dtype float32");
    expect_invalid(gn,
                   {h, h4, f4, int64_t(2), int64_t(4), int64_t(3), int64_t(2), 1e-5,
                    Arg::TensorList{hout, hs2, hs2}},
                   "bias has dtype float32");
    expect_invalid(gn,
                   {h, h4, h4, int64_t(2), int64_t(4), int64_t(3), int64_t(2), 1e-5,
                    Arg::TensorList{hout, hs2, fs2}},
                   "rstd has dtype float32");
    expect_invalid(bn, {h, h4, h4, f4, h4, 0.1, 1e-5, Arg::TensorList{hout, none, none}},
                   "running_mean has dtype float32");
    expect_invalid(bn, {h, h4, h4, h4, f4, 0.1, 1e-5, Arg::TensorList{hout, none, none}},
                   "running_var has dtype float32");
    expect_invalid(bn, {h, h4, h4, h4, h4, 0.1, 1e-5, Arg::TensorList{hout, h4, f4}},
                   "save_invstd has dtype float32");
}

TEST(NormOps, Float16NeedsShaderF16) {
    // A device made without optional features has no shader-f16: float16 is refused clearly.
    DeviceOptions options;
    options.request_optional_features = false;
    Context plain = Context::create(options);
    ASSERT_FALSE(plain.device_info().features.shader_f16);
    Tensor h = plain.tensor(DType::f16, {2, 4, 3});
    Tensor hout = plain.tensor(DType::f16, {2, 4, 3});
    Tensor h4 = plain.tensor(DType::f16, {4});
    auto expect_refused = [&](std::string_view name, std::vector<Arg> args) {
        expect_refused_without_f16(plain, name, std::move(args));
    };
    expect_refused("aten.native_layer_norm.default",
                   {h, std::vector<int64_t>{3}, Arg(), Arg(), 1e-5,
                    Arg::TensorList{hout, std::nullopt, std::nullopt}});
    expect_refused("aten.native_group_norm.default",
                   {h, Arg(), Arg(), int64_t(2), int64_t(4), int64_t(3), int64_t(2), 1e-5,
                    Arg::TensorList{hout, std::nullopt, std::nullopt}});
    expect_refused(
        "aten._native_batch_norm_legit_no_training.default",
        {h, Arg(), Arg(), h4, h4, 0.1, 1e-5, Arg::TensorList{hout, std::nullopt, std::nullopt}});
    plain.destroy();
}

TEST(NormOps, NormRowsUseSubgroupsWhereOffered) {
    // The kernel chosen for layer norm rows of 768, on each path: the subgroup variant exactly
    // where the device has subgroups and WGX_SUBGROUPS is not 0.
    Tensor tx = ctx().tensor(DType::f32, {4, 768}).set_data(inputs(4 * 768, 16));
    Tensor out = out_tensor({4, 768});
    on_both_reduction_paths([&](const std::string& path) {
        ctx().reset();
        ctx().record(op("aten.native_layer_norm.default"),
                     {tx, std::vector<int64_t>{768}, Arg(), Arg(), 1e-5,
                      Arg::TensorList{out, std::nullopt, std::nullopt}});
        auto labels = recorded_kernels();
        if (labels.empty()) GTEST_SKIP() << "no timestamp queries to read kernel labels";
        bool subgroups = path == "subgroups" && ctx().device_info().features.subgroups;
        EXPECT_EQ(
            labels,
            std::vector<std::string>{subgroups ? "aten.native_layer_norm.default/rows_subgroups"
                                               : "aten.native_layer_norm.default/rows"})
            << path;
    });
    ctx().reset();
}

}  // namespace
}  // namespace wgx::test
