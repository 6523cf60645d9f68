// The whole pipeline on the tiny random-weight models of tests/vision/models (made by
// make_test_models.py): the WGSL preprocessing against PyTorch's own F.interpolate-based
// preprocessing of the same photo, and each task's results against the decoders applied to
// PyTorch's eager outputs. Also: work is recorded once per photo size and replayed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "io/npy.h"
#include "vision/detect_decoder.h"
#include "vision/pipeline.h"
#include "vision/preprocess_op.h"
#include "vision_test_util.h"

namespace wgx::vision {
namespace {

namespace fs = std::filesystem;

fs::path model_dir(const std::string& task) {
    return fs::path(WGX_SOURCE_DIR) / "tests/vision/models" / task;
}

std::vector<float> read_floats(const fs::path& p, Shape* shape = nullptr) {
    io::NpyArray a = io::read_npy(p);
    EXPECT_EQ(a.dtype, DType::f32) << p;
    if (shape) *shape = a.shape;
    std::vector<float> v(a.data.size() / 4);
    std::memcpy(v.data(), a.data.data(), a.data.size());
    return v;
}

double rel_l2(const std::vector<float>& got, const std::vector<float>& want) {
    EXPECT_EQ(got.size(), want.size());
    double num = 0, den = 0;
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        num += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
        den += double(want[i]) * want[i];
    }
    return std::sqrt(num / std::max(den, 1e-30));
}

class TinyModels : public ::testing::TestWithParam<std::string> {};

TEST_P(TinyModels, PreprocessingMatchesPyTorch) {
    const fs::path dir = model_dir(GetParam());
    ModelCard card = load_model_card(dir);
    Image photo = load_image(dir / "photo.png");
    Shape shape;
    std::vector<float> want = read_floats(dir / "input.npy", &shape);
    ASSERT_EQ(shape, (Shape{1, 3, card.input.height, card.input.width}));

    Context& ctx = test::ctx();
    ctx.reset();
    PreprocessOp op(card.input);
    Tensor image = ctx.tensor(DType::u8, {photo.height, photo.width, 3})
                       .set_data(std::span<const uint8_t>(photo.pixels));
    Tensor out = ctx.tensor(DType::f32, shape);
    ctx.record(op, {image, out});
    ctx.submit();
    std::vector<float> got = out.get_data<float>();
    ctx.reset();
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i)
        worst = std::max(worst, std::abs(double(got[i]) - want[i]));
    // PyTorch computes the source position in float32 (scale * (dst + 0.5) - 0.5); the
    // difference is a few float32 ulps of 0..255 pixel values, normalised.
    EXPECT_LE(worst, 2e-5) << card.name;
}

INSTANTIATE_TEST_SUITE_P(Tasks, TinyModels,
                         ::testing::Values("classify", "segment", "depth", "detect"));

TEST(Pipeline, ClassifyMatchesPyTorch) {
    const fs::path dir = model_dir("classify");
    Pipeline p(test::ctx(), load_model_card(dir));
    FrameResult r = p.run(load_image(dir / "photo.png"));
    std::vector<ClassScore> want = top_k(read_floats(dir / "expected_0.npy"), true, 5);
    ASSERT_EQ(r.top.size(), 5u);
    for (size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(r.top[i].cls, want[i].cls) << "rank " << i;
        EXPECT_NEAR(r.top[i].score, want[i].score, 1e-5) << "rank " << i;
    }
}

TEST(Pipeline, SegmentMapAndCompositeMatchPyTorch) {
    const fs::path dir = model_dir("segment");
    ModelCard card = load_model_card(dir);
    Pipeline p(test::ctx(), card);
    Image photo = load_image(dir / "photo.png");
    FrameResult r = p.run(photo);
    Shape shape;
    std::vector<float> all = read_floats(dir / "expected_0.npy", &shape);  // [1, 2, H', W']
    const size_t plane = size_t(shape[2] * shape[3]);
    std::vector<float> channel1(all.begin() + ptrdiff_t(plane), all.end());
    ASSERT_EQ(r.map_width, shape[3]);
    ASSERT_EQ(r.map_height, shape[2]);
    EXPECT_LE(rel_l2(r.map, channel1), 1e-5);
    ASSERT_EQ(r.picture.width, photo.width);
    ASSERT_EQ(r.picture.height, photo.height);
    ASSERT_EQ(r.picture.channels, 4);
    // The composite changed the photo where the mask is confident, and left alpha opaque.
    size_t changed = 0;
    for (int y = 0; y < photo.height; ++y)
        for (int x = 0; x < photo.width; ++x) {
            if (std::memcmp(r.picture.at(x, y), photo.at(x, y), 3) != 0) ++changed;
            EXPECT_EQ(r.picture.at(x, y)[3], 255);
        }
    EXPECT_GT(changed, size_t(photo.width * photo.height / 10));
}

