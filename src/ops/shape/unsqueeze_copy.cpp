// aten.unsqueeze_copy.default: out = self with a new dim of size 1 at `dim` (in [-rank-1, rank]).
// Args: [self, dim, out]. A buffer copy.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class UnsqueezeCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.unsqueeze_copy.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(2, "out");
        int64_t dim = wrap_dim(args, args.integer(1, "dim"), self.rank() + 1, "dim");
        Shape shape = self.shape();
        shape.insert(shape.begin() + dim, 1);
        expect_shape(args, out, shape, "out");
        record_reshape_copy(rec, args, self, out);
    }
};

}  // namespace

const Op& unsqueeze_copy_op() {
    static const UnsqueezeCopy op;
    return op;
}

}  // namespace wgx::ops
