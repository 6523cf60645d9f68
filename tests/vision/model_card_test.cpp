// Model cards: a valid card of each task parses to the right values; every kind of mistake
// gives one LoadError naming the card file and the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "vision/model_card.h"
#include "vision_test_util.h"
#include "wgx/error.h"

namespace wgx::vision {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json detect_card() {
    return json::parse(R"({
      "schema": "wgx-model-card/1",
      "name": "tiny-det",
      "task": "detect",
      "model": "model.pte",
      "input": {"height": 96, "width": 128, "resize": "letterbox",
                "letterbox_fill": [114, 114, 114], "scale": 0.00392156862745098,
                "mean": [0.1, 0.2, 0.3], "std": [0.5, 0.6, 0.7]},
      "decode": {"kind": "anchor_free_dfl", "scores_output": 0, "boxes_output": 1,
                 "strides": [8, 16, 32], "reg_max": 7, "center_offset": 0.5,
                 "scores_activation": "sigmoid", "score_threshold": 0.35,
                 "iou_threshold": 0.6, "nms": "per_class"},
      "labels": ["cat", "dog"],
      "license": "Apache-2.0", "source": "made by the test"
    })");
}

class CardTest : public ::testing::Test {
  protected:
    test::TempDir dir{"wgx-card-test"};

    fs::path write(const json& card, const std::string& name = "card.json") {
        std::ofstream(dir.path() / "model.pte") << "not a real program";
        fs::path p = dir.path() / name;
        std::ofstream(p) << card.dump(2);
        return p;
    }

    // Loading must fail with a LoadError whose message holds every one of `parts`.
    void expect_error(const json& card, std::initializer_list<std::string> parts) {
        fs::path p = write(card);
        try {
            load_model_card(p);
            ADD_FAILURE() << "no error for " << card.dump();
        } catch (const LoadError& e) {
            std::string m = e.what();
            EXPECT_NE(m.find(p.string()), std::string::npos) << m;
            for (const auto& part : parts) EXPECT_NE(m.find(part), std::string::npos) << m;
        }
    }
};

TEST_F(CardTest, ParsesADetectionCard) {
    write(detect_card());
    ModelCard c = load_model_card(dir.path());  // a folder holding card.json
    EXPECT_EQ(c.name, "tiny-det");
    EXPECT_EQ(c.task, Task::detect);
    EXPECT_EQ(c.model, dir.path() / "model.pte");
    EXPECT_EQ(c.input.height, 96);
    EXPECT_EQ(c.input.width, 128);
    EXPECT_EQ(c.input.resize, ResizeMode::letterbox);
    EXPECT_DOUBLE_EQ(c.input.letterbox_fill[1], 114);
    EXPECT_DOUBLE_EQ(c.input.std[2], 0.7);
    const auto& d = std::get<DflDecode>(c.decode);
    EXPECT_EQ(d.strides, (std::vector<int>{8, 16, 32}));
    EXPECT_EQ(d.reg_max, 7);
    EXPECT_DOUBLE_EQ(d.center_offset, 0.5);
    EXPECT_TRUE(d.sigmoid);
    EXPECT_TRUE(d.nms);
    EXPECT_EQ(c.label(1), "dog");
    EXPECT_EQ(c.label(7), "class 7");
}

TEST_F(CardTest, ParsesTheOtherTasksAndALabelsFile) {
    json seg = detect_card();
    seg["task"] = "segment";
    seg["decode"] = {{"kind", "logit"}, {"output", 0}, {"channel", 1}, {"threshold", 0.4}};
    write(seg);
    auto s = std::get<SegmentDecode>(load_model_card(dir.path()).decode);
    EXPECT_TRUE(s.logit);
    EXPECT_EQ(s.channel, 1);
    EXPECT_DOUBLE_EQ(s.threshold, 0.4);

    json depth = detect_card();
    depth["task"] = "depth";
    depth["decode"] = json::parse(R"({"kind": "relative_depth", "output": 0, "larger_is": "near",
                                      "normalise": {"low_percentile": 5, "high_percentile": 95}})");
    write(depth);
    auto d = std::get<DepthDecode>(load_model_card(dir.path()).decode);
    EXPECT_FALSE(d.larger_is_far);
    EXPECT_DOUBLE_EQ(d.low_percentile, 5);

    json cls = detect_card();
    cls["task"] = "classify";
    cls["decode"] = {{"kind", "probabilities"}, {"output", 0}};
    cls.erase("labels");
    cls["labels_file"] = "labels.txt";
    std::ofstream(dir.path() / "labels.txt") << "tench\r\ngoldfish\n\n";
    write(cls);
    ModelCard c = load_model_card(dir.path());
    EXPECT_FALSE(std::get<ClassifyDecode>(c.decode).logits);
    EXPECT_EQ(c.labels, (std::vector<std::string>{"tench", "goldfish"}));
}

