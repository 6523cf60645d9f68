// Detection decoders for the card's two output layouts (docs/MODEL_CARDS.md). They return
// boxes in input-tensor pixels, after thresholding and NMS, highest score first; mapping back to
// the photo is InputGeometry::to_photo.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vision/detection.h"
#include "vision/model_card.h"

namespace wgx::vision {

// Distance bins of each side (left, top, right, bottom) -> the expected distance, in strides:
// softmax over the reg_max + 1 bins (in double), then sum of bin index times probability.
double dfl_expectation(std::span<const float> bins);

// "anchor_free_dfl": scores [N, classes], boxes [N, 4 * (reg_max + 1)]. Every (row, class) pair
// whose activated score exceeds score_threshold is a candidate (a row may propose several
// classes), as NanoDet's own post-processing does. Rows with a non-finite box are skipped.
// Throws InvalidArgument when the sizes disagree with the strides and the input size.
std::vector<Detection> decode_anchor_free_dfl(const DflDecode& decode, int input_height,
                                              int input_width, std::span<const float> scores,
                                              int64_t classes, std::span<const float> boxes);

// "boxes_scores": rows of 4 box values then one score per class (already activated). Each row
// proposes its best class when that score exceeds score_threshold.
std::vector<Detection> decode_boxes_scores(const BoxesScoresDecode& decode, int input_height,
                                           int input_width, std::span<const float> output,
                                           int64_t row_width);

}  // namespace wgx::vision
