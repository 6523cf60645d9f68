// An op written outside src/ops, as user code would: image pre-processing through the same
// operator contract as the built-in ops. Args: [image u8 [H, W, 3], out f32 [1, 3, H, W]].
#pragma once

#include <array>

#include "wgx/op.h"

namespace example {

class NormalizeImage final : public wgx::Op {
  public:
    NormalizeImage(std::array<float, 3> mean, std::array<float, 3> std) : mean_(mean), std_(std) {}
    std::string_view name() const override { return "example.normalize_image"; }
    void record(wgx::Recorder& rec, const wgx::Args& args) const override;

  private:
    std::array<float, 3> mean_, std_;
};

}  // namespace example
