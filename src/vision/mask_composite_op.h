// vision.mask_composite: a segmentation map over the photo. For each photo pixel the map is
// sampled bilinearly at the matching position (undoing stretch/letterbox) and turned into a
// probability p (sigmoid for logit maps). The foreground keeps its colours with a light tint,
// the background turns dark grey, and p blends the two:
//   out = mix(grey(photo) * background, mix(photo, colour, tint), p), alpha 255,
// grey = 0.299 R + 0.587 G + 0.114 B.
// Args: [photo uint8 [h, w, 3], map float32 [1, C, H', W'], out uint8 [h, w, 4]].
#pragma once

#include <array>

#include "vision/model_card.h"
#include "wgx/op.h"

namespace wgx::vision {

struct MaskStyle {
    std::array<uint8_t, 3> colour{40, 200, 255};  // the foreground's tint
    float tint = 0.25f;                           // how much of it
    float background = 0.35f;                     // brightness of the grey background
};

class MaskCompositeOp final : public Op {
  public:
    MaskCompositeOp(const InputSpec& input, const SegmentDecode& decode, MaskStyle style = {})
        : input_(input), decode_(decode), style_(style) {}
    std::string_view name() const override { return "vision.mask_composite"; }
    void record(Recorder& rec, const Args& args) const override;

  private:
    InputSpec input_;
    SegmentDecode decode_;
    MaskStyle style_;
};

}  // namespace wgx::vision
