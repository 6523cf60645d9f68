// aten.rsub.Scalar: other - alpha * self, with a scalar operand. Args: [self, other, alpha?, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class RsubScalar final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.rsub.Scalar"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 4);
        double other = args.number(1, "other");
        double alpha = args.size() == 4 && !args.is_none(2) ? args.number(2, "alpha") : 1.0;
        UnarySpec spec{name(), "return T(params.p0) - T(params.p1) * x;", /*float_only=*/false};
        record_unary(rec, spec, args.tensor(0, "self"), args.tensor(args.size() - 1, "out"), args,
                     static_cast<float>(other), static_cast<float>(alpha));
    }
};

}  // namespace

const Op& rsub_scalar_op() {
    static const RsubScalar op;
    return op;
}

}  // namespace wgx::ops
