// et_vk.conv_with_clamp.default: aten.convolution followed by clamp(output_min, output_max),
// fused into the convolution's epilogue. A bound that is none or beyond float's range is none.
// Args: [input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups,
//        output_min?, output_max?, out].
#include "graph/schema/fused_ops.h"
#include "ops/conv/conv2d.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class ConvWithClamp final : public BuiltinOp {
  public:
    std::string_view name() const override { return schema::ConvWithClamp::name; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        record_convolution(rec, args, ConvSchema::clamp);
    }
};

}  // namespace

const Op& conv_with_clamp_op() {
    static const ConvWithClamp op;
    return op;
}

}  // namespace wgx::ops
