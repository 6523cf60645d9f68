// The elementwise ops of a tensor and a number: out = f(self, other).
// Args: [self, other, out], or [self, other, alpha?, out] for the ops that scale by alpha
// (default 1). The WGSL sees `other` as params.p0 and alpha as params.p1. One row per op: its
// graph name, the WGSL body of `fn apply(x: T) -> T` (T as in unary.h), whether int32 is taken
// too, whether it takes alpha, and the name of its number in messages.
#include "ops/elementwise/unary.h"
#include "ops/op_table.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct ScalarRow {
    UnarySpec spec;
    bool alpha = false;
    const char* operand = "other";
};

constexpr ScalarRow kScalarOps[] = {
    {{"aten.add.Scalar", "return x + T(params.p0 * params.p1);", /*float_only=*/false}, true},
    {{"aten.sub.Scalar", "return x - T(params.p0 * params.p1);", /*float_only=*/false}, true},
    {{"aten.rsub.Scalar", "return T(params.p0) - T(params.p1) * x;", /*float_only=*/false}, true},
    {{"aten.mul.Scalar", "return x * T(params.p0);", /*float_only=*/false}},
    {{"aten.div.Scalar", "return x / T(params.p0);", /*float_only=*/true}},
    // Integral exponents keep the sign of negative bases (common/math.wgsl).
    {{"aten.pow.Tensor_Scalar", "return pow_safe(x, params.p0);", /*float_only=*/true},
     false,
     "exponent"},
    {{"aten.fmod.Scalar", "return fmod_t(x, T(params.p0));", /*float_only=*/false,
      /*modulo=*/true}},
    {{"aten.remainder.Scalar", "return remainder_t(x, T(params.p0));", /*float_only=*/false,
      /*modulo=*/true}},
};

class ScalarOp final : public BuiltinOp {
  public:
    constexpr ScalarOp(const ScalarRow& row) : row_(row) {}
    std::string_view name() const override { return row_.spec.op; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, row_.alpha ? 4 : 3);
        const double other = args.number(1, row_.operand);
        const double alpha = !row_.alpha                            ? 0.0
                             : args.size() == 4 && !args.is_none(2) ? args.number(2, "alpha")
                                                                    : 1.0;
        record_unary(rec, row_.spec, args.tensor(0, "self"), args.tensor(args.size() - 1, "out"),
                     args, static_cast<float>(other), static_cast<float>(alpha));
    }

  private:
    ScalarRow row_;
};

}  // namespace

std::span<const Op* const> scalar_ops() {
    static const OpTable<ScalarOp> table(kScalarOps);
    return table.ops();
}

}  // namespace wgx::ops
