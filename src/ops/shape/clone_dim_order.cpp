// dim_order_ops._clone_dim_order.default: clone with a dim order. Args: [self, non_blocking,
// dim_order?, out]; only the contiguous order is supported. A buffer copy.
#include "ops/common/dim_order.h"
#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class CloneDimOrder final : public BuiltinOp {
  public:
    std::string_view name() const override { return "dim_order_ops._clone_dim_order.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 4);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        if (args.size() >= 3) expect_contiguous_dim_order(args, args.size() - 2, self.rank());
        expect_shape(args, out, self.shape(), "out");
        record_reshape_copy(rec, args, self, out);
    }
};

}  // namespace

const Op& clone_dim_order_op() {
    static const CloneDimOrder op;
    return op;
}

}  // namespace wgx::ops
