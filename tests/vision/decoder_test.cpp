// CPU decoders on synthetic outputs with answers worked out by hand: DFL expectation and box
// decoding (levels, cells, centre offset), per-class NMS, the boxes_scores layouts, softmax
// top-k.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "vision/classify_decoder.h"
#include "vision/detect_decoder.h"
#include "vision/detection.h"
#include "wgx/error.h"

namespace wgx::vision {
namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

void expect_box(const Box& b, double x1, double y1, double x2, double y2, double tol = 1e-9) {
    EXPECT_NEAR(b.x1, x1, tol);
    EXPECT_NEAR(b.y1, y1, tol);
    EXPECT_NEAR(b.x2, x2, tol);
    EXPECT_NEAR(b.y2, y2, tol);
}

TEST(Dfl, ExpectationOfKnownDistributions) {
    // Uniform over 0..3: mean 1.5.
    std::vector<float> uniform{0.7f, 0.7f, 0.7f, 0.7f};
    EXPECT_NEAR(dfl_expectation(uniform), 1.5, 1e-12);
    // Two bins, logits 0 and ln 3: probabilities 1/4, 3/4 -> 0.75.
    std::vector<float> two{0.f, float(std::log(3.0))};
    EXPECT_NEAR(dfl_expectation(two), 0.75, 1e-7);
    // A dominant bin gives its index; large logits do not overflow (max-subtracted).
    std::vector<float> peak{0.f, 0.f, 1000.f, 0.f, 0.f};
    EXPECT_NEAR(dfl_expectation(peak), 2.0, 1e-12);
    // Bins 1 and 2 equal and dominant: 1.5.
    std::vector<float> pair{-50.f, 60.f, 60.f, -50.f};
    EXPECT_NEAR(dfl_expectation(pair), 1.5, 1e-12);
}

// A 32x24 input with strides 8 and 16: level 0 is 4x3 cells (rows 0..11), level 1 is 2x2 cells
// (rows 12..15). reg_max 3 (4 bins per side), 3 classes, scores as logits.
struct DflCase {
    static constexpr int kRows = 16, kClasses = 3, kBins = 4;
    std::vector<float> scores = std::vector<float>(kRows * kClasses, -8.f);
    std::vector<float> boxes = std::vector<float>(kRows * 4 * kBins, 0.f);
    DflDecode decode;

    DflCase() {
        decode.strides = {8, 16};
        decode.reg_max = 3;
        decode.sigmoid = true;
        decode.score_threshold = 0.5;
        decode.iou_threshold = 0.6;
    }
    // Distances (in strides) of one row, each as a sharp peak on its bin.
    void distances(int row, int l, int t, int r, int b) {
        int d[4] = {l, t, r, b};
        for (int side = 0; side < 4; ++side) boxes[(row * 4 + side) * kBins + d[side]] = 60.f;
    }
    std::vector<Detection> run() const {
        return decode_anchor_free_dfl(decode, 24, 32, scores, kClasses, boxes);
    }
};

TEST(Dfl, DecodesCellsOfEachLevelAndSuppressesDuplicates) {
    DflCase c;
    c.scores[5 * 3 + 2] = 2.0f;  // row 5: level 0, cell (1, 1): centre (8, 8)
    c.scores[5 * 3 + 1] = 1.5f;  // the same row also proposes class 1
    c.distances(5, 1, 1, 2, 2);  // -> (0, 0, 24, 24)
    c.scores[6 * 3 + 2] = 0.5f;  // row 6: cell (2, 1), centre (16, 8), the same box, lower score
    c.distances(6, 2, 1, 1, 2);
    c.scores[13 * 3 + 0] = 1.0f;  // row 13: level 1, cell (1, 0): centre (16, 0)
    c.distances(13, 1, 0, 1, 1);  // -> (0, 0, 32, 16)
    std::vector<Detection> d = c.run();
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[0].cls, 2);
    EXPECT_NEAR(d[0].score, sigmoid(2.0), 1e-7);
    expect_box(d[0].box, 0, 0, 24, 24);
    EXPECT_EQ(d[1].cls, 1);
    EXPECT_NEAR(d[1].score, sigmoid(1.5), 1e-7);
    expect_box(d[1].box, 0, 0, 24, 24);
    EXPECT_EQ(d[2].cls, 0);
    EXPECT_NEAR(d[2].score, sigmoid(1.0), 1e-7);
    expect_box(d[2].box, 0, 0, 32, 16);

    c.decode.nms = false;  // without NMS the duplicate of row 6 stays
    EXPECT_EQ(c.run().size(), 4u);
}

TEST(Dfl, CentreOffsetShiftsCellCentres) {
    DflCase c;
    c.decode.center_offset = 0.5;
    c.scores[5 * 3 + 0] = 3.0f;
    c.distances(5, 1, 0, 0, 3);  // centre (12, 12)
    std::vector<Detection> d = c.run();
    ASSERT_EQ(d.size(), 1u);
    expect_box(d[0].box, 4, 12, 12, 36);
}

TEST(Dfl, ScoresWithoutActivationAreTakenAsProbabilities) {
    DflCase c;
    c.decode.sigmoid = false;
    std::fill(c.scores.begin(), c.scores.end(), 0.f);
    c.scores[0] = 0.51f;                                    // above 0.5
    c.scores[3] = 0.5f;                                     // not above: the threshold is strict
    c.scores[6] = std::numeric_limits<float>::quiet_NaN();  // never a detection
    c.distances(0, 0, 0, 1, 1);
    std::vector<Detection> d = c.run();
    ASSERT_EQ(d.size(), 1u);
    EXPECT_NEAR(d[0].score, 0.51, 1e-7);
    expect_box(d[0].box, 0, 0, 8, 8);
}

