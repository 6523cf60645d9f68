// aten.permute_copy.default: out = self with its dims reordered, out.shape[i] =
// self.shape[dims[i]]. Args: [self, dims, out]. Every dtype.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class PermuteCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.permute_copy.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(2, "out");
        std::vector<int64_t> raw = int_list_arg(args, 1, "dims");
        if (static_cast<int64_t>(raw.size()) != self.rank()) {
            args.fail(fmt::format("dims has {} entries for a tensor of rank {}.", raw.size(),
                                  self.rank()));
        }
        auto dims = wrap_dims(args, raw, self.rank(), "dims");
        expect_dtype(args, out, self.dtype(), "out");
        auto strides = contiguous_strides(self.shape());
        Shape shape;
        std::vector<CopyDim> copy;
        for (int64_t d : dims) {
            shape.push_back(self.shape()[d]);
            copy.push_back({self.shape()[d], strides[d], 0, self.shape()[d]});
        }
        expect_shape(args, out, shape, "out");
        expect_indexable(args, out, "out");
        record_gather(rec, name(), self, out, std::move(copy), 0);
    }
};

}  // namespace

const Op& permute_copy_op() {
    static const PermuteCopy op;
    return op;
}

}  // namespace wgx::ops
