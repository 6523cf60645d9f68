// wgx.conv_add_clamp.default: the engine's own op for a convolution whose output is only added
// to another tensor and then (optionally) clamped: clamp(conv(x) + residual, min, max), one
// dispatch on the GEMM paths. No exporter writes it; the graph pass
// graph/passes/fuse_conv_epilogue builds it from aten.convolution + aten.add (+ aten.relu /
// hardtanh / clamp). A bound that is none or beyond float's range is none.
// Args: [input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups,
//        residual, output_min?, output_max?, out].
#include "graph/schema/fused_ops.h"
#include "ops/conv/conv2d.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class ConvAddClamp final : public BuiltinOp {
  public:
    std::string_view name() const override { return schema::ConvAddClamp::name; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        record_convolution(rec, args, ConvSchema::residual_clamp);
    }
};

}  // namespace

const Op& conv_add_clamp_op() {
    static const ConvAddClamp op;
    return op;
}

}  // namespace wgx::ops
