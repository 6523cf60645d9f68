// Resize ops against references written from PyTorch's CPU semantics:
// aten.upsample_nearest2d.vec (exact; output_size or scale_factors, where PyTorch's ratio is
// 1 / scale_factor rather than in / out), aten.upsample_bilinear2d.vec (both align_corners
// modes, size or scale; float32 index math as PyTorch, float64 blend; tolerance 1e-6
// relative) and aten.pixel_shuffle.default (exact, float32 and int32), with sizes 1, odd and
// prime, up- and downsampling, a folded grid and bad arguments. Float16 for every op: nearest
// and pixel shuffle stay exact; bilinear (inputs rounded to float16 on the host, the reference
// on the rounded values, the blend in f32) gets 1e-6 plus one rounding of the result to float16
// (half_close: 2^-11 relative, 2^-24 absolute).
#include <cmath>
#include <string>

#include "half_test_util.h"
#include "test_util.h"

namespace wgx::test {
namespace {

using Ints = std::vector<int64_t>;

struct ResizeCase {
    std::string name;
    Shape x;
    Ints size;                   // empty: scales given
    std::vector<double> scales;  // empty: size given
};
void PrintTo(const ResizeCase& c, std::ostream* os) { *os << c.name; }

// The output side: the given size, or floor(in * scale).
int64_t out_side(const ResizeCase& c, int d) {
    int64_t in = c.x[2 + d];
    return c.size.empty() ? int64_t(double(in) * c.scales[d]) : c.size[d];
}

// PyTorch's compute_scales_value<float>.
float ratio(const ResizeCase& c, int d, int64_t in, int64_t out) {
    if (!c.scales.empty()) return float(1.0 / c.scales[d]);
    return float(in) / float(out);
}

// PyTorch's nearest_idx: shortcuts for equal and doubled sizes, else floor(dst * ratio) in
// float32, capped at in - 1.
int64_t nearest_src(int64_t dst, int64_t in, int64_t out, float r) {
    if (out == in) return dst;
    if (out == 2 * in) return dst / 2;
    return std::min<int64_t>(int64_t(std::floor(float(dst) * r)), in - 1);
}

Arg size_arg(const ResizeCase& c) { return c.size.empty() ? Arg(std::nullopt) : Arg(c.size); }
Arg scales_arg(const ResizeCase& c) { return c.scales.empty() ? Arg(std::nullopt) : Arg(c.scales); }

const std::vector<ResizeCase>& cases() {
    static const std::vector<ResizeCase> c = {
        {"one_to_one", {1, 1, 1, 1}, {1, 1}, {}},
        {"one_to_many", {1, 2, 1, 1}, {3, 5}, {}},
        {"double", {2, 3, 5, 7}, {10, 14}, {}},
        {"size_odd", {1, 2, 7, 5}, {13, 11}, {}},
        {"size_down", {1, 3, 13, 17}, {5, 7}, {}},
        {"size_mixed", {2, 1, 6, 11}, {9, 4}, {}},
        {"scale_2", {1, 3, 5, 7}, {}, {2.0, 2.0}},
        // Scales whose 1 / scale ratio differs from in / out in some rows and columns.
        {"scale_1_3_and_0_7", {1, 2, 5, 7}, {}, {1.3, 0.7}},
        {"scale_1_7_and_2_6", {2, 1, 4, 6}, {}, {1.7, 2.6}},
        {"scale_1_45", {1, 1, 6, 4}, {}, {1.45, 1.45}},
    };
    return c;
}

class ResizeNearest : public ::testing::TestWithParam<ResizeCase> {};

std::vector<float> nearest_reference(const ResizeCase& c, const std::vector<float>& x) {
    const int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3];
    const int64_t Ho = out_side(c, 0), Wo = out_side(c, 1);
    std::vector<float> want(N * C * Ho * Wo);
    const float rh = ratio(c, 0, H, Ho), rw = ratio(c, 1, W, Wo);
    for (int64_t p = 0; p < N * C; ++p)
        for (int64_t y = 0; y < Ho; ++y)
            for (int64_t xx = 0; xx < Wo; ++xx)
                want[(p * Ho + y) * Wo + xx] =
                    x[(p * H + nearest_src(y, H, Ho, rh)) * W + nearest_src(xx, W, Wo, rw)];
    return want;
}

Shape out_shape(const ResizeCase& c) { return {c.x[0], c.x[1], out_side(c, 0), out_side(c, 1)}; }

TEST_P(ResizeNearest, IsExact) {
    const ResizeCase& c = GetParam();
    auto x = random_floats(numel(c.x), 301);
    std::vector<float> want = nearest_reference(c, x);
    Tensor tx = ctx().tensor(DType::f32, c.x).set_data(x);
    Tensor out = ctx().tensor(DType::f32, out_shape(c));
    poison(out);
    ctx().reset();
    ctx().record(op("aten.upsample_nearest2d.vec"), {tx, size_arg(c), scales_arg(c), out});
    ctx().submit();
    EXPECT_EQ(out.get_data<float>(), want);
    ctx().reset();
}

TEST_P(ResizeNearest, Float16IsExact) {
    const ResizeCase& c = GetParam();
    auto x = round_to_half(random_floats(numel(c.x), 302));
    Tensor tx = half_tensor(c.x, x);
    Tensor out = half_output(out_shape(c));
    ctx().reset();
    ctx().record(op("aten.upsample_nearest2d.vec"), {tx, size_arg(c), scales_arg(c), out});
    ctx().submit();
    EXPECT_EQ(read_half(out), nearest_reference(c, x));
    ctx().reset();
}

INSTANTIATE_TEST_SUITE_P(Resize, ResizeNearest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

TEST(ResizeNearest, ScaleRuleDiffersFromSizeRule) {
    // Guards the cases above: PyTorch's 1 / scale picks other rows than in / out would.
    int diffs = 0;
    for (const auto& c : cases()) {
        if (c.scales.empty()) continue;
        for (int d = 0; d < 2; ++d) {
            int64_t in = c.x[2 + d], out = out_side(c, d);
            for (int64_t i = 0; i < out; ++i)
                diffs += nearest_src(i, in, out, ratio(c, d, in, out)) !=
                         nearest_src(i, in, out, float(in) / float(out));
        }
    }
    EXPECT_GE(diffs, 4);
}

TEST(ResizeNearest, IntegerDataIsExact) {
    ResizeCase c{"int", {1, 2, 3, 5}, {7, 8}, {}};
    auto x = random_ints(numel(c.x), 311, -1000, 1000);
    Tensor tx = ctx().tensor(DType::i32, c.x).set_data(x);
    Tensor out = ctx().tensor(DType::i32, {1, 2, 7, 8});
    out.set_data(std::vector<int32_t>(2 * 7 * 8, -12345));
    ctx().reset();
    ctx().record(op("aten.upsample_nearest2d.vec"), {tx, size_arg(c), std::nullopt, out});
    ctx().submit();
    auto got = out.get_data<int32_t>();
    for (int64_t p = 0; p < 2; ++p)
        for (int64_t y = 0; y < 7; ++y)
            for (int64_t xx = 0; xx < 8; ++xx)
                ASSERT_EQ(got[(p * 7 + y) * 8 + xx],
                          x[(p * 3 + nearest_src(y, 3, 7, 3.f / 7.f)) * 5 +
                            nearest_src(xx, 5, 8, 5.f / 8.f)]);
    ctx().reset();
}

// Bilinear reference: source index and weight in float32 exactly as PyTorch computes them,
// the blend in float64.
struct Lin {
    int64_t i0, i1;
    double l1;
};

Lin linear_src(int64_t dst, int64_t in, int64_t out, bool align_corners, float r) {
    float src;
    if (align_corners) {
        float scale = out > 1 ? float(in - 1) / float(out - 1) : 0.f;
        src = scale * float(dst);
    } else {
        src = std::max(r * (float(dst) + 0.5f) - 0.5f, 0.f);
    }
    int64_t i0 = std::min<int64_t>(int64_t(std::floor(src)), in - 1);
    double l1 = std::min(std::max(double(src - float(i0)), 0.0), 1.0);
    return {i0, i0 < in - 1 ? i0 + 1 : i0, l1};
}

struct BilinearCase {
    ResizeCase c;
    bool align_corners;
};
void PrintTo(const BilinearCase& c, std::ostream* os) {
    *os << c.c.name << (c.align_corners ? " align_corners" : " half_pixel");
}

class ResizeBilinear : public ::testing::TestWithParam<BilinearCase> {};

std::vector<double> bilinear_reference(const ResizeCase& c, bool ac, const std::vector<float>& x) {
    const int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3];
    const int64_t Ho = out_side(c, 0), Wo = out_side(c, 1);
    std::vector<double> want(N * C * Ho * Wo);
    const float rh = ratio(c, 0, H, Ho), rw = ratio(c, 1, W, Wo);
    for (int64_t p = 0; p < N * C; ++p)
        for (int64_t y = 0; y < Ho; ++y)
            for (int64_t xx = 0; xx < Wo; ++xx) {
                Lin ly = linear_src(y, H, Ho, ac, rh), lx = linear_src(xx, W, Wo, ac, rw);
                auto at = [&](int64_t iy, int64_t ix) { return double(x[(p * H + iy) * W + ix]); };
                double top = (1 - lx.l1) * at(ly.i0, lx.i0) + lx.l1 * at(ly.i0, lx.i1);
                double bottom = (1 - lx.l1) * at(ly.i1, lx.i0) + lx.l1 * at(ly.i1, lx.i1);
                want[(p * Ho + y) * Wo + xx] = (1 - ly.l1) * top + ly.l1 * bottom;
            }
    return want;
}

TEST_P(ResizeBilinear, MatchesFloat64Reference) {
    const ResizeCase& c = GetParam().c;
    const bool ac = GetParam().align_corners;
    auto x = random_floats(numel(c.x), 321);
    Tensor tx = ctx().tensor(DType::f32, c.x).set_data(x);
    Tensor out = ctx().tensor(DType::f32, out_shape(c));
    poison(out);
    ctx().reset();
    ctx().record(op("aten.upsample_bilinear2d.vec"), {tx, size_arg(c), ac, scales_arg(c), out});
    ctx().submit();
    EXPECT_LE(max_rel_error(out.get_data<float>(), bilinear_reference(c, ac, x)), 1e-6);
    ctx().reset();
}

TEST_P(ResizeBilinear, Float16MatchesFloat64Reference) {
    const ResizeCase& c = GetParam().c;
    const bool ac = GetParam().align_corners;
    auto x = round_to_half(random_floats(numel(c.x), 322));
    Tensor tx = half_tensor(c.x, x);
    Tensor out = half_output(out_shape(c));
    ctx().reset();
    ctx().record(op("aten.upsample_bilinear2d.vec"), {tx, size_arg(c), ac, scales_arg(c), out});
    ctx().submit();
    auto got = read_half(out);
    auto want = bilinear_reference(c, ac, x);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_TRUE(half_close(got[i], want[i], 1e-6 * std::max(1.0, std::abs(want[i]))))
            << "at " << i << ": got " << got[i] << " want " << want[i];
    }
    ctx().reset();
}