TEST(Pipeline, DepthMapAndPercentilesMatchPyTorch) {
    const fs::path dir = model_dir("depth");
    Pipeline p(test::ctx(), load_model_card(dir));
    FrameResult r = p.run(load_image(dir / "photo.png"));
    std::vector<float> want = read_floats(dir / "expected_0.npy");
    EXPECT_LE(rel_l2(r.map, want), 1e-5);
    // numpy-style percentiles of PyTorch's map.
    std::vector<double> sorted(want.begin(), want.end());
    std::sort(sorted.begin(), sorted.end());
    auto pct = [&](double q) {
        double pos = double(sorted.size() - 1) * q / 100;
        size_t k = size_t(pos);
        size_t k1 = std::min(k + 1, sorted.size() - 1);
        return sorted[k] + (sorted[k1] - sorted[k]) * (pos - double(k));
    };
    const double span = sorted.back() - sorted.front();
    EXPECT_NEAR(r.low, pct(2), 1e-5 * span);
    EXPECT_NEAR(r.high, pct(98), 1e-5 * span);
    EXPECT_LT(r.low, r.high);
}

TEST(Pipeline, DetectMatchesDecodedPyTorchOutputs) {
    const fs::path dir = model_dir("detect");
    ModelCard card = load_model_card(dir);
    Pipeline p(test::ctx(), card);
    Image photo = load_image(dir / "photo.png");
    FrameResult r = p.run(photo);
    Shape s0;
    std::vector<float> scores = read_floats(dir / "expected_0.npy", &s0);
    std::vector<float> boxes = read_floats(dir / "expected_1.npy");
    const auto& d = std::get<DflDecode>(card.decode);
    std::vector<Detection> want =
        decode_anchor_free_dfl(d, card.input.height, card.input.width, scores, s0[2], boxes);
    for (Detection& w : want) w.box = r.geometry.to_photo(w.box);
    ASSERT_GE(want.size(), 2u) << "the test model should detect something";
    ASSERT_EQ(r.detections.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(r.detections[i].cls, want[i].cls) << i;
        EXPECT_NEAR(r.detections[i].score, want[i].score, 1e-5) << i;
        EXPECT_GE(iou(r.detections[i].box, want[i].box), 0.999) << i;
    }
}

TEST(Pipeline, RecordsOncePerPhotoSizeAndReplays) {
    const fs::path dir = model_dir("depth");
    Pipeline p(test::ctx(), load_model_card(dir));
    Image a = test::random_photo(37, 29, 1), b = test::random_photo(50, 20, 2);
    Image a2 = test::random_photo(37, 29, 3);  // same size as a, other pixels
    FrameResult ra = p.run(a);
    FrameResult ra2 = p.run(a2);
    FrameResult rb = p.run(b);
    FrameResult ra_again = p.run(a);
    EXPECT_GT(ra.timings.record_ms, 0);
    EXPECT_EQ(ra2.timings.record_ms, 0);  // replayed
    EXPECT_GT(rb.timings.record_ms, 0);   // another size: recorded again
    EXPECT_GT(ra_again.timings.record_ms, 0);
    EXPECT_NE(ra.map, ra2.map);       // the replay used the new pixels
    EXPECT_EQ(ra.map, ra_again.map);  // and the same photo gives the same map
    EXPECT_EQ(rb.picture.width, 50);
}

TEST(Pipeline, CardThatDoesNotFitTheProgramIsRejected) {
    // The depth card's decode pointed at the classifier's program.
    ModelCard card = load_model_card(model_dir("depth"));
    card.model = model_dir("classify") / "model.pte";
    card.input.height = card.input.width = 24;
    try {
        Pipeline p(test::ctx(), card);
        FAIL() << "no error";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("[1, 1, height, width]"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace wgx::vision
