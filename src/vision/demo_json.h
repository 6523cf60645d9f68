// The demos' --json documents (docs/DEMOS.md): wgx-detect/1, wgx-classify/1, wgx-segment/1,
// wgx-depth/1. One place builds them, so the tool and the tests agree on the schema.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "vision/model_card.h"
#include "vision/pipeline.h"

namespace wgx::vision {

// `image` is the photo's path as given; `output` the picture written ("" when none).
nlohmann::ordered_json detect_json(const ModelCard& card, const std::string& image,
                                   const FrameResult& result);
nlohmann::ordered_json classify_json(const ModelCard& card, const std::string& image,
                                     const FrameResult& result);
nlohmann::ordered_json segment_json(const ModelCard& card, const std::string& image,
                                    const FrameResult& result, const std::string& output);
nlohmann::ordered_json depth_json(const ModelCard& card, const std::string& image,
                                  const FrameResult& result, const std::string& output);

// Fraction of the map's pixels whose probability reaches the card's threshold (sigmoid applied
// to logit maps).
double foreground_fraction(const SegmentDecode& decode, const std::vector<float>& map);

}  // namespace wgx::vision
