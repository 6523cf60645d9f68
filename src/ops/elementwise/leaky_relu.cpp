// aten.leaky_relu.default: x if x > 0 else negative_slope * x.
// Args: [self, negative_slope = 0.01, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class LeakyRelu final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.leaky_relu.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 3);
        double slope =
            args.size() == 3 && !args.is_none(1) ? args.number(1, "negative_slope") : 0.01;
        UnarySpec spec{name(), "return select(params.p0 * x, x, x > 0.0);", true};
        record_unary(rec, spec, args.tensor(0, "self"), args.tensor(args.size() - 1, "out"), args,
                     static_cast<float>(slope));
    }
};

}  // namespace

const Op& leaky_relu_op() {
    static const LeakyRelu op;
    return op;
}

}  // namespace wgx::ops
