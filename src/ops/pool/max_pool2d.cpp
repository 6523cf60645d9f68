// aten.max_pool2d.default: max pooling without indices.
// Args: [self, kernel_size, stride (empty: kernel_size), padding, dilation, ceil_mode, out].
#include "ops/pool/pool2d.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class MaxPool2d final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.max_pool2d.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(7, 7);
        record_max_pool2d(rec, args, args.tensor(6, "out"), nullptr);
    }
};

}  // namespace

const Op& max_pool2d_op() {
    static const MaxPool2d op;
    return op;
}

}  // namespace wgx::ops
