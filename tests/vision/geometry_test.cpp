// Where a photo lands in the model input (stretch, letterbox) and the way back for boxes and
// maps, with hand-computed numbers.
#include <gtest/gtest.h>

#include "vision/geometry.h"
#include "wgx/error.h"

namespace wgx::vision {
namespace {

InputSpec spec(int w, int h, ResizeMode mode) {
    InputSpec s;
    s.width = w;
    s.height = h;
    s.resize = mode;
    return s;
}

TEST(Geometry, LetterboxOfALandscapePhoto) {
    // 768x576 into 416x416: s = 416/768, 576 * s = 312 rows, centred 52 rows down.
    InputGeometry g = compute_geometry(spec(416, 416, ResizeMode::letterbox), 768, 576);
    EXPECT_EQ(g.placed_width, 416);
    EXPECT_EQ(g.placed_height, 312);
    EXPECT_EQ(g.offset_x, 0);
    EXPECT_EQ(g.offset_y, 52);
    Box whole = g.to_photo(Box{0, 52, 416, 364});
    EXPECT_DOUBLE_EQ(whole.x1, 0);
    EXPECT_DOUBLE_EQ(whole.y1, 0);
    EXPECT_DOUBLE_EQ(whole.x2, 768);
    EXPECT_DOUBLE_EQ(whole.y2, 576);
    Box b = g.to_photo(Box{104, 156, 208, 260});
    EXPECT_NEAR(b.x1, 192, 1e-9);
    EXPECT_NEAR(b.y1, 192, 1e-9);
    EXPECT_NEAR(b.x2, 384, 1e-9);
    EXPECT_NEAR(b.y2, 384, 1e-9);
    // Boxes reaching into the padding are clamped to the photo.
    Box c = g.to_photo(Box{-10, 0, 500, 416});
    EXPECT_DOUBLE_EQ(c.x1, 0);
    EXPECT_DOUBLE_EQ(c.y1, 0);
    EXPECT_DOUBLE_EQ(c.x2, 768);
    EXPECT_DOUBLE_EQ(c.y2, 576);
}

TEST(Geometry, LetterboxOfAPortraitPhotoCentresColumns) {
    // 30x90 into 64x48: s = min(48/90, 64/30) = 0.5333: 16x48 placed at column 24.
    InputGeometry g = compute_geometry(spec(64, 48, ResizeMode::letterbox), 30, 90);
    EXPECT_EQ(g.placed_width, 16);
    EXPECT_EQ(g.placed_height, 48);
    EXPECT_EQ(g.offset_x, 24);
    EXPECT_EQ(g.offset_y, 0);
}

TEST(Geometry, LetterboxRoundsHalfToEvenLikePython) {
    // 4x5 photo into 2x100: s = 0.5, 5 * s = 2.5 -> 2 (Python's round), not 3.
    InputGeometry g = compute_geometry(spec(2, 100, ResizeMode::letterbox), 4, 5);
    EXPECT_EQ(g.placed_width, 2);
    EXPECT_EQ(g.placed_height, 2);
    EXPECT_EQ(g.offset_y, 49);
}

TEST(Geometry, StretchMapsBoxesByTheAxisRatios) {
    InputGeometry g = compute_geometry(spec(320, 320, ResizeMode::stretch), 640, 480);
    EXPECT_EQ(g.placed_width, 320);
    EXPECT_EQ(g.placed_height, 320);
    Box b = g.to_photo(Box{32, 32, 64, 64});
    EXPECT_DOUBLE_EQ(b.x1, 64);
    EXPECT_DOUBLE_EQ(b.y1, 48);
    EXPECT_DOUBLE_EQ(b.x2, 128);
    EXPECT_DOUBLE_EQ(b.y2, 96);
}

TEST(Geometry, PhotoToMapUndoesTheLetterboxAndTheMapScale) {
    InputGeometry g = compute_geometry(spec(416, 416, ResizeMode::letterbox), 768, 576);
    MapSampling m = g.photo_to_map(208, 208);  // a half-resolution map
    EXPECT_NEAR(m.ax, 416.0 / 768 * 0.5, 1e-12);
    EXPECT_NEAR(m.bx, 0, 1e-12);
    EXPECT_NEAR(m.ay, 312.0 / 576 * 0.5, 1e-12);
    EXPECT_NEAR(m.by, 26, 1e-12);
    // The photo's first row centre lands at input row 52 + 0.5 * 312/576, i.e. map row
    // (52 + 0.2708) / 2 - 0.5.
    double map_y = (0 + 0.5) * m.ay + m.by - 0.5;
    EXPECT_NEAR(map_y, (52 + 0.5 * 312.0 / 576) / 2 - 0.5, 1e-12);
}

TEST(Geometry, IouOfKnownBoxes) {
    EXPECT_DOUBLE_EQ(iou(Box{0, 0, 10, 10}, Box{0, 0, 10, 10}), 1.0);
    EXPECT_DOUBLE_EQ(iou(Box{0, 0, 10, 10}, Box{5, 0, 15, 10}), 50.0 / 150.0);
    EXPECT_DOUBLE_EQ(iou(Box{0, 0, 10, 10}, Box{10, 0, 20, 10}), 0.0);  // touching
    EXPECT_DOUBLE_EQ(iou(Box{0, 0, 0, 10}, Box{0, 0, 0, 10}), 0.0);     // empty
}

TEST(Geometry, EmptyPhotoIsAnError) {
    EXPECT_THROW(compute_geometry(spec(8, 8, ResizeMode::stretch), 0, 5), InvalidArgument);
}

}  // namespace
}  // namespace wgx::vision
