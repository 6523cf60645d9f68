// vision.percentiles: two percentiles of a float32 tensor, computed on the GPU and exactly —
// the values numpy.percentile gives with its default linear interpolation: for p, the order
// statistics k = floor((n - 1) p / 100) and k + 1, mixed by the fractional part.
//
// How: a radix select on order-preserving 32-bit keys of the floats, 8 bits per pass. Each pass
// histograms the next digit of the elements whose higher digits match the prefix found so far
// (one histogram per wanted order statistic, four at once), then one tiny dispatch picks the
// digit holding the wanted rank. Four passes give the exact keys; nothing is read back, so the
// depth colour map that uses the result runs in the same submission.
// Args: [values float32 (any shape, at least one element), out float32 [2] = {low, high}].
#pragma once

#include "wgx/op.h"

namespace wgx::vision {

class PercentileOp final : public Op {
  public:
    // Throws InvalidArgument unless 0 <= low <= high <= 100.
    PercentileOp(double low, double high);
    std::string_view name() const override { return "vision.percentiles"; }
    void record(Recorder& rec, const Args& args) const override;

  private:
    double low_, high_;
};

}  // namespace wgx::vision
