// Image files (stb): lossless round trips, RGBA input, clear errors for missing, foreign and
// truncated files; drawing boxes and text stays inside the picture.
#include <gtest/gtest.h>

#include <fstream>

#include "vision/draw.h"
#include "vision/image.h"
#include "vision_test_util.h"
#include "wgx/error.h"

namespace wgx::vision {
namespace {

std::vector<uint8_t> read_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
}

TEST(ImageFiles, PngRoundTripIsExact) {
    test::TempDir dir("wgx-image-test");
    Image img = test::random_photo(37, 23, 5);
    save_png(dir.path() / "a.png", img);
    Image back = load_image(dir.path() / "a.png");
    EXPECT_EQ(back.width, 37);
    EXPECT_EQ(back.height, 23);
    EXPECT_EQ(back.channels, 3);
    EXPECT_EQ(back.pixels, img.pixels);
}

TEST(ImageFiles, RgbaIsReadAsRgb) {
    test::TempDir dir("wgx-image-test");
    Image rgba(5, 4, 4);
    for (size_t i = 0; i < rgba.pixels.size(); ++i) rgba.pixels[i] = uint8_t(i * 7);
    save_png(dir.path() / "rgba.png", rgba);
    Image back = load_image(dir.path() / "rgba.png");
    EXPECT_EQ(back.channels, 3);
    EXPECT_EQ(back.pixels, to_rgb(rgba).pixels);
}

TEST(ImageFiles, BadFilesGiveClearErrors) {
    test::TempDir dir("wgx-image-test");
    auto expect_error = [](const std::filesystem::path& p, const std::string& part) {
        try {
            load_image(p);
            ADD_FAILURE() << "no error for " << p;
        } catch (const InvalidArgument& e) {
            std::string m = e.what();
            EXPECT_NE(m.find(p.string()), std::string::npos) << m;
            EXPECT_NE(m.find(part), std::string::npos) << m;
        }
    };
    expect_error(dir.path() / "absent.jpg", "cannot open");
    std::ofstream(dir.path() / "text.png") << "hello, not an image";
    expect_error(dir.path() / "text.png", "not a readable image");
    std::ofstream(dir.path() / "empty.png");
    expect_error(dir.path() / "empty.png", "empty");

    save_png(dir.path() / "whole.png", test::random_photo(64, 64, 9));
    std::vector<uint8_t> bytes = read_bytes(dir.path() / "whole.png");
    bytes.resize(bytes.size() / 2);
    try {
        decode_image(bytes, "half.png");
        ADD_FAILURE() << "no error for a truncated PNG";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("half.png"), std::string::npos) << e.what();
    }
}

TEST(ImageFiles, HugeSizesAreRefused) {
    EXPECT_THROW(Image(kMaxImageSide + 1, 1, 3), InvalidArgument);
    EXPECT_THROW(Image(4, 4, 2), InvalidArgument);
}

TEST(Drawing, BoxOutlineAndClipping) {
    Image img(20, 10, 3);
    draw_box(img, Box{2, 2, 8, 7}, Rgb{255, 0, 0}, 1);
    EXPECT_EQ(img.at(2, 2)[0], 255);  // corner
    EXPECT_EQ(img.at(7, 6)[0], 255);  // opposite corner (x2, y2 exclusive)
    EXPECT_EQ(img.at(5, 2)[0], 255);  // top edge
    EXPECT_EQ(img.at(5, 4)[0], 0);    // inside stays
    EXPECT_EQ(img.at(8, 4)[0], 0);    // right of the box
    draw_box(img, Box{-50, -50, 500, 500}, Rgb{0, 255, 0}, 3);  // clipped, no crash
    EXPECT_EQ(img.at(0, 0)[1], 0);                              // the edges are outside the picture
}

TEST(Drawing, TextCoversItsMeasuredBox) {
    Image img(120, 40, 3);
    const auto [w, h] = text_size("dog 0.91", 2);
    ASSERT_GT(w, 0);
    ASSERT_GT(h, 0);
    draw_text(img, 3, 4, "dog 0.91", Rgb{255, 255, 255}, 2);
    int inside = 0, outside = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            if (img.at(x, y)[0] == 0) continue;
            bool in = x >= 3 && x < 3 + w && y >= 4 && y < 4 + h;
            (in ? inside : outside)++;
        }
    EXPECT_GT(inside, 20);
    EXPECT_EQ(outside, 0);
}

TEST(Drawing, TagsOfOverlappingDetectionsStayVisible) {
    // Two detections with the same box: the weaker one's outline is hidden under the stronger
    // one's, so its colour shows only if its tag was moved off the stronger one's tag.
    ModelCard card;
    card.labels = {"cat", "dog"};
    Image img(200, 150, 3);
    const Box box{50, 60, 150, 140};
    draw_detections(img, {{0, 0.9, box}, {1, 0.8, box}}, card);
    const Rgb weak = class_colour(1);
    int weak_pixels = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            if (img.at(x, y)[0] == weak[0] && img.at(x, y)[1] == weak[1] &&
                img.at(x, y)[2] == weak[2])
                ++weak_pixels;
    const auto [tw, th] = text_size("dog 0.80", 1);
    EXPECT_GT(weak_pixels, tw * th / 2);
}

TEST(Drawing, ClassColoursDiffer) {
    EXPECT_NE(class_colour(0), class_colour(1));
    EXPECT_EQ(class_colour(16), class_colour(16));
}

}  // namespace
}  // namespace wgx::vision