TEST(Dfl, WrongRowCountIsAClearError) {
    DflCase c;
    c.scores.resize(15 * 3);
    try {
        c.run();
        FAIL() << "expected an error";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("16 rows"), std::string::npos) << e.what();
    }
}

TEST(Nms, SuppressesOnlyAboveTheThresholdAndWithinAClass) {
    // IoU of a = (0,0,10,10) and b = (2,0,12,10) is 80/120 = 0.667; with c = (5,0,15,10) 50/150.
    std::vector<Detection> in{{0, 0.9, {0, 0, 10, 10}},
                              {0, 0.8, {2, 0, 12, 10}},
                              {1, 0.7, {2, 0, 12, 10}},
                              {0, 0.6, {5, 0, 15, 10}}};
    auto kept = non_max_suppression(in, 0.6, true, 100);
    ASSERT_EQ(kept.size(), 3u);
    EXPECT_DOUBLE_EQ(kept[0].score, 0.9);
    EXPECT_DOUBLE_EQ(kept[1].score, 0.7);  // other class: not suppressed by a
    EXPECT_DOUBLE_EQ(kept[2].score, 0.6);  // IoU 1/3 with a

    // Class-agnostic: the class-1 box goes too.
    EXPECT_EQ(non_max_suppression(in, 0.6, false, 100).size(), 2u);
    // A threshold equal to the IoU keeps the box (strictly greater suppresses).
    EXPECT_EQ(non_max_suppression(in, 80.0 / 120.0, true, 100).size(), 4u);
    // At most max_detections, best first.
    auto two = non_max_suppression(in, 0.6, true, 2);
    ASSERT_EQ(two.size(), 2u);
    EXPECT_DOUBLE_EQ(two[1].score, 0.7);
}

TEST(Nms, EqualScoresKeepTheirInputOrder) {
    std::vector<Detection> in{{3, 0.5, {0, 0, 10, 10}}, {3, 0.5, {1, 0, 11, 10}}};
    auto kept = non_max_suppression(in, 0.5, true, 10);
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_DOUBLE_EQ(kept[0].box.x1, 0);
}

TEST(BoxesScores, NormalizedCentreSizeBoxesAndBestClass) {
    BoxesScoresDecode d;
    d.cxcywh = true;
    d.normalized = true;
    d.score_threshold = 0.25;
    d.iou_threshold = 0.45;
    // Rows: cx, cy, w, h, score class 0, score class 1. Input 100 wide, 50 high.
    std::vector<float> out{0.5f,  0.5f, 0.2f, 0.4f, 0.1f, 0.9f,   // (40, 15, 60, 35), class 1
                           0.2f,  0.2f, 0.1f, 0.1f, 0.2f, 0.1f,   // below the threshold
                           0.51f, 0.5f, 0.2f, 0.4f, 0.3f, 0.8f};  // overlaps the first
    auto dets = decode_boxes_scores(d, 50, 100, out, 6);
    ASSERT_EQ(dets.size(), 1u);
    EXPECT_EQ(dets[0].cls, 1);
    EXPECT_NEAR(dets[0].score, 0.9, 1e-7);
    expect_box(dets[0].box, 40, 15, 60, 35, 1e-5);
    d.nms = false;
    EXPECT_EQ(decode_boxes_scores(d, 50, 100, out, 6).size(), 2u);
    d.max_detections = 1;
    EXPECT_EQ(decode_boxes_scores(d, 50, 100, out, 6).size(), 1u);
}

TEST(BoxesScores, PixelCornersAreTakenAsTheyAre) {
    BoxesScoresDecode d;
    std::vector<float> out{3.f, 4.f, 30.f, 40.f, 0.6f};
    auto dets = decode_boxes_scores(d, 64, 64, out, 5);
    ASSERT_EQ(dets.size(), 1u);
    expect_box(dets[0].box, 3, 4, 30, 40);
    EXPECT_THROW(decode_boxes_scores(d, 64, 64, out, 4), InvalidArgument);
}

TEST(Classify, SoftmaxTopK) {
    std::vector<float> logits{1.f, 3.f, 2.f, 3.f};
    auto top = top_k(logits, true, 3);
    ASSERT_EQ(top.size(), 3u);
    const double z = std::exp(1.0) + 2 * std::exp(3.0) + std::exp(2.0);
    EXPECT_EQ(top[0].cls, 1);  // equal scores: the lower class first
    EXPECT_EQ(top[1].cls, 3);
    EXPECT_EQ(top[2].cls, 2);
    EXPECT_NEAR(top[0].score, std::exp(3.0) / z, 1e-12);
    EXPECT_NEAR(top[2].score, std::exp(2.0) / z, 1e-12);
    // Probabilities are used as they are; k beyond the class count gives them all.
    auto p = top_k(std::vector<float>{0.2f, 0.7f, 0.1f}, false, 10);
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(p[0].cls, 1);
    EXPECT_NEAR(p[0].score, 0.7, 1e-7);
}

TEST(Classify, NonFiniteOutputIsAnError) {
    std::vector<float> bad{1.f, std::numeric_limits<float>::quiet_NaN()};
    EXPECT_THROW(top_k(bad, true, 1), Error);
}

}  // namespace
}  // namespace wgx::vision
