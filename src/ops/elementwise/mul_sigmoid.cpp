// wgx.mul_sigmoid.default: out = self * sigmoid(gate) with broadcasting, the squeeze-and-
// excitation gate of EfficientNet. The engine's own op: the graph pass
// graph/passes/fuse_activations makes it from sigmoid + mul, one dispatch instead of two.
// Args: [self, gate, out].
#include "graph/schema/fused_ops.h"
#include "ops/elementwise/binary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class MulSigmoid final : public BuiltinOp {
  public:
    std::string_view name() const override { return schema::MulSigmoid::name; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        using Schema = schema::MulSigmoid;
        args.expect_count(Schema::count, Schema::count);
        BinarySpec spec{name(), "return x * T(sigmoid(f32(y)));", /*float_only=*/true};
        record_binary(rec, spec, args.tensor(Schema::self, "self"),
                      args.tensor(Schema::gate, "gate"), args.tensor(Schema::out, "out"), 1.0f,
                      args);
    }
};

}  // namespace

const Op& mul_sigmoid_op() {
    static const MulSigmoid op;
    return op;
}

}  // namespace wgx::ops
