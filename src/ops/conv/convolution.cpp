// aten.convolution.default: 1-D and 2-D convolution, grouped, dilated, strided, padded, and
// transposed (with output_padding), with an optional bias.
// Args: [input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups, out].
#include "graph/schema/fused_ops.h"
#include "ops/conv/conv2d.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Convolution final : public BuiltinOp {
  public:
    std::string_view name() const override { return schema::Convolution::name; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        record_convolution(rec, args, ConvSchema::plain);
    }
};

}  // namespace

const Op& convolution_op() {
    static const Convolution op;
    return op;
}

}  // namespace wgx::ops
