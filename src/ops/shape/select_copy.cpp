// aten.select_copy.int: out = self[..., index, ...] along `dim` (that dim removed).
// Args: [self, dim, index, out]; a negative index counts from the end. Every dtype.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class SelectCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.select_copy.int"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(3, "out");
        if (self.rank() == 0) args.fail("self must have at least one dim.");
        int64_t dim = wrap_dim(args, args.integer(1, "dim"), self.rank(), "dim");
        int64_t size = self.shape()[dim];
        int64_t index = args.integer(2, "index");
        if (index < -size || index >= size) {
            args.fail(
                fmt::format("index {} is out of range for dim {} of size {}.", index, dim, size));
        }
        if (index < 0) index += size;
        expect_dtype(args, out, self.dtype(), "out");
        Shape shape = self.shape();
        shape.erase(shape.begin() + dim);
        expect_shape(args, out, shape, "out");
        expect_indexable(args, self, "self");
        auto strides = contiguous_strides(self.shape());
        std::vector<CopyDim> copy;
        for (int64_t d = 0; d < self.rank(); ++d) {
            if (d != dim) copy.push_back({self.shape()[d], strides[d], 0, self.shape()[d]});
        }
        record_gather(rec, name(), self, out, std::move(copy), index * strides[dim]);
    }
};

}  // namespace

const Op& select_copy_op() {
    static const SelectCopy op;
    return op;
}

}  // namespace wgx::ops