std::vector<BilinearCase> bilinear_cases() {
    std::vector<BilinearCase> v;
    for (const auto& c : cases()) {
        v.push_back({c, false});
        v.push_back({c, true});
    }
    return v;
}

INSTANTIATE_TEST_SUITE_P(Resize, ResizeBilinear, ::testing::ValuesIn(bilinear_cases()),
                         [](const auto& info) {
                             return info.param.c.name +
                                    (info.param.align_corners ? "_align_corners" : "_half_pixel");
                         });

TEST(ResizeBilinear, ScaleFactorRatioIsOneOverScale) {
    // in 5 -> out 6 with scale 1.3: the ratio is 1 / 1.3, not 5 / 6. Row 5 (half-pixel):
    // 0.76923 * 5.5 - 0.5 = 3.73 (i0 3, weight 0.73) rather than 4.08.
    Tensor tx = ctx().tensor(DType::f32, {1, 1, 5, 1}).set_data({0.f, 10.f, 20.f, 30.f, 40.f});
    Tensor out = ctx().tensor(DType::f32, {1, 1, 6, 1});
    ctx().reset();
    ctx().record(op("aten.upsample_bilinear2d.vec"),
                 {tx, std::nullopt, false, std::vector<double>{1.3, 1.0}, out});
    ctx().submit();
    double want = 10.0 * (float(1.0 / 1.3) * 5.5f - 0.5f);
    EXPECT_NEAR(out.get_data<float>()[5], want, 1e-4);
    ctx().reset();
}

