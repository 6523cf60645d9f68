// The elementwise ops of two tensors, with broadcasting: out = f(self, other).
// Args: [self, other, out], or [self, other, alpha?, out] for the ops that scale `other` by alpha
// (default 1; the WGSL sees it as params.alpha). One row per op: its graph name, the WGSL body of
// `fn apply(x: T, y: T) -> T` (T as in binary.h), whether it takes alpha, and whether it is for
// float tensors only.
#include "ops/elementwise/binary.h"
#include "ops/op_table.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct BinaryRow {
    BinarySpec spec;
    bool alpha = false;
};

constexpr BinaryRow kBinaryOps[] = {
    {{"aten.add.Tensor", "return x + T(params.alpha) * y;"}, /*alpha=*/true},
    {{"aten.mul.Tensor", "return x * y;"}},
    {{"aten.sub.Tensor", "return x - T(params.alpha) * y;"}, /*alpha=*/true},
    // True division: PyTorch's of integers yields floats (an exporter adds _to_copy first).
    {{"aten.div.Tensor", "return x / y;", /*float_only=*/true}},
    {{"aten.maximum.default", "return max_nan(x, y);"}},  // NaN propagates, as in PyTorch
    {{"aten.minimum.default", "return min_nan(x, y);"}},
    // Negative bases with integral exponents keep their sign (common/math.wgsl).
    {{"aten.pow.Tensor_Tensor", "return T(pow_safe(f32(x), f32(y)));", /*float_only=*/true}},
    // C's fmod (the sign of self) and Python's % (the sign of other); ops/elementwise/modulo.h.
    {{"aten.fmod.Tensor", "return fmod_t(x, y);", /*float_only=*/false, /*modulo=*/true}},
    {{"aten.remainder.Tensor", "return remainder_t(x, y);", /*float_only=*/false,
      /*modulo=*/true}},
};

class BinaryOp final : public BuiltinOp {
  public:
    constexpr BinaryOp(const BinaryRow& row) : row_(row) {}
    std::string_view name() const override { return row_.spec.op; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, row_.alpha ? 4 : 3);
        const double alpha = args.size() == 4 && !args.is_none(2) ? args.number(2, "alpha") : 1.0;
        record_binary(rec, row_.spec, args.tensor(0, "self"), args.tensor(1, "other"),
                      args.tensor(args.size() - 1, "out"), static_cast<float>(alpha), args);
    }

  private:
    BinaryRow row_;
};

}  // namespace

std::span<const Op* const> binary_ops() {
    static const OpTable<BinaryOp> table(kBinaryOps);
    return table.ops();
}

}  // namespace wgx::ops
