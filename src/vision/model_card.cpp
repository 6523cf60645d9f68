#include "vision/model_card.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>

#include "wgx/error.h"

namespace wgx::vision {

namespace fs = std::filesystem;
using nlohmann::json;

std::string_view task_name(Task task) {
    switch (task) {
        case Task::detect: return "detect";
        case Task::segment: return "segment";
        case Task::depth: return "depth";
        case Task::classify: return "classify";
    }
    return "?";
}

std::string ModelCard::label(int cls) const {
    if (cls >= 0 && size_t(cls) < labels.size()) return labels[cls];
    return fmt::format("class {}", cls);
}

namespace {

const char* json_type(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
    if (v.is_number()) return "a number";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    return "an object";
}

// Typed access to the fields of one JSON object of the card; every error names the file and
// the field's full path ("decode.strides[1]").
class Fields {
  public:
    Fields(const json& obj, std::string prefix, const fs::path& file)
        : obj_(obj), prefix_(std::move(prefix)), file_(file) {}

    [[noreturn]] void fail(std::string_view key, const std::string& what) const {
        throw LoadError(fmt::format("{}: field '{}{}' {}", file_.string(), prefix_, key, what));
    }

    bool has(std::string_view key) const { return obj_.contains(key); }

    const json& get(std::string_view key) const {
        auto it = obj_.find(key);
        if (it == obj_.end()) fail(key, "is missing.");
        return *it;
    }

    Fields object(std::string_view key) const {
        const json& v = get(key);
        if (!v.is_object()) fail(key, fmt::format("must be an object, got {}.", json_type(v)));
        return Fields(v, fmt::format("{}{}.", prefix_, key), file_);
    }

    std::string string(std::string_view key) const {
        const json& v = get(key);
        if (!v.is_string()) fail(key, fmt::format("must be a string, got {}.", json_type(v)));
        return v.get<std::string>();
    }

    std::string optional_string(std::string_view key) const {
        return has(key) ? string(key) : std::string();
    }

    // One of `choices`; the error lists them.
    std::string choice(std::string_view key,
                       std::initializer_list<std::string_view> choices) const {
        std::string s = string(key);
        for (std::string_view c : choices)
            if (s == c) return s;
        std::string list;
        for (std::string_view c : choices)
            list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", c);
        fail(key, fmt::format("is \"{}\"; expected one of {}.", s, list));
    }

    static int64_t as_integer(const Fields& f, std::string_view key, const json& v, int64_t lo,
                              int64_t hi) {
        int64_t n = 0;
        if (v.is_number_integer() || v.is_number_unsigned()) {
            if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) {
                f.fail(key, fmt::format("must be in {}..{}.", lo, hi));
            }
            n = v.get<int64_t>();
        } else if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
                   std::abs(v.get<double>()) < 1e15) {
            n = static_cast<int64_t>(v.get<double>());  // 416.0 is accepted as 416
        } else {
            f.fail(key, fmt::format("must be an integer, got {}.", json_type(v)));
        }
        if (n < lo || n > hi) f.fail(key, fmt::format("is {}; expected {}..{}.", n, lo, hi));
        return n;
    }

    int integer(std::string_view key, int64_t lo, int64_t hi) const {
        return static_cast<int>(as_integer(*this, key, get(key), lo, hi));
    }
    int integer_or(std::string_view key, int64_t lo, int64_t hi, int fallback) const {
        return has(key) ? integer(key, lo, hi) : fallback;
    }

    double number(std::string_view key, double lo, double hi) const {
        return number_value(key, get(key), lo, hi);
    }
    double number_or(std::string_view key, double lo, double hi, double fallback) const {
        return has(key) ? number(key, lo, hi) : fallback;
    }

    double number_value(std::string_view key, const json& v, double lo, double hi) const {
        if (!v.is_number()) fail(key, fmt::format("must be a number, got {}.", json_type(v)));
        double d = v.get<double>();
        if (!std::isfinite(d) || d < lo || d > hi) {
            fail(key, fmt::format("is {}; expected {}..{}.", d, lo, hi));
        }
        return d;
    }

    const json& array(std::string_view key, size_t min_size, size_t max_size) const {
        const json& v = get(key);
        if (!v.is_array()) fail(key, fmt::format("must be an array, got {}.", json_type(v)));
        if (v.size() < min_size || v.size() > max_size) {
            fail(key, min_size == max_size
                          ? fmt::format("must have {} entries, got {}.", min_size, v.size())
                          : fmt::format("must have {}..{} entries, got {}.", min_size, max_size,
                                        v.size()));
        }
        return v;
    }

