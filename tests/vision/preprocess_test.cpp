// vision.preprocess against a float64 CPU reference written straight from the card's
// definition (docs/MODEL_CARDS.md), on random photos of odd and prime sizes, shrinking and
// enlarging, stretch and letterbox, with non-trivial scale / mean / std / fill.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "vision/geometry.h"
#include "vision/preprocess_op.h"
#include "vision_test_util.h"

namespace wgx::vision {
namespace {

// Bilinear, half-pixel centres: src = (dst + 0.5) * in / out - 0.5, clamped to [0, in - 1].
struct Tap {
    int i0, i1;
    double w1;
};
Tap tap(int dst, int n_in, int n_out) {
    double src = (dst + 0.5) * double(n_in) / double(n_out) - 0.5;
    src = std::clamp(src, 0.0, double(n_in - 1));
    int i0 = int(std::floor(src));
    return Tap{i0, std::min(i0 + 1, n_in - 1), src - i0};
}

std::vector<double> reference(const Image& photo, const InputSpec& s) {
    const InputGeometry g = compute_geometry(s, photo.width, photo.height);
    const int H = s.height, W = s.width;
    std::vector<double> out(size_t(3) * H * W);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < 3; ++c) {
                double pixel;
                const int px = x - g.offset_x, py = y - g.offset_y;
                if (px < 0 || py < 0 || px >= g.placed_width || py >= g.placed_height) {
                    pixel = s.letterbox_fill[c];
                } else {
                    Tap tx = tap(px, photo.width, g.placed_width);
                    Tap ty = tap(py, photo.height, g.placed_height);
                    auto at = [&](int xx, int yy) { return double(photo.at(xx, yy)[c]); };
                    double top = (1 - tx.w1) * at(tx.i0, ty.i0) + tx.w1 * at(tx.i1, ty.i0);
                    double bottom = (1 - tx.w1) * at(tx.i0, ty.i1) + tx.w1 * at(tx.i1, ty.i1);
                    pixel = (1 - ty.w1) * top + ty.w1 * bottom;
                }
                out[(size_t(c) * H + y) * W + x] = (pixel * s.scale - s.mean[c]) / s.std[c];
            }
    return out;
}

InputSpec spec(int w, int h, ResizeMode mode) {
    InputSpec s;
    s.width = w;
    s.height = h;
    s.resize = mode;
    s.letterbox_fill = {114, 7, 250};
    s.scale = 1.0 / 255.0;
    s.mean = {0.485, 0.456, 0.406};
    s.std = {0.229, 0.224, 0.225};
    return s;
}

// Max |gpu - ref| over max(1, max |ref|).
double max_error(const std::vector<float>& got, const std::vector<double>& want) {
    EXPECT_EQ(got.size(), want.size());
    double scale = 1, err = 0;
    for (double w : want) scale = std::max(scale, std::abs(w));
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        if (!std::isfinite(got[i])) return INFINITY;
        err = std::max(err, std::abs(double(got[i]) - want[i]));
    }
    return err / scale;
}

struct Case {
    int photo_w, photo_h, in_w, in_h;
    ResizeMode mode;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.photo_w << "x" << c.photo_h << " -> " << c.in_w << "x" << c.in_h
        << (c.mode == ResizeMode::letterbox ? " letterbox" : " stretch");
}

class Preprocess : public ::testing::TestWithParam<Case> {};

TEST_P(Preprocess, MatchesFloat64Reference) {
    const Case c = GetParam();
    const InputSpec s = spec(c.in_w, c.in_h, c.mode);
    const Image photo =
        test::random_photo(c.photo_w, c.photo_h, uint32_t(c.photo_w * 131 + c.in_w));
    PreprocessOp op(s);
    Context& ctx = test::ctx();
    ctx.reset();
    Tensor image = ctx.tensor(DType::u8, {c.photo_h, c.photo_w, 3})
                       .set_data(std::span<const uint8_t>(photo.pixels));
    Tensor out = ctx.tensor(DType::f32, {1, 3, c.in_h, c.in_w});
    std::vector<float> nan(size_t(out.numel()), std::nanf(""));  // unwritten outputs show up
    out.set_data(nan);
    ctx.record(op, {image, out});
    ctx.submit();
    // Pixel values differ from float64 by float32 rounding of the weights and the blend
    // (about 255 * 2^-22); normalised, that is ~1e-6 of the range.
    EXPECT_LE(max_error(out.get_data<float>(), reference(photo, s)), 2e-6);
    ctx.reset();
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, Preprocess,
    ::testing::Values(Case{97, 61, 32, 24, ResizeMode::stretch},     // shrink
                      Case{13, 7, 40, 29, ResizeMode::stretch},      // enlarge
                      Case{31, 31, 31, 31, ResizeMode::stretch},     // same size
                      Case{1, 1, 5, 3, ResizeMode::stretch},         // one pixel
                      Case{101, 37, 48, 48, ResizeMode::letterbox},  // wide photo: rows padded
                      Case{23, 89, 40, 56, ResizeMode::letterbox},   // tall photo: columns padded
                      Case{17, 11, 53, 41, ResizeMode::letterbox},   // enlarged into the box
                      Case{60, 45, 32, 24, ResizeMode::letterbox}),  // same aspect: no padding
    [](const auto& info) {
        const Case& c = info.param;
        return std::string(c.mode == ResizeMode::letterbox ? "letterbox_" : "stretch_") +
               std::to_string(c.photo_w) + "x" + std::to_string(c.photo_h) + "_to_" +
               std::to_string(c.in_w) + "x" + std::to_string(c.in_h);
    });

TEST(PreprocessErrors, WrongTensorsAreNamed) {
    PreprocessOp op(spec(8, 8, ResizeMode::stretch));
    Context& ctx = test::ctx();
    ctx.reset();
    Tensor rgba = ctx.tensor(DType::u8, {4, 4, 4});
    Tensor good_in = ctx.tensor(DType::u8, {4, 4, 3});
    Tensor out = ctx.tensor(DType::f32, {1, 3, 8, 8});
    Tensor wrong_out = ctx.tensor(DType::f32, {1, 3, 8, 9});
    try {
        ctx.record(op, {rgba, out});
        FAIL() << "no error";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("vision.preprocess"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("[4, 4, 4]"), std::string::npos) << e.what();
    }
    try {
        ctx.record(op, {good_in, wrong_out});
        FAIL() << "no error";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("[1, 3, 8, 8]"), std::string::npos) << e.what();
    }
    ctx.reset();
}

}  // namespace
}  // namespace wgx::vision