struct ShuffleCase {
    std::string name;
    Shape x;
    int64_t r;
};
void PrintTo(const ShuffleCase& c, std::ostream* os) { *os << c.name; }

class ResizePixelShuffle : public ::testing::TestWithParam<ShuffleCase> {};

TEST_P(ResizePixelShuffle, IsExact) {
    const ShuffleCase& c = GetParam();
    const int rank = int(c.x.size());
    const int64_t r = c.r, C = c.x[rank - 3] / (r * r), H = c.x[rank - 2], W = c.x[rank - 1];
    const int64_t batch = numel(c.x) / (C * r * r * H * W);
    Shape os = c.x;
    os[rank - 3] = C, os[rank - 2] = H * r, os[rank - 1] = W * r;
    for (DType dt : {DType::f32, DType::f16, DType::i32}) {
        std::vector<float> xf = random_floats(numel(c.x), 331);
        std::vector<int32_t> xi = random_ints(numel(c.x), 332, -100000, 100000);
        Tensor tx = ctx().tensor(dt, c.x);
        Tensor out = ctx().tensor(dt, os);
        if (dt == DType::f32) {
            tx.set_data(xf);
            poison(out);
        } else if (dt == DType::f16) {
            xf = round_to_half(xf);
            tx = half_tensor(c.x, xf);
            out = half_output(os);
        } else {
            tx.set_data(xi);
            out.set_data(std::vector<int32_t>(numel(os), -1));
        }
        ctx().reset();
        ctx().record(op("aten.pixel_shuffle.default"), {tx, r, out});
        ctx().submit();
        std::vector<float> gf;
        std::vector<int32_t> gi;
        if (dt == DType::f32)
            gf = out.get_data<float>();
        else if (dt == DType::f16)
            gf = read_half(out);
        else
            gi = out.get_data<int32_t>();
        for (int64_t b = 0; b < batch; ++b)
            for (int64_t ch = 0; ch < C; ++ch)
                for (int64_t y = 0; y < H * r; ++y)
                    for (int64_t xx = 0; xx < W * r; ++xx) {
                        int64_t src =
                            ((b * C * r * r + ch * r * r + (y % r) * r + xx % r) * H + y / r) * W +
                            xx / r;
                        int64_t dst = ((b * C + ch) * H * r + y) * W * r + xx;
                        if (dt != DType::i32) {
                            ASSERT_EQ(gf[dst], xf[src])
                                << c.name << " " << dtype_name(dt) << " " << dst;
                        } else {
                            ASSERT_EQ(gi[dst], xi[src]) << c.name << " " << dst;
                        }
                    }
        ctx().reset();
    }
}

