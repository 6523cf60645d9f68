// aten.mul.Tensor: out = self * other, with broadcasting. Args: [self, other, out].
#include "ops/elementwise/binary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Mul final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.mul.Tensor"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        BinarySpec spec{name(), "return x * y;"};
        record_binary(rec, spec, args.tensor(0, "self"), args.tensor(1, "other"),
                      args.tensor(2, "out"), 1.0f, args);
    }
};

}  // namespace

const Op& mul_op() {
    static const Mul op;
    return op;
}

}  // namespace wgx::ops
