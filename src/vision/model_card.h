// Model cards (docs/MODEL_CARDS.md, schema "wgx-model-card/1"): what a demo needs to know to run
// a .pte on a photo — input size and normalisation, how to decode the outputs, the labels.
// Parsing validates every field; an error names the card file and the field.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "wgx/program.h"

namespace wgx::vision {

enum class Task { detect, segment, depth, classify };
std::string_view task_name(Task task);

enum class ResizeMode { stretch, letterbox };

struct InputSpec {
    int height = 0, width = 0;
    ResizeMode resize = ResizeMode::stretch;
    std::array<double, 3> letterbox_fill{0, 0, 0};  // 0..255 RGB
    double scale = 1.0;                             // x = (pixel * scale - mean[c]) / std[c]
    std::array<double, 3> mean{0, 0, 0};
    std::array<double, 3> std{1, 1, 1};
};

struct ClassifyDecode {
    bool logits = true;  // "logits" (softmax applied) or "probabilities"
    int output = 0;
};

// NanoDet GFL / YOLOv8-style distance bins (see docs/MODEL_CARDS.md).
struct DflDecode {
    int scores_output = 0, boxes_output = 1;
    std::vector<int> strides;
    int reg_max = 0;
    double center_offset = 0.0;
    bool sigmoid = false;  // scores_activation
    double score_threshold = 0.35, iou_threshold = 0.6;
    bool nms = true;  // "per_class" or "none"
    int max_detections = 100;
};

struct BoxesScoresDecode {
    int output = 0;
    bool cxcywh = false;      // box_format "cxcywh" (else "xyxy")
    bool normalized = false;  // box_units "normalized" (0..1 of the input) (else "pixels")
    double score_threshold = 0.25, iou_threshold = 0.45;
    bool nms = true;
    int max_detections = 300;
};

struct SegmentDecode {
    bool logit = false;  // "logit" (sigmoid applied) or "probability"
    int output = 0;
    int channel = 0;
    double threshold = 0.5;
};

struct DepthDecode {
    bool inverse = false;  // "inverse_depth" or "relative_depth" (informative)
    int output = 0;
    bool larger_is_far = true;  // "larger_is": "far" | "near"
    double low_percentile = 2, high_percentile = 98;
};

using Decode =
    std::variant<ClassifyDecode, DflDecode, BoxesScoresDecode, SegmentDecode, DepthDecode>;

struct ModelCard {
    std::filesystem::path card_path;  // the card.json it was read from
    std::string name;
    Task task = Task::classify;
    std::filesystem::path model;  // absolute or relative to the working directory
    InputSpec input;
    Decode decode;
    std::vector<std::string> labels;  // may be empty: classes are then named "class <i>"
    std::string license, source;

    // "dog", or "class 17" when the card has no label for it.
    std::string label(int cls) const;
};

// Reads a card from a card.json path or a directory holding one. Throws LoadError naming the
// file (and the field) for a missing file, bad JSON, a missing or wrongly typed field, a value
// out of range, an unknown task/kind, a decode kind that does not fit the task, or a missing
// model/labels file.
ModelCard load_model_card(const std::filesystem::path& card_or_dir);
// Parses card text; `card_path` names the file in errors and anchors relative paths.
ModelCard parse_model_card(std::string_view json_text, const std::filesystem::path& card_path);

// Checks that a loaded program fits its card: one float32 [1, 3, H, W] input of the card's
// size, and outputs of the shapes the decode section implies (indices in range, DFL row
// count and bin count, label count vs classes). Throws LoadError naming the card and the
// mismatch.
void check_program_fits(const ModelCard& card, const Program& program);

}  // namespace wgx::vision