    std::array<double, 3> triple(std::string_view key, double lo, double hi) const {
        const json& v = array(key, 3, 3);
        std::array<double, 3> out{};
        for (size_t i = 0; i < 3; ++i) {
            out[i] = number_value(fmt::format("{}[{}]", key, i), v[i], lo, hi);
        }
        return out;
    }

    std::vector<int> int_list(std::string_view key, size_t min_size, size_t max_size, int64_t lo,
                              int64_t hi) const {
        const json& v = array(key, min_size, max_size);
        std::vector<int> out;
        for (size_t i = 0; i < v.size(); ++i) {
            out.push_back(
                static_cast<int>(as_integer(*this, fmt::format("{}[{}]", key, i), v[i], lo, hi)));
        }
        return out;
    }

  private:
    const json& obj_;
    std::string prefix_;
    const fs::path& file_;
};

InputSpec parse_input(const Fields& f) {
    InputSpec in;
    in.height = f.integer("height", 1, 8192);
    in.width = f.integer("width", 1, 8192);
    in.resize = f.choice("resize", {"stretch", "letterbox"}) == "letterbox" ? ResizeMode::letterbox
                                                                            : ResizeMode::stretch;
    if (in.resize == ResizeMode::letterbox) in.letterbox_fill = f.triple("letterbox_fill", 0, 255);
    in.scale = f.number("scale", 1e-12, 1e12);
    in.mean = f.triple("mean", -1e12, 1e12);
    in.std = f.triple("std", 1e-12, 1e12);
    return in;
}

Decode parse_decode(const Fields& f, Task task) {
    switch (task) {
        case Task::classify: {
            ClassifyDecode d;
            d.logits = f.choice("kind", {"logits", "probabilities"}) == "logits";
            d.output = f.integer_or("output", 0, 1023, 0);
            return d;
        }
        case Task::detect: {
            std::string kind = f.choice("kind", {"anchor_free_dfl", "boxes_scores"});
            if (kind == "anchor_free_dfl") {
                DflDecode d;
                d.scores_output = f.integer("scores_output", 0, 1023);
                d.boxes_output = f.integer("boxes_output", 0, 1023);
                if (d.scores_output == d.boxes_output) {
                    f.fail("boxes_output", "must differ from scores_output.");
                }
                d.strides = f.int_list("strides", 1, 16, 1, 4096);
                d.reg_max = f.integer("reg_max", 1, 256);
                d.center_offset = f.number_or("center_offset", 0.0, 1.0, 0.0);
                d.sigmoid = f.choice("scores_activation", {"none", "sigmoid"}) == "sigmoid";
                d.score_threshold = f.number("score_threshold", 0.0, 1.0);
                d.iou_threshold = f.number("iou_threshold", 0.0, 1.0);
                d.nms = f.choice("nms", {"per_class", "none"}) == "per_class";
                d.max_detections = f.integer_or("max_detections", 1, 100000, 100);
                return d;
            }
            BoxesScoresDecode d;
            d.output = f.integer_or("output", 0, 1023, 0);
            d.cxcywh = f.choice("box_format", {"xyxy", "cxcywh"}) == "cxcywh";
            d.normalized = f.choice("box_units", {"pixels", "normalized"}) == "normalized";
            d.score_threshold = f.number("score_threshold", 0.0, 1.0);
            d.iou_threshold = f.number_or("iou_threshold", 0.0, 1.0, 0.45);
            d.nms = f.choice("nms", {"per_class", "none"}) == "per_class";
            d.max_detections = f.integer_or("max_detections", 1, 100000, 300);
            return d;
        }
        case Task::segment: {
            SegmentDecode d;
            d.logit = f.choice("kind", {"probability", "logit"}) == "logit";
            d.output = f.integer_or("output", 0, 1023, 0);
            d.channel = f.integer_or("channel", 0, 4095, 0);
            d.threshold = f.number_or("threshold", 0.0, 1.0, 0.5);
            return d;
        }
        case Task::depth: {
            DepthDecode d;
            d.inverse = f.choice("kind", {"relative_depth", "inverse_depth"}) == "inverse_depth";
            d.output = f.integer_or("output", 0, 1023, 0);
            d.larger_is_far = f.choice("larger_is", {"far", "near"}) == "far";
            if (f.has("normalise")) {
                Fields n = f.object("normalise");
                d.low_percentile = n.number("low_percentile", 0.0, 100.0);
                d.high_percentile = n.number("high_percentile", 0.0, 100.0);
                if (d.low_percentile >= d.high_percentile) {
                    n.fail("high_percentile", fmt::format("({}) must be above low_percentile ({}).",
                                                          d.high_percentile, d.low_percentile));
                }
            }
            return d;
        }
    }
    f.fail("kind", "cannot be read for this task.");
}

