// vision.preprocess: a photo (uint8 [h, w, 3] RGB) -> a model's input (float32 [1, 3, H, W]),
// resized by stretch or letterbox with bilinear half-pixel sampling (no antialias) on 0..255
// values, then x = (pixel * scale - mean[c]) / std[c] — exactly the card's definition
// (docs/MODEL_CARDS.md). Args: [image, out]. Written against the public op contract, like any
// user op.
#pragma once

#include "vision/model_card.h"
#include "wgx/op.h"

namespace wgx::vision {

class PreprocessOp final : public Op {
  public:
    explicit PreprocessOp(const InputSpec& spec) : spec_(spec) {}
    std::string_view name() const override { return "vision.preprocess"; }
    void record(Recorder& rec, const Args& args) const override;

  private:
    InputSpec spec_;
};

}  // namespace wgx::vision
