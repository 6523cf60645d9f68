// aten.mul.Scalar: self * other, with a scalar operand. Args: [self, other, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class MulScalar final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.mul.Scalar"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        double other = args.number(1, "other");
        UnarySpec spec{name(), "return x * T(params.p0);", /*float_only=*/false};
        record_unary(rec, spec, args.tensor(0, "self"), args.tensor(2, "out"), args,
                     static_cast<float>(other));
    }
};

}  // namespace

const Op& mul_scalar_op() {
    static const MulScalar op;
    return op;
}

}  // namespace wgx::ops
