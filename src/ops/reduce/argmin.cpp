// aten.argmin.default: out = the index of the minimum of self along `dim`, or in the
// flattened self when dim is none (out then has rank 0, or every dim 1 with keepdim). Ties give
// the first index and NaN counts as the minimum, as in PyTorch. Args: [self, dim?, keepdim,
// out (int64)].
#include "ops/reduce/reduce.h"
#include "ops/registry.h"
#include "ops/common/dims.h"

namespace wgx::ops {
namespace {

class Argmin final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.argmin.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 4);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        bool keepdim = args.size() == 4 && !args.is_none(2) && args.boolean(2, "keepdim");
        std::vector<int64_t> dims;
        Shape shape;
        if (args.size() >= 3 && !args.is_none(1)) {
            dims = {wrap_dim(args, args.integer(1, "dim"), self.rank(), "dim")};
            shape = reduced_shape(self.shape(), dims, keepdim);
        } else {
            for (int64_t d = 0; d < self.rank(); ++d) dims.push_back(d);
            if (keepdim) shape.assign(self.shape().size(), 1);
        }
        if (self.rank() == 0) dims.clear();
        expect_dtype(args, out, DType::i64, "out");
        expect_shape(args, out, shape, "out");
        record_reduce(rec, args, ReduceKind::argmin, self, dims, out);
    }
};

}  // namespace

const Op& argmin_op() {
    static const Argmin op;
    return op;
}

}  // namespace wgx::ops
