// Pooling ops against float64 (max: exact) references written from PyTorch's CPU semantics:
// aten.max_pool2d_with_indices / aten.max_pool2d (dilation, padding, ceil_mode, first maximum
// wins, NaN propagates, indices h * W + w within the plane), aten.avg_pool2d (ceil_mode windows
// past the padded edge, count_include_pad, divisor_override) and aten._adaptive_avg_pool2d,
// with sizes 1, odd and prime, 3-D and 4-D inputs, int32 max pooling, a folded grid and bad
// arguments; float16 for every op. Tolerances: max pooling is exact (float16 too); averages
// <= 1e-6 relative (a float32 sum of at most a few dozen terms and one division), and for float16
// (inputs rounded to float16 on the host, the reference on the rounded values, sums in f32) that
// plus one rounding of the result to float16 (half_close: 2^-11 relative, 2^-24 absolute).
#include <cmath>
#include <limits>
#include <string>

#include "half_test_util.h"
#include "test_util.h"

namespace wgx::test {
namespace {

using Ints = std::vector<int64_t>;

// PyTorch's pooling output size (pooling_output_shape).
int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
    int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil_mode && (o - 1) * s >= in + p) --o;
    return o;
}

struct PoolCase {
    std::string name;
    Shape x;
    Ints k, s, p, d;  // s empty: kernel size
    bool ceil_mode = false;
    bool count_include_pad = true;        // avg only
    std::optional<int64_t> divisor = {};  // avg only
};
void PrintTo(const PoolCase& c, std::ostream* os) { *os << c.name; }

struct Geometry {
    int64_t planes, H, W, Ho, Wo, kH, kW, sH, sW, pH, pW, dH, dW;
    Shape out;
};

Geometry geometry(const PoolCase& c, bool dilated) {
    Geometry g{};
    int r = int(c.x.size());
    g.H = c.x[r - 2], g.W = c.x[r - 1];
    g.planes = numel(c.x) / (g.H * g.W);
    g.kH = c.k[0], g.kW = c.k.size() > 1 ? c.k[1] : c.k[0];
    Ints s = c.s.empty() ? c.k : c.s;
    g.sH = s[0], g.sW = s.size() > 1 ? s[1] : s[0];
    g.pH = c.p[0], g.pW = c.p.size() > 1 ? c.p[1] : c.p[0];
    g.dH = dilated ? c.d[0] : 1, g.dW = dilated ? c.d.back() : 1;
    g.Ho = out_size(g.H, g.kH, g.sH, g.pH, g.dH, c.ceil_mode);
    g.Wo = out_size(g.W, g.kW, g.sW, g.pW, g.dW, c.ceil_mode);
    g.out = c.x;
    g.out[r - 2] = g.Ho;
    g.out[r - 1] = g.Wo;
    return g;
}

// Max over the in-range taps in row-major tap order: a later value wins only when strictly
// greater or NaN; the index starts at the first in-range tap.
template <typename T>
void max_reference(const Geometry& g, const std::vector<T>& x, std::vector<T>& out,
                   std::vector<int64_t>& idx) {
    out.assign(g.planes * g.Ho * g.Wo, T());
    idx.assign(out.size(), 0);
    for (int64_t pl = 0; pl < g.planes; ++pl)
        for (int64_t oy = 0; oy < g.Ho; ++oy)
            for (int64_t ox = 0; ox < g.Wo; ++ox) {
                bool first = true;
                T best = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                              : std::numeric_limits<T>::lowest();
                int64_t bi = -1;
                for (int64_t kh = 0; kh < g.kH; ++kh)
                    for (int64_t kw = 0; kw < g.kW; ++kw) {
                        int64_t iy = oy * g.sH - g.pH + kh * g.dH;
                        int64_t ix = ox * g.sW - g.pW + kw * g.dW;
                        if (iy < 0 || iy >= g.H || ix < 0 || ix >= g.W) continue;
                        T v = x[(pl * g.H + iy) * g.W + ix];
                        if (first) bi = iy * g.W + ix, first = false;
                        if (v > best || v != v) best = v, bi = iy * g.W + ix;
                    }
                out[(pl * g.Ho + oy) * g.Wo + ox] = best;
                idx[(pl * g.Ho + oy) * g.Wo + ox] = bi;
            }
}

std::vector<Arg> max_args(const PoolCase& c, const Tensor& x) {
    return {x, c.k, c.s, c.p, c.d, c.ceil_mode};
}

