// wgx.mul_hardsigmoid.default: out = self * hardsigmoid(gate) with broadcasting, the squeeze-and-
// excitation gate of MobileNetV3. The engine's own op: the graph pass
// graph/passes/fuse_activations makes it from hardsigmoid + mul, one dispatch instead of two.
// Args: [self, gate, out].
#include "graph/schema/fused_ops.h"
#include "ops/elementwise/binary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class MulHardsigmoid final : public BuiltinOp {
  public:
    std::string_view name() const override { return schema::MulHardsigmoid::name; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        using Schema = schema::MulHardsigmoid;
        args.expect_count(Schema::count, Schema::count);
        BinarySpec spec{name(), "return x * T(clamp(f32(y) + 3.0, 0.0, 6.0) / 6.0);",
                        /*float_only=*/true};
        record_binary(rec, spec, args.tensor(Schema::self, "self"),
                      args.tensor(Schema::gate, "gate"), args.tensor(Schema::out, "out"), 1.0f,
                      args);
    }
};

}  // namespace

const Op& mul_hardsigmoid_op() {
    static const MulHardsigmoid op;
    return op;
}

}  // namespace wgx::ops
