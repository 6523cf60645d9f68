// aten.pow.Tensor_Scalar: self ** exponent (integral exponents keep the sign of negative bases), with a scalar operand. Args: [self, other, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class PowScalar final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.pow.Tensor_Scalar"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        double other = args.number(1, "exponent");
        UnarySpec spec{name(), "return pow_safe(x, params.p0);", /*float_only=*/true};
        record_unary(rec, spec, args.tensor(0, "self"), args.tensor(2, "out"), args,
                     static_cast<float>(other));
    }
};

}  // namespace

const Op& pow_scalar_op() {
    static const PowScalar op;
    return op;
}

}  // namespace wgx::ops
