// Detections and non-maximum suppression.
#pragma once

#include <vector>

#include "vision/geometry.h"

namespace wgx::vision {

struct Detection {
    int cls = 0;
    double score = 0;
    Box box;  // input-tensor pixels while decoding, photo pixels once mapped back
};

// Greedy NMS: candidates by descending score (equal scores keep their input order); a candidate
// is dropped when its IoU with an already kept box of the same class (or of any class when
// `per_class` is false) exceeds `iou_threshold`. At most `max_detections` are kept. Returns the
// kept ones, highest score first.
std::vector<Detection> non_max_suppression(std::vector<Detection> candidates, double iou_threshold,
                                           bool per_class, int max_detections);

// Sorts by descending score (stable) and keeps at most `max_detections` (no suppression).
std::vector<Detection> best_first(std::vector<Detection> detections, int max_detections);

}  // namespace wgx::vision
