#include "vision/detection.h"

#include <algorithm>

namespace wgx::vision {

std::vector<Detection> best_first(std::vector<Detection> detections, int max_detections) {
    std::stable_sort(detections.begin(), detections.end(),
                     [](const Detection& a, const Detection& b) { return a.score > b.score; });
    if (max_detections >= 0 && detections.size() > size_t(max_detections)) {
        detections.resize(size_t(max_detections));
    }
    return detections;
}

std::vector<Detection> non_max_suppression(std::vector<Detection> candidates, double iou_threshold,
                                           bool per_class, int max_detections) {
    candidates = best_first(std::move(candidates), -1);
    std::vector<Detection> kept;
    for (const Detection& c : candidates) {
        if (max_detections >= 0 && kept.size() >= size_t(max_detections)) break;
        bool suppressed = false;
        for (const Detection& k : kept) {
            if ((!per_class || k.cls == c.cls) && iou(k.box, c.box) > iou_threshold) {
                suppressed = true;
                break;
            }
        }
        if (!suppressed) kept.push_back(c);
    }
    return kept;
}

}  // namespace wgx::vision
