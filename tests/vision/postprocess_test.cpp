// The GPU post-processing ops against CPU references: exact percentiles (numpy's linear
// definition) on data with ties and negatives, the depth colour map, the mask composite, for
// stretch and letterbox geometry and maps smaller than the photo.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "vision/depth_colormap_op.h"
#include "vision/geometry.h"
#include "vision/mask_composite_op.h"
#include "vision/percentile_op.h"
#include "vision_test_util.h"

namespace wgx::vision {
namespace {

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const double pos = double(v.size() - 1) * p / 100.0;
    const size_t k = size_t(std::floor(pos));
    const size_t k1 = std::min(k + 1, v.size() - 1);
    return v[k] + (v[k1] - v[k]) * (pos - double(k));
}

std::array<float, 2> gpu_percentiles(const std::vector<float>& values, Shape shape, double lo,
                                     double hi) {
    Context& ctx = test::ctx();
    ctx.reset();
    PercentileOp op(lo, hi);
    Tensor in = ctx.tensor(DType::f32, shape).set_data(values);
    Tensor out = ctx.tensor(DType::f32, {2}).set_data({NAN, NAN});
    ctx.record(op, {in, out});
    ctx.submit();
    std::vector<float> r = out.get_data<float>();
    ctx.reset();
    return {r[0], r[1]};
}

void check_percentiles(const std::vector<float>& values, Shape shape, double lo, double hi) {
    std::vector<double> d(values.begin(), values.end());
    double scale = 1;
    for (double v : d) scale = std::max(scale, std::abs(v));
    auto got = gpu_percentiles(values, std::move(shape), lo, hi);
    // The order statistics are exact; only the final float32 interpolation rounds.
    EXPECT_NEAR(got[0], percentile(d, lo), 1e-6 * scale) << "low percentile " << lo;
    EXPECT_NEAR(got[1], percentile(d, hi), 1e-6 * scale) << "high percentile " << hi;
}

TEST(Percentiles, RandomMapMatchesNumpyDefinition) {
    std::mt19937 gen(11);
    std::normal_distribution<float> normal(3.f, 40.f);
    std::vector<float> v(37 * 53);
    for (auto& x : v) x = normal(gen);
    check_percentiles(v, {1, 1, 37, 53}, 2, 98);
    check_percentiles(v, {1, 1, 37, 53}, 0, 100);
    check_percentiles(v, {1, 1, 37, 53}, 10.5, 99.9);
    check_percentiles(v, {1, 1, 37, 53}, 50, 50);
}

TEST(Percentiles, TiesNegativesAndSignedZeros) {
    std::mt19937 gen(3);
    std::uniform_int_distribution<int> small(-3, 3);
    std::vector<float> v(1001);
    for (auto& x : v) x = float(small(gen)) * 0.5f;
    v[7] = -0.0f;
    check_percentiles(v, {1001}, 2, 98);
    check_percentiles(v, {1001}, 25, 75);
    check_percentiles(v, {1001}, 0, 100);
}

TEST(Percentiles, OneElementAndTinyMagnitudes) {
    check_percentiles({-2.5f}, {1}, 2, 98);
    std::vector<float> tiny{1e-30f, -1e-30f, 3e-38f, 2e-38f, 0.f, 1e-37f, -5e-38f};
    auto got = gpu_percentiles(tiny, {7}, 0, 100);
    EXPECT_EQ(got[0], -1e-30f);  // exact min and max, bit for bit
    EXPECT_EQ(got[1], 1e-30f);
}

TEST(Percentiles, LargeInputUsesManyWorkgroups) {
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> u(-1e4f, 1e4f);
    std::vector<float> v(448 * 640);
    for (auto& x : v) x = u(gen);
    check_percentiles(v, {1, 1, 448, 640}, 2, 98);
}

TEST(Percentiles, BadArgumentsAreErrors) {
    EXPECT_THROW(PercentileOp(50, 10), InvalidArgument);
    EXPECT_THROW(PercentileOp(-1, 10), InvalidArgument);
    Context& ctx = test::ctx();
    ctx.reset();
    PercentileOp op(2, 98);
    Tensor ints = ctx.tensor(DType::i32, {4});
    Tensor out = ctx.tensor(DType::f32, {2});
    EXPECT_THROW(ctx.record(op, {ints, out}), InvalidArgument);
    ctx.reset();
}

// Bilinear sample of a [mh, mw] plane at a clamped position, in double.
double sample(const std::vector<float>& map, size_t plane_offset, int mw, int mh, double x,
              double y) {
    x = std::clamp(x, 0.0, double(mw - 1));
    y = std::clamp(y, 0.0, double(mh - 1));
    int x0 = int(x), y0 = int(y);
    int x1 = std::min(x0 + 1, mw - 1), y1 = std::min(y0 + 1, mh - 1);
    double fx = x - x0, fy = y - y0;
    auto at = [&](int xx, int yy) { return double(map[plane_offset + size_t(yy) * mw + xx]); };
    double top = at(x0, y0) * (1 - fx) + at(x1, y0) * fx;
    double bottom = at(x0, y1) * (1 - fx) + at(x1, y1) * fx;
    return top * (1 - fy) + bottom * fy;
}

InputSpec spec(int w, int h, ResizeMode mode) {
    InputSpec s;
    s.width = w;
    s.height = h;
    s.resize = mode;
    return s;
}

struct MapCase {
    int photo_w, photo_h, in_w, in_h, map_w, map_h;
    ResizeMode mode;
};

const MapCase kMapCases[] = {
    {29, 19, 16, 12, 8, 6, ResizeMode::stretch},
    {41, 23, 32, 32, 16, 16, ResizeMode::letterbox},
    {9, 31, 24, 20, 24, 20, ResizeMode::letterbox},
};

TEST(DepthColormap, MatchesCpuReference) {
    for (const MapCase& c : kMapCases) {
        for (bool far : {true, false}) {
            SCOPED_TRACE(::testing::Message() << c.photo_w << "x" << c.photo_h << " far=" << far);
            std::mt19937 gen(uint32_t(c.photo_w + c.map_w));
            std::uniform_real_distribution<float> u(0.5f, 20.f);
            std::vector<float> map(size_t(c.map_w) * c.map_h);
            for (auto& v : map) v = u(gen);
            const float lo = 4.f, hi = 15.f;  // values outside clamp to the ends of the ramp
            const InputSpec s = spec(c.in_w, c.in_h, c.mode);
            Context& ctx = test::ctx();
            ctx.reset();
            DepthColormapOp op(s, far);
            Tensor m = ctx.tensor(DType::f32, {1, 1, c.map_h, c.map_w}).set_data(map);
            Tensor range = ctx.tensor(DType::f32, {2}).set_data({lo, hi});
            Tensor out = ctx.tensor(DType::u8, {c.photo_h, c.photo_w, 4});
            ctx.record(op, {m, range, out});
            ctx.submit();
            std::vector<uint8_t> got = out.get_data<uint8_t>();
            ctx.reset();

            const MapSampling ms =
                compute_geometry(s, c.photo_w, c.photo_h).photo_to_map(c.map_w, c.map_h);
            int worst = 0;
            for (int y = 0; y < c.photo_h; ++y)
                for (int x = 0; x < c.photo_w; ++x) {
                    double v = sample(map, 0, c.map_w, c.map_h, (x + 0.5) * ms.ax + ms.bx - 0.5,
                                      (y + 0.5) * ms.ay + ms.by - 0.5);
                    double t = std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
                    auto rgb = DepthColormapOp::ramp(far ? 1 - t : t);
                    const uint8_t* p = &got[(size_t(y) * c.photo_w + x) * 4];
                    for (int k = 0; k < 3; ++k)
                        worst = std::max(worst, int(std::abs(p[k] - std::lround(rgb[k]))));
                    EXPECT_EQ(p[3], 255);
                }
            EXPECT_LE(worst, 1);  // float32 vs double rounding of the colour
        }
    }
}

TEST(MaskComposite, MatchesCpuReference) {
    for (const MapCase& c : kMapCases) {
        for (bool logit : {false, true}) {
            SCOPED_TRACE(::testing::Message()
                         << c.photo_w << "x" << c.photo_h << " logit=" << logit);
            const int channels = 2, channel = 1;
            std::mt19937 gen(uint32_t(c.photo_h + c.map_h));
            std::uniform_real_distribution<float> u(logit ? -6.f : 0.f, logit ? 6.f : 1.f);
            std::vector<float> map(size_t(channels) * c.map_w * c.map_h);
            for (auto& v : map) v = u(gen);
            const Image photo = test::random_photo(c.photo_w, c.photo_h, 17);
            const InputSpec s = spec(c.in_w, c.in_h, c.mode);
            SegmentDecode d;
            d.logit = logit;
            d.channel = channel;
            MaskStyle style;
            style.colour = {10, 220, 90};
            style.tint = 0.3f;
            style.background = 0.4f;
            Context& ctx = test::ctx();
            ctx.reset();
            MaskCompositeOp op(s, d, style);
            Tensor ph = ctx.tensor(DType::u8, {c.photo_h, c.photo_w, 3})
                            .set_data(std::span<const uint8_t>(photo.pixels));
            Tensor m = ctx.tensor(DType::f32, {1, channels, c.map_h, c.map_w}).set_data(map);
            Tensor out = ctx.tensor(DType::u8, {c.photo_h, c.photo_w, 4});
            ctx.record(op, {ph, m, out});
            ctx.submit();
            std::vector<uint8_t> got = out.get_data<uint8_t>();
            ctx.reset();

            const MapSampling ms =
                compute_geometry(s, c.photo_w, c.photo_h).photo_to_map(c.map_w, c.map_h);
            const size_t plane = size_t(c.map_w) * c.map_h;
            int worst = 0;
            for (int y = 0; y < c.photo_h; ++y)
                for (int x = 0; x < c.photo_w; ++x) {
                    double v =
                        sample(map, channel * plane, c.map_w, c.map_h,
                               (x + 0.5) * ms.ax + ms.bx - 0.5, (y + 0.5) * ms.ay + ms.by - 0.5);
                    if (logit) v = 1 / (1 + std::exp(-v));
                    const double prob = std::clamp(v, 0.0, 1.0);
                    const uint8_t* in = photo.at(x, y);
                    const double grey =
                        (0.299 * in[0] + 0.587 * in[1] + 0.114 * in[2]) * style.background;
                    const uint8_t* p = &got[(size_t(y) * c.photo_w + x) * 4];
                    for (int k = 0; k < 3; ++k) {
                        double fg = in[k] * (1 - style.tint) + style.colour[k] * style.tint;
                        double want = grey * (1 - prob) + fg * prob;
                        worst = std::max(worst, int(std::abs(p[k] - std::lround(want))));
                    }
                    EXPECT_EQ(p[3], 255);
                }
            EXPECT_LE(worst, 1);
        }
    }
}

TEST(MaskComposite, ChannelOutsideTheMapIsAnError) {
    Context& ctx = test::ctx();
    ctx.reset();
    SegmentDecode d;
    d.channel = 2;
    MaskCompositeOp op(spec(8, 8, ResizeMode::stretch), d);
    Tensor ph = ctx.tensor(DType::u8, {4, 4, 3});
    Tensor m = ctx.tensor(DType::f32, {1, 2, 8, 8});
    Tensor out = ctx.tensor(DType::u8, {4, 4, 4});
    try {
        ctx.record(op, {ph, m, out});
        FAIL() << "no error";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("channel 2"), std::string::npos) << e.what();
    }
    ctx.reset();
}

}  // namespace
}  // namespace wgx::vision