std::vector<std::string> read_labels_file(const fs::path& path, const Fields& f) {
    std::ifstream in(path);
    if (!in) f.fail("labels_file", fmt::format("names {}, which cannot be opened.", path.string()));
    std::vector<std::string> labels;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        labels.push_back(line);
    }
    while (!labels.empty() && labels.back().empty()) labels.pop_back();  // trailing newlines
    return labels;
}

}  // namespace

ModelCard parse_model_card(std::string_view json_text, const fs::path& card_path) {
    json doc;
    try {
        doc = json::parse(json_text);
    } catch (const json::parse_error& e) {
        throw LoadError(
            fmt::format("{}: not valid JSON (byte {}): {}", card_path.string(), e.byte, e.what()));
    }
    if (!doc.is_object()) {
        throw LoadError(fmt::format("{}: a model card must be a JSON object, got {}.",
                                    card_path.string(), json_type(doc)));
    }
    Fields top(doc, "", card_path);
    std::string schema = top.string("schema");
    if (schema != "wgx-model-card/1") {
        top.fail("schema",
                 fmt::format("is \"{}\"; this build reads \"wgx-model-card/1\".", schema));
    }
    ModelCard card;
    card.card_path = card_path;
    card.name = top.string("name");
    if (card.name.empty()) top.fail("name", "must not be empty.");
    std::string task = top.choice("task", {"detect", "segment", "depth", "classify"});
    card.task = task == "detect"    ? Task::detect
                : task == "segment" ? Task::segment
                : task == "depth"   ? Task::depth
                                    : Task::classify;
    const fs::path dir = card_path.parent_path();
    std::string model = top.string("model");
    if (model.empty()) top.fail("model", "must not be empty.");
    card.model = dir / model;
    if (!fs::is_regular_file(card.model)) {
        top.fail("model", fmt::format("names {}, which does not exist.", card.model.string()));
    }
    card.input = parse_input(top.object("input"));
    card.decode = parse_decode(top.object("decode"), card.task);
    if (top.has("labels") && top.has("labels_file")) {
        top.fail("labels_file", "cannot be given together with 'labels'.");
    }
    if (top.has("labels")) {
        const json& labels = top.array("labels", 0, 100000);
        for (size_t i = 0; i < labels.size(); ++i) {
            if (!labels[i].is_string()) {
                top.fail(fmt::format("labels[{}]", i),
                         fmt::format("must be a string, got {}.", json_type(labels[i])));
            }
            card.labels.push_back(labels[i].get<std::string>());
        }
    } else if (top.has("labels_file")) {
        card.labels = read_labels_file(dir / top.string("labels_file"), top);
    }
    card.license = top.optional_string("license");
    card.source = top.optional_string("source");
    return card;
}

ModelCard load_model_card(const fs::path& card_or_dir) {
    fs::path path = card_or_dir;
    std::error_code ec;
    if (fs::is_directory(path, ec)) path /= "card.json";
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw LoadError(fmt::format("{}: cannot open the model card{}.", path.string(),
                                    fs::exists(path, ec) ? "" : " (no such file)"));
    }
    std::stringstream text;
    text << in.rdbuf();
    return parse_model_card(text.str(), path);
}

