// aten.pow.Tensor_Tensor: self ** exponent (negative bases with integral exponents keep their sign), with broadcasting. Args: [self, other, out].
#include "ops/elementwise/binary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class PowTensor final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.pow.Tensor_Tensor"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        BinarySpec spec{name(), "return T(pow_safe(f32(x), f32(y)));", /*float_only=*/true};
        record_binary(rec, spec, args.tensor(0, "self"), args.tensor(1, "other"),
                      args.tensor(2, "out"), 1.0f, args);
    }
};

}  // namespace

const Op& pow_tensor_op() {
    static const PowTensor op;
    return op;
}

}  // namespace wgx::ops
