// The demos' --json documents: schema names, field order (schema first) and values.
#include <gtest/gtest.h>

#include "vision/demo_json.h"

namespace wgx::vision {
namespace {

ModelCard card_with_labels() {
    ModelCard c;
    c.name = "tiny";
    c.labels = {"cat", "dog"};
    return c;
}

TEST(DemoJson, DetectDocument) {
    ModelCard card = card_with_labels();
    card.task = Task::detect;
    FrameResult r;
    r.geometry.photo_width = 640;
    r.geometry.photo_height = 480;
    r.detections = {{1, 0.9123456789, Box{1.23456, 2, 300.5, 400.25}}, {5, 0.5, Box{0, 0, 1, 1}}};
    auto doc = detect_json(card, "dog.jpg", r);
    EXPECT_EQ(doc.begin().key(), "schema");
    EXPECT_EQ(doc["schema"], "wgx-detect/1");
    EXPECT_EQ(doc["model"], "tiny");
    EXPECT_EQ(doc["image"], "dog.jpg");
    EXPECT_EQ(doc["width"], 640);
    EXPECT_EQ(doc["height"], 480);
    ASSERT_EQ(doc["detections"].size(), 2u);
    EXPECT_EQ(doc["detections"][0]["class"], 1);
    EXPECT_EQ(doc["detections"][0]["label"], "dog");
    EXPECT_DOUBLE_EQ(doc["detections"][0]["score"].get<double>(), 0.912346);
    EXPECT_DOUBLE_EQ(doc["detections"][0]["box"][0].get<double>(), 1.235);
    EXPECT_EQ(doc["detections"][1]["label"], "class 5");
    // Rounded values print short.
    EXPECT_NE(doc.dump().find("0.912346,"), std::string::npos) << doc.dump();
}

TEST(DemoJson, ClassifyDocument) {
    ModelCard card = card_with_labels();
    FrameResult r;
    r.top = {{0, 0.246292}, {1, 0.1}};
    auto doc = classify_json(card, "cat.png", r);
    EXPECT_EQ(doc["schema"], "wgx-classify/1");
    ASSERT_EQ(doc["top"].size(), 2u);
    EXPECT_EQ(doc["top"][0]["label"], "cat");
    EXPECT_NE(doc.dump().find("\"score\":0.246292}"), std::string::npos) << doc.dump();
    EXPECT_EQ(doc.find("width"), doc.end());  // the classify schema has no photo size
}

TEST(DemoJson, SegmentAndDepthDocuments) {
    ModelCard seg;
    seg.name = "s";
    SegmentDecode sd;
    sd.threshold = 0.5;
    seg.decode = sd;
    FrameResult r;
    r.map = {0.1f, 0.6f, 0.5f, 0.9f};
    r.map_width = 2;
    r.map_height = 2;
    auto s = segment_json(seg, "a.png", r, "out.png");
    EXPECT_EQ(s["schema"], "wgx-segment/1");
    EXPECT_DOUBLE_EQ(s["foreground_fraction"].get<double>(), 0.75);  // 0.5 counts (>=)
    EXPECT_EQ(s["output"], "out.png");

    ModelCard dep;
    dep.name = "d";
    dep.decode = DepthDecode{};
    r.low = 1.5f;
    r.high = 7.25f;
    auto d = depth_json(dep, "a.png", r, "");
    EXPECT_EQ(d["schema"], "wgx-depth/1");
    EXPECT_EQ(d["larger_is"], "far");
    EXPECT_DOUBLE_EQ(d["range"][1].get<double>(), 7.25);
    EXPECT_TRUE(d["output"].is_null());
}

}  // namespace
}  // namespace wgx::vision
