// dim_order_ops._to_dim_order_copy.default: _to_copy that states the memory layout as a dim
// order. Args: [self, dtype?, layout?, device?, pin_memory?, non_blocking, dim_order?, out]
// (older exports: [self, dtype?, non_blocking, dim_order?, out]); dim_order is always second to
// last. Only the contiguous order is supported; then it is aten._to_copy.
#include "ops/common/dim_order.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class ToDimOrderCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "dim_order_ops._to_dim_order_copy.default"; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 8);
        const Tensor& self = args.tensor(0, "self");
        if (args.size() >= 4) expect_contiguous_dim_order(args, args.size() - 2, self.rank());
        const Arg dtype = args.size() > 2 ? args[1] : Arg();
        const Arg forwarded[] = {self, dtype, args[args.size() - 1]};
        to_copy_op().record(rec, Args(args.op(), forwarded));
    }
};

}  // namespace

const Op& to_dim_order_copy_op() {
    static const ToDimOrderCopy op;
    return op;
}

}  // namespace wgx::ops
