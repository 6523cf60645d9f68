// native_layer_norm, native_group_norm and _native_batch_norm_legit_no_training against float64
// references written here: ranks 1..5, sizes 1, odd and prime, several eps, absent weight and
// bias, absent statistics outputs, rows short and long (workgroup trees of every width).
// Tolerance: max_rel_error <= 1e-5 for out, mean and rstd (two-pass float32 statistics).
#include <cmath>

#include "test_util.h"

namespace wgx::test {
namespace {

// Inputs with an offset and scale, so the mean matters and var is not ~1.
std::vector<float> inputs(size_t n, uint32_t seed, float offset = 0.75f, float scale = 2.5f) {
    auto v = random_floats(n, seed);
    for (float& x : v) x = offset + scale * x;
    return v;
}

Tensor out_tensor(const Shape& s) {
    Tensor t = ctx().tensor(DType::f32, s);
    poison(t);
    return t;
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

TEST(NormOps, LayerNormOverTrailingDims) {
    struct Case {
        Shape shape;
        size_t k;  // normalized dims
        double eps;
        bool weight, bias;
    };
    std::vector<Case> cases = {
        {{1}, 1, 1e-5, true, true},
        {{13}, 1, 1e-5, true, true},
        {{7, 1}, 1, 1e-3, true, true},     // one element per row: out = bias
        {{5, 768}, 1, 1e-5, true, true},   // transformer hidden size
        {{3, 4099}, 1, 1e-6, false, true}, // long prime rows; no weight
        {{2, 3, 17}, 2, 1e-5, true, false},
        {{2, 3, 5, 7}, 3, 0.1, false, false},
        {{2, 1, 3, 5, 11}, 2, 1e-5, true, true},
    };
    for (const Case& c : cases) {
        Shape norm(c.shape.end() - int64_t(c.k), c.shape.end());
        Shape stats = c.shape;
        for (size_t i = c.shape.size() - c.k; i < c.shape.size(); ++i) stats[i] = 1;
        auto x = inputs(numel(c.shape), 1);
        auto w = random_floats(numel(norm), 2);
        auto b = random_floats(numel(norm), 3);
        Tensor tx = ctx().tensor(DType::f32, c.shape).set_data(x);
        Arg tw = c.weight ? Arg(ctx().tensor(DType::f32, norm).set_data(w)) : Arg();
        Arg tb = c.bias ? Arg(ctx().tensor(DType::f32, norm).set_data(b)) : Arg();
        Tensor out = out_tensor(c.shape), mean = out_tensor(stats), rstd = out_tensor(stats);
        ctx().reset();
        ctx().record(op("aten.native_layer_norm.default"),
                     {tx, norm, tw, tb, c.eps, Arg::TensorList{out, mean, rstd}});
        ctx().submit();
        Stats want = norm_ref(x, numel(norm), c.weight ? &w : nullptr, c.bias ? &b : nullptr,
                              c.eps, 1, 0, 1);
        std::string what = std::to_string(c.shape.size()) + "-D last " + std::to_string(c.k);
        EXPECT_LE(max_rel_error(out.get_data<float>(), want.out), 1e-5) << what;
        EXPECT_LE(max_rel_error(mean.get_data<float>(), want.mean), 1e-5) << what;
        EXPECT_LE(max_rel_error(rstd.get_data<float>(), want.rstd), 1e-5) << what;
    }
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

TEST(NormOps, GroupNormPerChannelAffine) {
    struct Case {
        Shape shape;
        int64_t groups;
        double eps;
        bool weight, bias;
    };
    std::vector<Case> cases = {
        {{1, 1}, 1, 1e-5, true, true},
        {{2, 6, 5, 7}, 3, 1e-5, true, true},
        {{3, 4, 13}, 4, 1e-3, true, false},     // one channel per group
        {{1, 32, 9, 9}, 8, 1e-5, false, true},
        {{2, 5, 1, 3, 2}, 1, 1e-6, false, false},  // rank 5, one group
        {{2, 10, 257}, 5, 1e-5, true, true},
    };
    for (const Case& c : cases) {
        int64_t N = c.shape[0], C = c.shape[1], HxW = numel(c.shape) / (N * C);
        auto x = inputs(numel(c.shape), 5);
        auto w = random_floats(C, 6);
        auto b = random_floats(C, 7);
        Tensor tx = ctx().tensor(DType::f32, c.shape).set_data(x);
        Arg tw = c.weight ? Arg(ctx().tensor(DType::f32, {C}).set_data(w)) : Arg();
        Arg tb = c.bias ? Arg(ctx().tensor(DType::f32, {C}).set_data(b)) : Arg();
        Tensor out = out_tensor(c.shape);
        Tensor mean = out_tensor({N, c.groups}), rstd = out_tensor({N, c.groups});
        ctx().reset();
        ctx().record(op("aten.native_group_norm.default"),
                     {tx, tw, tb, N, C, HxW, c.groups, c.eps, Arg::TensorList{out, mean, rstd}});
        ctx().submit();
        Stats want = norm_ref(x, C / c.groups * HxW, c.weight ? &w : nullptr,
                              c.bias ? &b : nullptr, c.eps, c.groups, C / c.groups, HxW);
        std::string what = std::to_string(c.shape.size()) + "-D, " + std::to_string(c.groups) +
                           " groups";
        EXPECT_LE(max_rel_error(out.get_data<float>(), want.out), 1e-5) << what;
        EXPECT_LE(max_rel_error(mean.get_data<float>(), want.mean), 1e-5) << what;
        EXPECT_LE(max_rel_error(rstd.get_data<float>(), want.rstd), 1e-5) << what;
    }
}

TEST(NormOps, BatchNormInference) {
    struct Case {
        Shape shape;
        double eps;
        bool weight, bias, stats;
    };
    std::vector<Case> cases = {
        {{1, 1}, 1e-5, true, true, false},
        {{4, 7}, 1e-5, true, true, true},
        {{2, 3, 5, 7}, 1e-3, true, false, false},
        {{1, 13, 11, 1}, 1e-5, false, true, true},
        {{3, 5, 17}, 0.5, false, false, false},
        {{2, 3, 1, 4, 5}, 1e-5, true, true, false},
    };
    for (const Case& c : cases) {
        int64_t C = c.shape[1];
        int64_t inner = numel(c.shape) / (c.shape[0] * C);
        auto x = inputs(numel(c.shape), 8);
        auto w = random_floats(C, 9);
        auto b = random_floats(C, 10);
        auto rm = random_floats(C, 11);
        auto rv = random_floats(C, 12);
        for (float& v : rv) v = 0.1f + std::abs(v);
        Tensor tx = ctx().tensor(DType::f32, c.shape).set_data(x);
        Arg tw = c.weight ? Arg(ctx().tensor(DType::f32, {C}).set_data(w)) : Arg();
        Arg tb = c.bias ? Arg(ctx().tensor(DType::f32, {C}).set_data(b)) : Arg();
        Tensor trm = ctx().tensor(DType::f32, {C}).set_data(rm);
        Tensor trv = ctx().tensor(DType::f32, {C}).set_data(rv);
        Tensor out = out_tensor(c.shape);
        Arg::TensorList outs = {out, std::nullopt, std::nullopt};
        Tensor save_mean = out_tensor({C}), save_invstd = out_tensor({C});
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
        EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-5) << c.shape.size() << "-D";
        if (c.stats) {
            EXPECT_EQ(save_mean.get_data<float>(), rm);
            EXPECT_LE(max_rel_error(save_invstd.get_data<float>(), invstd), 1e-5);
        }
    }
    ctx().reset();
}

void expect_invalid(std::string_view name, std::vector<Arg> args, const std::string& part) {
    ctx().reset();
    try {
        ctx().record(op(name), args);
        ADD_FAILURE() << name << ": expected InvalidArgument containing \"" << part << "\"";
    } catch (const InvalidArgument& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find(std::string(name)), std::string::npos) << msg;
        EXPECT_NE(msg.find(part), std::string::npos) << msg;
    }
    ctx().reset();
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
    expect_invalid(ln, {x, std::vector<int64_t>{4}, Arg(), Arg(), 1e-5, Arg::TensorList{out, s21, s21}}, "normalized_shape");
    expect_invalid(ln, {x, std::vector<int64_t>{3}, w4, Arg(), 1e-5, Arg::TensorList{out, s21, s21}}, "weight");
    expect_invalid(ln, {x, std::vector<int64_t>{3}, w3, Arg(), 1e-5, Arg::TensorList{bad, s21, s21}}, "out");
    expect_invalid(ln, {x, std::vector<int64_t>{4, 3}, Arg(), Arg(), 1e-5, Arg::TensorList{out, s21, s21}}, "mean");
    expect_invalid(ln, {xi, std::vector<int64_t>{3}, Arg(), Arg(), 1e-5, Arg::TensorList{out, s21, s21}}, "int32");
    expect_invalid(ln, {x, std::vector<int64_t>{3}, Arg(), Arg(), 1e-5, Arg::TensorList{out, s21}}, "3 outputs");
    expect_invalid(gn, {x, w4, w4, int64_t(2), int64_t(4), int64_t(3), int64_t(3), 1e-5, Arg::TensorList{out, s2, s2}}, "group 3");
    expect_invalid(gn, {x, w4, w4, int64_t(2), int64_t(4), int64_t(4), int64_t(2), 1e-5, Arg::TensorList{out, s2, s2}}, "HxW=4");
    expect_invalid(gn, {x, w3, w4, int64_t(2), int64_t(4), int64_t(3), int64_t(2), 1e-5, Arg::TensorList{out, s2, s2}}, "weight");
    expect_invalid(gn, {x, w4, w4, int64_t(2), int64_t(4), int64_t(3), int64_t(2), 1e-5, Arg::TensorList{out, s21, s2}}, "mean");
    expect_invalid(bn, {x, w4, w4, w3, w4, 0.1, 1e-5, Arg::TensorList{out, std::nullopt, std::nullopt}}, "running_mean");
    expect_invalid(bn, {x, w4, w4, w4, w4, 0.1, 1e-5, Arg::TensorList{bad, std::nullopt, std::nullopt}}, "out");
    expect_invalid(bn, {xi, w4, w4, w4, w4, 0.1, 1e-5, Arg::TensorList{out, std::nullopt, std::nullopt}}, "int32");
    expect_invalid(bn, {x, w4, w4, w4, w4, 0.1, 1e-5, Arg::TensorList{out, w3, std::nullopt}}, "save_mean");
}

}  // namespace
}  // namespace wgx::test