namespace {

std::string count_word(int64_t n, std::string_view noun) {
    return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

}  // namespace

void check_program_fits(const ModelCard& card, const Program& program) {
    const std::string who =
        fmt::format("{} (model {})", card.card_path.string(), card.model.filename().string());
    auto fail = [&](const std::string& what) -> void {
        throw LoadError(fmt::format("{}: {}", who, what));
    };
    const auto& ins = program.inputs();
    if (ins.size() != 1) {
        fail(fmt::format("the program takes {}; a demo model takes exactly one image tensor.",
                         count_word(int64_t(ins.size()), "input")));
    }
    Shape want_in{1, 3, card.input.height, card.input.width};
    if (ins[0].dtype != DType::f32 || ins[0].shape != want_in) {
        fail(fmt::format("the program's input is {} {}; the card says float32 {}.",
                         dtype_name(ins[0].dtype), shape_string(ins[0].shape),
                         shape_string(want_in)));
    }
    const auto& outs = program.outputs();
    auto output = [&](int index, std::string_view field) -> const TensorInfo& {
        if (index < 0 || size_t(index) >= outs.size()) {
            fail(fmt::format("decode.{} is {}, but the program has {}.", field, index,
                             count_word(int64_t(outs.size()), "output")));
        }
        const TensorInfo& t = outs[index];
        if (t.dtype != DType::f32) {
            fail(fmt::format("output {} (decode.{}) is {}; float32 expected.", index, field,
                             dtype_name(t.dtype)));
        }
        return t;
    };
    auto expect_rank = [&](const TensorInfo& t, int index, size_t rank, std::string_view layout) {
        if (t.shape.size() != rank || t.shape[0] != 1) {
            fail(fmt::format("output {} has shape {}; expected {}.", index, shape_string(t.shape),
                             layout));
        }
    };
    auto check_labels = [&](int64_t classes) {
        if (!card.labels.empty() && int64_t(card.labels.size()) != classes) {
            fail(fmt::format("the card lists {} but the model has {}.",
                             count_word(int64_t(card.labels.size()), "label"),
                             count_word(classes, "class")));
        }
    };

    if (const auto* d = std::get_if<ClassifyDecode>(&card.decode)) {
        const TensorInfo& t = output(d->output, "output");
        expect_rank(t, d->output, 2, "[1, classes]");
        check_labels(t.shape[1]);
    } else if (const auto* d = std::get_if<DflDecode>(&card.decode)) {
        const TensorInfo& s = output(d->scores_output, "scores_output");
        const TensorInfo& b = output(d->boxes_output, "boxes_output");
        expect_rank(s, d->scores_output, 3, "[1, N, classes]");
        expect_rank(b, d->boxes_output, 3, "[1, N, 4 * (reg_max + 1)]");
        int64_t rows = 0;
        for (int st : d->strides) {
            rows += int64_t((card.input.height + st - 1) / st) * ((card.input.width + st - 1) / st);
        }
        if (s.shape[1] != rows || b.shape[1] != rows) {
            fail(
                fmt::format("the strides give {} rows for a {}x{} input, but the scores output "
                            "has {} and the boxes output {}.",
                            rows, card.input.width, card.input.height, s.shape[1], b.shape[1]));
        }
        if (b.shape[2] != 4 * (d->reg_max + 1)) {
            fail(fmt::format("the boxes output has {} values per row; reg_max {} needs {}.",
                             b.shape[2], d->reg_max, 4 * (d->reg_max + 1)));
        }
        check_labels(s.shape[2]);
    } else if (const auto* d = std::get_if<BoxesScoresDecode>(&card.decode)) {
        const TensorInfo& t = output(d->output, "output");
        expect_rank(t, d->output, 3, "[1, N, 4 + classes]");
        if (t.shape[2] < 5) {
            fail(
                fmt::format("output {} has {} values per row; 4 box values and at least one class "
                            "score expected.",
                            d->output, t.shape[2]));
        }
        check_labels(t.shape[2] - 4);
    } else if (const auto* d = std::get_if<SegmentDecode>(&card.decode)) {
        const TensorInfo& t = output(d->output, "output");
        expect_rank(t, d->output, 4, "[1, channels, height, width]");
        if (d->channel >= t.shape[1]) {
            fail(fmt::format("decode.channel is {} but output {} has {}.", d->channel, d->output,
                             count_word(t.shape[1], "channel")));
        }
    } else if (const auto* d = std::get_if<DepthDecode>(&card.decode)) {
        const TensorInfo& t = output(d->output, "output");
        expect_rank(t, d->output, 4, "[1, 1, height, width]");
        if (t.shape[1] != 1) {
            fail(fmt::format("output {} has shape {}; a depth map is [1, 1, height, width].",
                             d->output, shape_string(t.shape)));
        }
    }
}

}  // namespace wgx::vision
