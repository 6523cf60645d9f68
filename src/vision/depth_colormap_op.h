// vision.depth_colormap: a depth map as a colour picture the size of the photo. Each photo
// pixel samples the map bilinearly at the matching position (undoing stretch/letterbox),
// normalises it with the range {low, high} (e.g. from vision.percentiles) to 0..1, clamps, turns
// it into nearness (1 - t when larger values are farther) and looks the colour up in a ramp
// from dark violet (far) to pale yellow (near).
// Args: [map float32 [1, 1, H', W'], range float32 [2], out uint8 [h, w, 4]].
#pragma once

#include "vision/model_card.h"
#include "wgx/op.h"

namespace wgx::vision {

class DepthColormapOp final : public Op {
  public:
    // The photo's size is needed to map its pixels into the map.
    DepthColormapOp(const InputSpec& input, bool larger_is_far)
        : input_(input), larger_is_far_(larger_is_far) {}
    std::string_view name() const override { return "vision.depth_colormap"; }
    void record(Recorder& rec, const Args& args) const override;

    // The ramp's colour for nearness t in [0, 1] (0..255 RGB, before rounding); the shader
    // uses the same stops. For tests and legends.
    static std::array<double, 3> ramp(double t);

  private:
    InputSpec input_;
    bool larger_is_far_;
};

}  // namespace wgx::vision