TEST_F(CardTest, MissingFieldsAreNamed) {
    json c = detect_card();
    c["input"].erase("height");
    expect_error(c, {"'input.height'", "missing"});
    c = detect_card();
    c["decode"].erase("reg_max");
    expect_error(c, {"'decode.reg_max'", "missing"});
    c = detect_card();
    c.erase("decode");
    expect_error(c, {"'decode'", "missing"});
    c = detect_card();
    c["input"].erase("letterbox_fill");  // required for letterbox
    expect_error(c, {"'input.letterbox_fill'"});
}

TEST_F(CardTest, WrongTypesAndValuesAreNamed) {
    json c = detect_card();
    c["input"]["width"] = "128";
    expect_error(c, {"'input.width'", "integer", "string"});
    c = detect_card();
    c["input"]["height"] = -4;
    expect_error(c, {"'input.height'", "-4"});
    c = detect_card();
    c["input"]["std"] = {1, 0, 1};
    expect_error(c, {"'input.std[1]'"});
    c = detect_card();
    c["input"]["mean"] = {0, 0};
    expect_error(c, {"'input.mean'", "3 entries"});
    c = detect_card();
    c["decode"]["strides"] = {8, 0};
    expect_error(c, {"'decode.strides[1]'"});
    c = detect_card();
    c["decode"]["score_threshold"] = 1.5;
    expect_error(c, {"'decode.score_threshold'"});
    c = detect_card();
    c["labels"] = {"cat", 3};
    expect_error(c, {"'labels[1]'", "string"});
}

TEST_F(CardTest, UnknownNamesListTheChoices) {
    json c = detect_card();
    c["task"] = "caption";
    expect_error(c, {"'task'", "\"caption\"", "\"detect\""});
    c = detect_card();
    c["input"]["resize"] = "crop";
    expect_error(c, {"'input.resize'", "\"letterbox\""});
    c = detect_card();
    c["decode"]["kind"] = "logits";  // a classify kind on a detect card
    expect_error(c, {"'decode.kind'", "\"anchor_free_dfl\""});
    c = detect_card();
    c["schema"] = "wgx-model-card/2";
    expect_error(c, {"'schema'", "wgx-model-card/1"});
}

TEST_F(CardTest, FilesAndSyntax) {
    json c = detect_card();
    c["model"] = "missing.pte";
    expect_error(c, {"'model'", "missing.pte", "does not exist"});
    c = detect_card();
    c["labels_file"] = "labels.txt";
    expect_error(c, {"'labels_file'", "together"});
    c = detect_card();
    c.erase("labels");
    c["labels_file"] = "absent.txt";
    expect_error(c, {"'labels_file'", "absent.txt"});

    fs::path p = dir.path() / "broken.json";
    std::ofstream(p) << "{\"schema\": \"wgx-model-card/1\", ";
    try {
        load_model_card(p);
        ADD_FAILURE() << "no error for truncated JSON";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
    }
    try {
        load_model_card(dir.path() / "nowhere");
        ADD_FAILURE() << "no error for a missing card";
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
    }
}

TEST_F(CardTest, ProgramThatDoesNotFitTheCardIsNamed) {
    // A real program whose input is not an image tensor: [1, 8, 12, 12].
    const fs::path pte = fs::path(WGX_SOURCE_DIR) / "tests/fixtures/residual/vulkan.pte";
    ASSERT_TRUE(fs::exists(pte)) << pte << " is a committed fixture";
    fs::path p = write(detect_card());
    fs::copy_file(pte, dir.path() / "model.pte", fs::copy_options::overwrite_existing);
    ModelCard card = load_model_card(p);
    Program program = Program::load(card.model);
    try {
        check_program_fits(card, program);
        FAIL() << "no error";
    } catch (const LoadError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("[1, 8, 12, 12]"), std::string::npos) << m;
        EXPECT_NE(m.find("[1, 3, 96, 128]"), std::string::npos) << m;
        EXPECT_NE(m.find(p.string()), std::string::npos) << m;
    }
}

}  // namespace
}  // namespace wgx::vision
