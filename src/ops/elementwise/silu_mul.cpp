// wgx.silu_mul.default: out = silu(self) * other, the gated unit of a SwiGLU feed-forward layer.
// The engine's own op: graph/passes/fuse_silu_mul makes it from silu + mul, one dispatch
// instead of two in every transformer block. Args: [self, other, out] (schema::SiluMul), with
// broadcasting as the binary ops; computed in f32 (silu's product not rounded to float16
// before the multiplication).
#include "graph/schema/fused_ops.h"
#include "ops/elementwise/binary.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class SiluMul final : public BuiltinOp {
    using S = schema::SiluMul;

  public:
    std::string_view name() const override { return schema::SiluMul::name; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(S::count, S::count);
        BinarySpec spec{name(), "return (x * sigmoid(x)) * y;", /*float_only=*/true};
        record_binary(rec, spec, args.tensor(S::self, "self"), args.tensor(S::other, "other"),
                      args.tensor(S::out, "out"), 1.0f, args);
    }
};

}  // namespace

const Op& silu_mul_op() {
    static const SiluMul op;
    return op;
}

}  // namespace wgx::ops
