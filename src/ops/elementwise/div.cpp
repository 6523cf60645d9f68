// aten.div.Tensor: self / other (true division), with broadcasting. Args: [self, other, out].
// Float tensors only: PyTorch's true division of integers yields floats (use _to_copy first).
#include "ops/elementwise/binary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Div final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.div.Tensor"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        BinarySpec spec{name(), "return x / y;", /*float_only=*/true};
        record_binary(rec, spec, args.tensor(0, "self"), args.tensor(1, "other"),
                      args.tensor(2, "out"), 1.0f, args);
    }
};

}  // namespace

const Op& div_op() {
    static const Div op;
    return op;
}

}  // namespace wgx::ops
