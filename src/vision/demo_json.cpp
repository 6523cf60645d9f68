#include "vision/demo_json.h"

#include <cmath>

namespace wgx::vision {

using json = nlohmann::ordered_json;

namespace {

// Rounded to `digits` decimals for reading, far finer than any comparison made on them (IoU,
// top-1). Dividing by an exact power of ten gives the double nearest the decimal, which prints
// short (0.246292, not 0.24629199999999998).
double round_to(double v, int digits) {
    const double p = std::pow(10.0, digits);
    return std::isfinite(v) ? std::round(v * p) / p : v;
}

json header(std::string_view schema, const ModelCard& card, const std::string& image,
            const FrameResult& r) {
    return json{{"schema", schema},
                {"model", card.name},
                {"image", image},
                {"width", r.geometry.photo_width},
                {"height", r.geometry.photo_height}};
}

}  // namespace

json detect_json(const ModelCard& card, const std::string& image, const FrameResult& r) {
    json doc = header("wgx-detect/1", card, image, r);
    json dets = json::array();
    for (const Detection& d : r.detections) {
        dets.push_back({{"class", d.cls},
                        {"label", card.label(d.cls)},
                        {"score", round_to(d.score, 6)},
                        {"box",
                         {round_to(d.box.x1, 3), round_to(d.box.y1, 3), round_to(d.box.x2, 3),
                          round_to(d.box.y2, 3)}}});
    }
    doc["detections"] = std::move(dets);
    return doc;
}

json classify_json(const ModelCard& card, const std::string& image, const FrameResult& r) {
    json doc{{"schema", "wgx-classify/1"}, {"model", card.name}, {"image", image}};
    json top = json::array();
    for (const ClassScore& c : r.top) {
        top.push_back(
            {{"class", c.cls}, {"label", card.label(c.cls)}, {"score", round_to(c.score, 6)}});
    }
    doc["top"] = std::move(top);
    return doc;
}

double foreground_fraction(const SegmentDecode& decode, const std::vector<float>& map) {
    if (map.empty()) return 0.0;
    size_t fg = 0;
    for (float v : map) {
        double p = decode.logit ? 1.0 / (1.0 + std::exp(-double(v))) : double(v);
        if (p >= decode.threshold) ++fg;
    }
    return double(fg) / double(map.size());
}

json segment_json(const ModelCard& card, const std::string& image, const FrameResult& r,
                  const std::string& output) {
    json doc = header("wgx-segment/1", card, image, r);
    doc["map"] = {{"width", r.map_width}, {"height", r.map_height}};
    const auto& d = std::get<SegmentDecode>(card.decode);
    doc["threshold"] = d.threshold;
    if (!r.map.empty()) doc["foreground_fraction"] = round_to(foreground_fraction(d, r.map), 6);
    doc["output"] = output.empty() ? json(nullptr) : json(output);
    return doc;
}

json depth_json(const ModelCard& card, const std::string& image, const FrameResult& r,
                const std::string& output) {
    json doc = header("wgx-depth/1", card, image, r);
    const auto& d = std::get<DepthDecode>(card.decode);
    doc["map"] = {{"width", r.map_width}, {"height", r.map_height}};
    doc["larger_is"] = d.larger_is_far ? "far" : "near";
    doc["percentiles"] = {d.low_percentile, d.high_percentile};
    doc["range"] = {r.low, r.high};
    doc["output"] = output.empty() ? json(nullptr) : json(output);
    return doc;
}

}  // namespace wgx::vision
