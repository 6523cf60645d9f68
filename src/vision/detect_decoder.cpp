#include "vision/detect_decoder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "wgx/error.h"

namespace wgx::vision {

double dfl_expectation(std::span<const float> bins) {
    double m = -INFINITY;
    for (float b : bins) m = std::max<double>(m, b);
    double sum = 0, weighted = 0;
    for (size_t i = 0; i < bins.size(); ++i) {
        double e = std::exp(double(bins[i]) - m);
        sum += e;
        weighted += e * double(i);
    }
    return weighted / sum;
}

namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

bool finite_box(const Box& b) {
    return std::isfinite(b.x1) && std::isfinite(b.y1) && std::isfinite(b.x2) && std::isfinite(b.y2);
}

}  // namespace

std::vector<Detection> decode_anchor_free_dfl(const DflDecode& d, int input_height, int input_width,
                                              std::span<const float> scores, int64_t classes,
                                              std::span<const float> boxes) {
    if (classes < 1 || scores.size() % size_t(classes) != 0) {
        throw InvalidArgument(
            fmt::format("anchor_free_dfl: {} score values are not rows of {} "
                        "classes.",
                        scores.size(), classes));
    }
    const int64_t rows = int64_t(scores.size()) / classes;
    const int64_t bins = d.reg_max + 1;
    struct Level {
        int64_t first_row, cols, stride;
    };
    std::vector<Level> levels;
    int64_t expected = 0;
    for (int s : d.strides) {
        const int64_t cols = (input_width + s - 1) / s, lines = (input_height + s - 1) / s;
        levels.push_back({expected, cols, s});
        expected += cols * lines;
    }
    if (rows != expected || int64_t(boxes.size()) != rows * 4 * bins) {
        throw InvalidArgument(fmt::format(
            "anchor_free_dfl: a {}x{} input with strides {} has {} rows; got {} score rows and "
            "{} box values ({} expected).",
            input_width, input_height, fmt::join(d.strides, ","), expected, rows, boxes.size(),
            expected * 4 * bins));
    }
    std::vector<Detection> candidates;
    size_t level = 0;
    for (int64_t r = 0; r < rows; ++r) {
        while (level + 1 < levels.size() && r >= levels[level + 1].first_row) ++level;
        const Level& L = levels[level];
        bool decoded = false;
        Box box;
        for (int64_t c = 0; c < classes; ++c) {
            double score = scores[size_t(r * classes + c)];
            if (d.sigmoid) score = sigmoid(score);
            if (!(score > d.score_threshold)) continue;  // NaN never passes
            if (!decoded) {
                const int64_t cell = r - L.first_row;
                const int64_t row = cell / L.cols, col = cell % L.cols;
                const double cx = (double(col) + d.center_offset) * double(L.stride);
                const double cy = (double(row) + d.center_offset) * double(L.stride);
                double dist[4];
                for (int side = 0; side < 4; ++side) {
                    dist[side] = dfl_expectation(
                                     boxes.subspan(size_t((r * 4 + side) * bins), size_t(bins))) *
                                 double(L.stride);
                }
                box = Box{cx - dist[0], cy - dist[1], cx + dist[2], cy + dist[3]};
                decoded = true;
            }
            if (!finite_box(box)) break;
            candidates.push_back({int(c), score, box});
        }
    }
    if (!d.nms) return best_first(std::move(candidates), d.max_detections);
    return non_max_suppression(std::move(candidates), d.iou_threshold, true, d.max_detections);
}

std::vector<Detection> decode_boxes_scores(const BoxesScoresDecode& d, int input_height,
                                           int input_width, std::span<const float> output,
                                           int64_t row_width) {
    if (row_width < 5 || output.size() % size_t(row_width) != 0) {
        throw InvalidArgument(
            fmt::format("boxes_scores: {} values are not rows of 4 box values "
                        "and at least one score (row width {}).",
                        output.size(), row_width));
    }
    const int64_t rows = int64_t(output.size()) / row_width;
    const double sx = d.normalized ? input_width : 1.0, sy = d.normalized ? input_height : 1.0;
    std::vector<Detection> candidates;
    for (int64_t r = 0; r < rows; ++r) {
        const float* row = output.data() + r * row_width;
        int best = -1;
        double best_score = -INFINITY;
        for (int64_t c = 0; c < row_width - 4; ++c) {
            if (row[4 + c] > best_score) {
                best_score = row[4 + c];
                best = int(c);
            }
        }
        if (best < 0 || !(best_score > d.score_threshold)) continue;
        Box box;
        if (d.cxcywh) {
            box = Box{(row[0] - row[2] / 2.0) * sx, (row[1] - row[3] / 2.0) * sy,
                      (row[0] + row[2] / 2.0) * sx, (row[1] + row[3] / 2.0) * sy};
        } else {
            box = Box{row[0] * sx, row[1] * sy, row[2] * sx, row[3] * sy};
        }
        if (!finite_box(box)) continue;
        candidates.push_back({best, best_score, box});
    }
    if (!d.nms) return best_first(std::move(candidates), d.max_detections);
    return non_max_suppression(std::move(candidates), d.iou_threshold, true, d.max_detections);
}

}  // namespace wgx::vision
