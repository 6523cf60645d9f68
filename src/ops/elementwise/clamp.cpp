// aten.clamp.default: min(max(x, min), max) with either bound optional.
// Args: [self, min?, max?, out]. A bound of +-DBL_MAX (or beyond float range) means none.
#include <cmath>
#include <limits>

#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

float bound(const Args& args, size_t i, const char* name, float none) {
    if (args.is_none(i)) return none;
    double v = args.number(i, name);
    // PyTorch clamps in the tensor's type; beyond float's range a bound cannot bind.
    if (v >= std::numeric_limits<float>::max()) return std::numeric_limits<float>::infinity();
    if (v <= -std::numeric_limits<float>::max()) return -std::numeric_limits<float>::infinity();
    return static_cast<float>(v);
}

class Clamp final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.clamp.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const float inf = std::numeric_limits<float>::infinity();
        float lo = bound(args, 1, "min", -inf);
        float hi = bound(args, 2, "max", inf);
        // min(max(x, lo), hi): if lo > hi every element becomes hi, as in PyTorch.
        UnarySpec spec{name(), "return min(max(x, params.p0), params.p1);", true};
        record_unary(rec, spec, args.tensor(0, "self"), args.tensor(3, "out"), args, lo, hi);
    }
};

}  // namespace

const Op& clamp_op() {
    static const Clamp op;
    return op;
}

}  // namespace wgx::ops