INSTANTIATE_TEST_SUITE_P(Resize, ResizePixelShuffle,
                         ::testing::Values(ShuffleCase{"r1", {1, 3, 5, 7}, 1},
                                           ShuffleCase{"r2", {2, 8, 3, 5}, 2},
                                           ShuffleCase{"r3_odd", {1, 18, 7, 1}, 3},
                                           ShuffleCase{"r2_one_pixel", {1, 4, 1, 1}, 2},
                                           ShuffleCase{"rank3", {12, 5, 3}, 2},
                                           ShuffleCase{"rank5", {2, 3, 9, 2, 3}, 3}),
                         [](const auto& info) { return info.param.name; });

TEST(ResizeNearest, GridLargeEnoughToFold) {
    // One thread per output in workgroups of at most 128: more outputs than
    // max_workgroups_per_dimension * 128 force a 2-D grid.
    const uint64_t limit = ctx().device_info().limits.max_workgroups_per_dimension;
    const int64_t W = 2053;
    const int64_t H = int64_t((limit * 128) / (4 * W) + 2);
    ASSERT_GT(uint64_t(4 * H * W), limit * 128);
    auto x = random_floats(H * W, 341);
    Tensor tx = ctx().tensor(DType::f32, {1, 1, H, W}).set_data(x);
    Tensor out = ctx().tensor(DType::f32, {1, 1, 2 * H, 2 * W});
    poison(out);
    ctx().reset();
    ctx().record(op("aten.upsample_nearest2d.vec"),
                 {tx, std::nullopt, std::vector<double>{2.0, 2.0}, out});
    ctx().submit();
    auto got = out.get_data<float>();
    for (int64_t y = 0; y < 2 * H; ++y)
        for (int64_t xx = 0; xx < 2 * W; ++xx) {
            float want = x[(y / 2) * W + xx / 2];
            if (got[y * 2 * W + xx] != want) FAIL() << "at " << y << ", " << xx;
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

TEST(ResizeValidation, RejectsBadArguments) {
    const char* nn = "aten.upsample_nearest2d.vec";
    const char* bl = "aten.upsample_bilinear2d.vec";
    Tensor x = ctx().tensor(DType::f32, {1, 2, 5, 7});
    Tensor out = ctx().tensor(DType::f32, {1, 2, 10, 14});
    const Ints size{10, 14};
    const std::vector<double> scales{2.0, 2.0};
    // Output shape against output_size and against scale_factors.
    expect_rejected(nn, {x, Ints{10, 15}, std::nullopt, out}, {"out", "[1, 2, 10, 15]"});
    expect_rejected(bl, {x, std::nullopt, false, std::vector<double>{2.0, 2.5}, out},
                    {"[1, 2, 10, 17]"});
    // Both or neither of output_size and scale_factors.
    expect_rejected(nn, {x, size, scales, out}, {"exactly one"});
    expect_rejected(bl, {x, std::nullopt, true, std::nullopt, out}, {"exactly one"});
    // Rank, dtype, bad scales.
    Tensor x3 = ctx().tensor(DType::f32, {2, 5, 7});
    expect_rejected(nn, {x3, size, std::nullopt, out}, {"input", "[2, 5, 7]"});
    Tensor xi = ctx().tensor(DType::i32, {1, 2, 5, 7});
    Tensor oi = ctx().tensor(DType::i32, {1, 2, 10, 14});
    expect_rejected(bl, {xi, size, false, std::nullopt, oi}, {"int32"});
    expect_rejected(nn, {x, size, std::nullopt, oi}, {"out", "int32"});
    expect_rejected(nn, {x, std::nullopt, std::vector<double>{-2.0, 2.0}, out}, {"scale_factors"});
    // Pixel shuffle: channels not divisible by r^2, wrong output shape, rank.
    Tensor ps = ctx().tensor(DType::f32, {1, 8, 3, 3});
    Tensor pso = ctx().tensor(DType::f32, {1, 2, 6, 6});
    expect_rejected("aten.pixel_shuffle.default", {ps, int64_t(3), pso}, {"divisible"});
    expect_rejected("aten.pixel_shuffle.default", {ps, int64_t(2), out}, {"[1, 2, 6, 6]"});
    Tensor ps2 = ctx().tensor(DType::f32, {8, 3});
    expect_rejected("aten.pixel_shuffle.default", {ps2, int64_t(2), pso}, {"self"});
}

}  // namespace
}  // namespace wgx::test
