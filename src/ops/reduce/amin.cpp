// aten.amin.default: out = the minimum of self over `dim` (a list; [] = every dim).
// Args: [self, dim, keepdim, out]; out has self's dtype. NaN propagates, as in PyTorch.
#include "ops/reduce/reduce.h"
#include "ops/registry.h"
#include "ops/common/dims.h"

namespace wgx::ops {
namespace {

class Amin final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.amin.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 4);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        std::vector<int64_t> dims;
        if (args.size() >= 3) {
            dims = reduction_dims(args, 1, self.rank());
        } else {
            for (int64_t d = 0; d < self.rank(); ++d) dims.push_back(d);
        }
        bool keepdim = args.size() == 4 && !args.is_none(2) && args.boolean(2, "keepdim");
        expect_dtype(args, out, self.dtype(), "out");
        expect_shape(args, out, reduced_shape(self.shape(), dims, keepdim), "out");
        record_reduce(rec, args, ReduceKind::min, self, dims, out);
    }
};

}  // namespace

const Op& amin_op() {
    static const Amin op;
    return op;
}

}  // namespace wgx::ops
