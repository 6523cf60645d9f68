// wgx.conv_activation.default: the engine's own op for a convolution whose output only an
// activation reads: act(conv(x)), the activation in the convolution's epilogue (after the bias)
// on every path: the GEMM's (1x1, im2col, split K) and the depthwise and direct kernels. No
// exporter writes it; the graph pass graph/passes/fuse_conv_epilogue (fuse_conv_activation)
// builds it from aten.convolution + aten.silu / aten.hardswish.
// Args: [input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups,
//        activation, out], with aten.convolution's arguments and `activation` a string:
//   "silu"       x * sigmoid(x), as aten.silu (common/math.wgsl's sigmoid, stable for any |x|)
//   "hardswish"  x * clamp(x + 3, 0, 6) / 6, as aten.hardswish
// The argument positions and activation names: graph/schema/fused_ops.h.
#include "graph/schema/fused_ops.h"
#include "ops/conv/conv2d.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class ConvActivation final : public BuiltinOp {
  public:
    std::string_view name() const override { return schema::ConvActivation::name; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        record_convolution(rec, args, ConvSchema::activation);
    }
};

}  // namespace

const Op& conv_activation_op() {
    static const ConvActivation op;
    return op;
}

}  // namespace wgx::ops