const std::vector<PoolCase>& max_cases() {
    static const std::vector<PoolCase> c = {
        {"k1", {1, 1, 1, 1}, {1, 1}, {}, {0, 0}, {1, 1}},
        {"k2s2", {2, 3, 8, 10}, {2, 2}, {}, {0, 0}, {1, 1}},
        {"k3s2p1", {1, 5, 13, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1}},
        {"k3s2p1_ceil", {1, 4, 6, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, true},
        {"k3s3p1_ceil_drops_last", {1, 2, 5, 5}, {3, 3}, {3, 3}, {1, 1}, {1, 1}, true},
        {"asymmetric", {2, 3, 17, 19}, {2, 5}, {1, 3}, {1, 2}, {1, 1}},
        {"dilated", {1, 3, 15, 13}, {3, 3}, {1, 2}, {1, 1}, {2, 3}},
        {"dilated_ceil", {1, 2, 11, 9}, {3, 2}, {2, 2}, {1, 1}, {2, 2}, true},
        {"global", {3, 7, 7}, {7}, {}, {0}, {1}},  // 3-D, single-value lists
        {"stride1_overlap", {2, 5, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
        {"one_pixel_padded", {1, 1, 1, 1}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
    };
    return c;
}

class PoolMax : public ::testing::TestWithParam<PoolCase> {};

TEST_P(PoolMax, WithIndicesIsExact) {
    const PoolCase& c = GetParam();
    Geometry g = geometry(c, true);
    auto x = random_floats(numel(c.x), 201);
    std::vector<float> want;
    std::vector<int64_t> want_idx;
    max_reference(g, x, want, want_idx);
    Tensor tx = ctx().tensor(DType::f32, c.x).set_data(x);
    Tensor out = ctx().tensor(DType::f32, g.out);
    Tensor idx = ctx().tensor(DType::i64, g.out);
    Tensor out2 = ctx().tensor(DType::f32, g.out);
    poison(out);
    poison(out2);
    idx.set_data(std::vector<int64_t>(numel(g.out), -7));
    auto args = max_args(c, tx);
    args.push_back(Arg::TensorList{out, idx});
    auto args2 = max_args(c, tx);
    args2.push_back(out2);
    ctx().reset();
    ctx().record(op("aten.max_pool2d_with_indices.default"), args);
    ctx().record(op("aten.max_pool2d.default"), args2);
    ctx().submit();
    EXPECT_EQ(out.get_data<float>(), want);
    EXPECT_EQ(idx.get_data<int64_t>(), want_idx);
    EXPECT_EQ(out2.get_data<float>(), want);
    ctx().reset();
}

TEST_P(PoolMax, Float16WithIndicesIsExact) {
    const PoolCase& c = GetParam();
    Geometry g = geometry(c, true);
    auto x = round_to_half(random_floats(numel(c.x), 202));
    std::vector<float> want;
    std::vector<int64_t> want_idx;
    max_reference(g, x, want, want_idx);
    Tensor tx = half_tensor(c.x, x);
    Tensor out = half_output(g.out);
    Tensor out2 = half_output(g.out);
    Tensor idx = ctx().tensor(DType::i64, g.out);
    idx.set_data(std::vector<int64_t>(numel(g.out), -7));
    auto args = max_args(c, tx);
    args.push_back(Arg::TensorList{out, idx});
    auto args2 = max_args(c, tx);
    args2.push_back(out2);
    ctx().reset();
    ctx().record(op("aten.max_pool2d_with_indices.default"), args);
    ctx().record(op("aten.max_pool2d.default"), args2);
    ctx().submit();
    EXPECT_EQ(read_half(out), want);
    EXPECT_EQ(idx.get_data<int64_t>(), want_idx);
    EXPECT_EQ(read_half(out2), want);
    ctx().reset();
}

INSTANTIATE_TEST_SUITE_P(Pool, PoolMax, ::testing::ValuesIn(max_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(PoolMax, IntegerTiesTakeTheFirstMaximum) {
    // Values in [-3, 3] make many ties; the first in row-major window order must win.
    PoolCase c{"ties", {2, 3, 9, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, true};
    Geometry g = geometry(c, true);
    auto xi = random_ints(numel(c.x), 211, -3, 3);
    std::vector<int32_t> want;
    std::vector<int64_t> want_idx;
    max_reference(g, xi, want, want_idx);
    for (DType dt : {DType::i32, DType::i64}) {
        Tensor tx = ctx().tensor(dt, c.x);
        Tensor out = ctx().tensor(dt, g.out);
        if (dt == DType::i32) {
            tx.set_data(xi);
            out.set_data(std::vector<int32_t>(numel(g.out), 99));
        } else {
            tx.set_data(std::vector<int64_t>(xi.begin(), xi.end()));
            out.set_data(std::vector<int64_t>(numel(g.out), 99));
        }
        Tensor idx = ctx().tensor(DType::i64, g.out);
        idx.set_data(std::vector<int64_t>(numel(g.out), -7));
        auto args = max_args(c, tx);
        args.push_back(out);  // the separate-tensor form of the outputs
        args.push_back(idx);
        ctx().reset();
        ctx().record(op("aten.max_pool2d_with_indices.default"), args);
        ctx().submit();
        std::vector<int64_t> got;
        if (dt == DType::i32) {
            for (int32_t v : out.get_data<int32_t>()) got.push_back(v);
        } else {
            got = out.get_data<int64_t>();
        }
        EXPECT_EQ(got, std::vector<int64_t>(want.begin(), want.end())) << dtype_name(dt);
        EXPECT_EQ(idx.get_data<int64_t>(), want_idx) << dtype_name(dt);
        ctx().reset();
    }
}

TEST(PoolMax, NaNPropagatesAndInfinityIsAValue) {
    // Row 0 holds NaN, row 1 is all -inf (index stays at the window's first tap), row 2 holds
    // +inf.
    const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
    std::vector<float> x = {1,    nan,  2,    nan,  5,    6,  //
                            -inf, -inf, -inf, -inf, -inf, -inf, 3, 4, inf, 1, 2, 3};
    for (DType dt : {DType::f32, DType::f16}) {
        const bool half = dt == DType::f16;
        Tensor tx = half ? half_tensor({1, 1, 3, 6}, x)
                         : ctx().tensor(DType::f32, {1, 1, 3, 6}).set_data(x);
        Tensor out = ctx().tensor(dt, {1, 1, 3, 2});
        Tensor idx = ctx().tensor(DType::i64, {1, 1, 3, 2});
        ctx().reset();
        ctx().record(
            op("aten.max_pool2d_with_indices.default"),
            {tx, Ints{1, 3}, Ints{1, 3}, Ints{0, 0}, Ints{1, 1}, false, Arg::TensorList{out, idx}});
        ctx().submit();
        auto got = half ? read_half(out) : out.get_data<float>();
        EXPECT_TRUE(std::isnan(got[0])) << dtype_name(dt);
        EXPECT_TRUE(std::isnan(got[1])) << dtype_name(dt);
        EXPECT_EQ(got[2], -inf) << dtype_name(dt);
        EXPECT_EQ(got[3], -inf) << dtype_name(dt);
        EXPECT_EQ(got[4], inf) << dtype_name(dt);
        EXPECT_EQ(got[5], 3.f) << dtype_name(dt);
        // The last NaN of a window holds the index (each NaN replaces the running maximum).
        EXPECT_EQ(idx.get_data<int64_t>(), (std::vector<int64_t>{1, 3, 6, 9, 14, 17}))
            << dtype_name(dt);
        ctx().reset();
    }
}

// Average pooling reference with PyTorch's window and divisor rules.
std::vector<double> avg_reference(const PoolCase& c, const Geometry& g,
                                  const std::vector<float>& x) {
    std::vector<double> out(g.planes * g.Ho * g.Wo);
    for (int64_t pl = 0; pl < g.planes; ++pl)
        for (int64_t oy = 0; oy < g.Ho; ++oy)
            for (int64_t ox = 0; ox < g.Wo; ++ox) {
                int64_t y0 = oy * g.sH - g.pH, x0 = ox * g.sW - g.pW;
                int64_t y1 = std::min(y0 + g.kH, g.H + g.pH), x1 = std::min(x0 + g.kW, g.W + g.pW);
                int64_t padded = (y1 - y0) * (x1 - x0);
                y0 = std::max<int64_t>(y0, 0), x0 = std::max<int64_t>(x0, 0);
                y1 = std::min(y1, g.H), x1 = std::min(x1, g.W);
                double sum = 0;
                for (int64_t iy = y0; iy < y1; ++iy)
                    for (int64_t ix = x0; ix < x1; ++ix) sum += x[(pl * g.H + iy) * g.W + ix];
                int64_t div = c.divisor             ? *c.divisor
                              : c.count_include_pad ? padded
                                                    : (y1 - y0) * (x1 - x0);
                out[(pl * g.Ho + oy) * g.Wo + ox] = (y0 >= y1 || x0 >= x1) ? 0.0 : sum / div;
            }
    return out;
}

const std::vector<PoolCase>& avg_cases() {
    static const std::vector<PoolCase> c = {
        {"k1", {1, 1, 1, 1}, {1, 1}, {}, {0, 0}, {}},
        {"k2s2", {2, 3, 8, 10}, {2, 2}, {}, {0, 0}, {}},
        {"k3s2p1_include_pad", {1, 5, 13, 11}, {3, 3}, {2, 2}, {1, 1}, {}, false, true},
        {"k3s2p1_exclude_pad", {1, 5, 13, 11}, {3, 3}, {2, 2}, {1, 1}, {}, false, false},
        // ceil_mode: the last window runs past the padded edge (divisor 2, not 3, per dim).
        {"ceil_include_pad", {1, 4, 6, 7}, {3, 3}, {2, 2}, {1, 1}, {}, true, true},
        {"ceil_exclude_pad", {1, 4, 6, 7}, {3, 3}, {2, 2}, {1, 1}, {}, true, false},
        {"ceil_no_pad", {2, 3, 5, 7}, {2, 2}, {2, 2}, {0, 0}, {}, true, true},
        {"ceil_drops_last", {1, 2, 5, 5}, {3, 3}, {3, 3}, {1, 1}, {}, true, true},
        {"divisor_override", {1, 3, 9, 9}, {3, 3}, {2, 2}, {1, 1}, {}, true, true, 5},
        {"divisor_negative", {1, 2, 7, 7}, {2, 3}, {1, 2}, {1, 1}, {}, false, false, -3},
        {"asymmetric", {2, 17, 19}, {2, 5}, {1, 3}, {1, 2}, {}, false, false},
        {"global_3d", {3, 7, 7}, {7}, {}, {0}, {}},
    };
    return c;
}

class PoolAvg : public ::testing::TestWithParam<PoolCase> {};

TEST_P(PoolAvg, MatchesFloat64Reference) {
    const PoolCase& c = GetParam();
    Geometry g = geometry(c, false);
    auto x = random_floats(numel(c.x), 221);
    Tensor tx = ctx().tensor(DType::f32, c.x).set_data(x);
    Tensor out = ctx().tensor(DType::f32, g.out);
    poison(out);
    ctx().reset();
    ctx().record(op("aten.avg_pool2d.default"),
                 {tx, c.k, c.s, c.p, c.ceil_mode, c.count_include_pad,
                  c.divisor ? Arg(*c.divisor) : Arg(std::nullopt), out});
    ctx().submit();
    EXPECT_LE(max_rel_error(out.get_data<float>(), avg_reference(c, g, x)), 1e-6);
    ctx().reset();
}

void expect_half_close(const std::vector<float>& got, const std::vector<double>& want, double err) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_TRUE(half_close(got[i], want[i], err * std::max(1.0, std::abs(want[i]))))
            << "at " << i << ": got " << got[i] << " want " << want[i];
    }
}

TEST_P(PoolAvg, Float16MatchesFloat64Reference) {
    const PoolCase& c = GetParam();
    Geometry g = geometry(c, false);
    auto x = round_to_half(random_floats(numel(c.x), 222));
    Tensor tx = half_tensor(c.x, x);
    Tensor out = half_output(g.out);
    ctx().reset();
    ctx().record(op("aten.avg_pool2d.default"),
                 {tx, c.k, c.s, c.p, c.ceil_mode, c.count_include_pad,
                  c.divisor ? Arg(*c.divisor) : Arg(std::nullopt), out});
    ctx().submit();
    expect_half_close(read_half(out), avg_reference(c, g, x), 1e-6);
    ctx().reset();
}

INSTANTIATE_TEST_SUITE_P(Pool, PoolAvg, ::testing::ValuesIn(avg_cases()),
                         [](const auto& info) { return info.param.name; });

struct AdaptiveCase {
    std::string name;
    Shape x;
    Ints size;
};
void PrintTo(const AdaptiveCase& c, std::ostream* os) { *os << c.name; }

class PoolAdaptive : public ::testing::TestWithParam<AdaptiveCase> {};

// PyTorch's adaptive average pooling of `x` (shape c.x) in float64; `os` gets the output shape.
std::vector<double> adaptive_reference(const AdaptiveCase& c, const std::vector<float>& x,
                                       Shape& os) {
    int r = int(c.x.size());
    int64_t H = c.x[r - 2], W = c.x[r - 1], planes = numel(c.x) / (H * W);
    int64_t Ho = c.size[0], Wo = c.size.size() > 1 ? c.size[1] : c.size[0];
    os = c.x;
    os[r - 2] = Ho, os[r - 1] = Wo;
    std::vector<double> want(planes * Ho * Wo);
    for (int64_t pl = 0; pl < planes; ++pl)
        for (int64_t oy = 0; oy < Ho; ++oy)
            for (int64_t ox = 0; ox < Wo; ++ox) {
                int64_t y0 = int64_t(std::floor(double(oy * H) / Ho));
                int64_t y1 = int64_t(std::ceil(double((oy + 1) * H) / Ho));
                int64_t x0 = int64_t(std::floor(double(ox * W) / Wo));
                int64_t x1 = int64_t(std::ceil(double((ox + 1) * W) / Wo));
                double sum = 0;
                for (int64_t iy = y0; iy < y1; ++iy)
                    for (int64_t ix = x0; ix < x1; ++ix) sum += x[(pl * H + iy) * W + ix];
                want[(pl * Ho + oy) * Wo + ox] = sum / double((y1 - y0) * (x1 - x0));
            }
    return want;
}

TEST_P(PoolAdaptive, MatchesFloat64Reference) {
    const AdaptiveCase& c = GetParam();
    auto x = random_floats(numel(c.x), 231);
    Shape os;
    std::vector<double> want = adaptive_reference(c, x, os);
    Tensor tx = ctx().tensor(DType::f32, c.x).set_data(x);
    Tensor out = ctx().tensor(DType::f32, os);
    Tensor out2 = ctx().tensor(DType::f32, os);
    poison(out);
    poison(out2);
    ctx().reset();
    ctx().record(op("aten._adaptive_avg_pool2d.default"), {tx, c.size, out});
    ctx().record(op("aten.adaptive_avg_pool2d.default"), {tx, c.size, out2});
    ctx().submit();
    EXPECT_LE(max_rel_error(out.get_data<float>(), want), 1e-6);
    EXPECT_LE(max_rel_error(out2.get_data<float>(), want), 1e-6);
    ctx().reset();
}

TEST_P(PoolAdaptive, Float16MatchesFloat64Reference) {
    const AdaptiveCase& c = GetParam();
    auto x = round_to_half(random_floats(numel(c.x), 232));
    Shape os;
    std::vector<double> want = adaptive_reference(c, x, os);
    Tensor tx = half_tensor(c.x, x);
    Tensor out = half_output(os);
    ctx().reset();
    ctx().record(op("aten._adaptive_avg_pool2d.default"), {tx, c.size, out});
    ctx().submit();
    expect_half_close(read_half(out), want, 1e-6);
    ctx().reset();
}

INSTANTIATE_TEST_SUITE_P(Pool, PoolAdaptive,
                         ::testing::Values(AdaptiveCase{"global", {2, 3, 7, 5}, {1, 1}},
                                           AdaptiveCase{"one_pixel", {1, 1, 1, 1}, {1, 1}},
                                           AdaptiveCase{"same", {1, 2, 5, 3}, {5, 3}},
                                           AdaptiveCase{"uneven", {1, 3, 13, 11}, {5, 3}},
                                           AdaptiveCase{"larger_than_input", {1, 2, 5, 3}, {7, 4}},
                                           AdaptiveCase{"mixed_3d", {4, 17, 6}, {7}},
                                           AdaptiveCase{"divisible", {2, 2, 14, 14}, {7, 7}}),
                         [](const auto& info) { return info.param.name; });

TEST(PoolMax, GridLargeEnoughToFold) {
    // One thread per output in workgroups of at most 128: more outputs than
    // max_workgroups_per_dimension * 128 force a 2-D grid.
    const uint64_t limit = ctx().device_info().limits.max_workgroups_per_dimension;
    const int64_t W = 4099;
    const int64_t H = int64_t((limit * 128) / W + 3);  // output rows: H - 1
    ASSERT_GT(uint64_t((H - 1) * W), limit * 128);
    auto x = random_floats(H * W, 241);
    Tensor tx = ctx().tensor(DType::f32, {1, 1, H, W}).set_data(x);
    Tensor out = ctx().tensor(DType::f32, {1, 1, H - 1, W});
    poison(out);
    ctx().reset();
    ctx().record(op("aten.max_pool2d.default"),
                 {tx, Ints{2, 1}, Ints{1, 1}, Ints{0, 0}, Ints{1, 1}, false, out});
    ctx().submit();
    auto got = out.get_data<float>();
    for (int64_t i = 0; i < (H - 1) * W; ++i) {
        float want = std::max(x[i], x[i + W]);
        if (got[i] != want) FAIL() << "element " << i << ": got " << got[i] << ", want " << want;
    }
    ctx().reset();
}

void expect_rejected(const char* op_name, std::initializer_list<Arg> args,
                     std::initializer_list<std::string> parts) {
    try {
        ctx().record(op(op_name), args);
        ADD_FAILURE() << op_name << ": expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        std::string m = e.what();
        EXPECT_NE(m.find(op_name), std::string::npos) << m;
        for (const auto& p : parts) EXPECT_NE(m.find(p), std::string::npos) << m;
    }
    ctx().reset();
}

TEST(PoolValidation, RejectsBadArguments) {
    const char* mp = "aten.max_pool2d_with_indices.default";
    const char* ap = "aten.avg_pool2d.default";
    Tensor x = ctx().tensor(DType::f32, {1, 2, 8, 8});
    Tensor out3 = ctx().tensor(DType::f32, {1, 2, 3, 3});
    Tensor out4 = ctx().tensor(DType::f32, {1, 2, 4, 4});
    Tensor idx3 = ctx().tensor(DType::i64, {1, 2, 3, 3});
    Tensor idx4 = ctx().tensor(DType::i64, {1, 2, 4, 4});
    const Ints k{3, 3}, s{2, 2}, p{0, 0}, d{1, 1};
    // Output shape: floor mode gives (8 - 3) / 2 + 1 = 3, ceil mode 4.
    expect_rejected(mp, {x, k, s, p, d, true, Arg::TensorList{out3, idx3}}, {"[1, 2, 4, 4]"});
    expect_rejected(mp, {x, k, s, p, d, false, Arg::TensorList{out4, idx4}}, {"[1, 2, 3, 3]"});
    expect_rejected(mp, {x, k, s, p, d, false, Arg::TensorList{out3, idx4}}, {"indices"});
    expect_rejected(mp, {x, k, s, p, d, false, Arg::TensorList{out3, out3}},
                    {"indices", "float32"});
    expect_rejected(mp, {x, k, s, p, d, false, Arg::TensorList{out3}}, {"outputs"});
    // Rank, padding beyond half the kernel, zero stride, bad dtypes.
    Tensor x2 = ctx().tensor(DType::f32, {7, 7});
    expect_rejected("aten.max_pool2d.default", {x2, k, s, p, d, false, out3}, {"self", "[7, 7]"});
    expect_rejected("aten.max_pool2d.default", {x, k, s, Ints{2, 2}, d, false, out3}, {"padding"});
    expect_rejected("aten.max_pool2d.default", {x, k, Ints{0, 2}, p, d, false, out3}, {"stride"});
    Tensor xb = ctx().tensor(DType::u8, {1, 2, 8, 8});
    expect_rejected("aten.max_pool2d.default", {xb, k, s, p, d, false, out3}, {"uint8"});
    Tensor xi = ctx().tensor(DType::i32, {1, 2, 8, 8});
    Tensor oi = ctx().tensor(DType::i32, {1, 2, 3, 3});
    expect_rejected(ap, {xi, k, s, p, false, true, std::nullopt, oi}, {"int32"});
    expect_rejected(ap, {x, k, s, p, false, true, int64_t(0), out3}, {"divisor_override"});
    expect_rejected(ap, {x, k, s, p, true, true, std::nullopt, out3}, {"[1, 2, 4, 4]"});
    // A kernel larger than the input.
    Tensor tiny = ctx().tensor(DType::f32, {1, 1, 2, 2});
    expect_rejected(ap, {tiny, k, s, p, false, true, std::nullopt, out3}, {"empty output"});
    // Adaptive: output shape against output_size.
    expect_rejected("aten._adaptive_avg_pool2d.default", {x, Ints{4, 4}, out3},
                    {"out", "[1, 2, 4, 4]"});
    // (The alias reports the op's canonical name.)
    expect_rejected("aten._adaptive_avg_pool2d.default", {x, Ints{0, 4}, out3}, {"output_size"});
}

}  // namespace
}  // namespace wgx::test
