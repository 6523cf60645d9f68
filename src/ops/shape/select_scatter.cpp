// aten.select_scatter.default: out = self with self.select(dim, index) replaced by src (self's
// shape without dim). Args: [self, src, dim, index, out]; a negative index counts from the end.
// Every dtype (moved as bits), through slice_scatter's kernel with a slice of one.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/slice_scatter.h"

namespace wgx::ops {
namespace {

class SelectScatter final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.select_scatter.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(5, 5);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& src = args.tensor(1, "src");
        const Tensor& out = args.tensor(4, "out");
        if (self.rank() == 0) args.fail("self must have at least one dim.");
        const int64_t dim = wrap_dim(args, args.integer(2, "dim"), self.rank(), "dim");
        const int64_t n = self.shape()[dim];
        int64_t index = args.integer(3, "index");
        if (index < -n || index >= n) {
            args.fail(
                fmt::format("index {} is out of range for dim {} of size {}.", index, dim, n));
        }
        if (index < 0) index += n;
        expect_dtype(args, src, self.dtype(), "src");
        expect_dtype(args, out, self.dtype(), "out");
        expect_shape(args, out, self.shape(), "out");
        Shape slice = self.shape();
        slice.erase(slice.begin() + dim);
        expect_shape(args, src, slice, "src");
        expect_indexable(args, self, "self");
        if (self.numel() == 0) return;
        record_slice_scatter(rec, name(), self, src, out, dim, index, 1, 1);
    }
};

}  // namespace

const Op& select_scatter_op() {
    static const SelectScatter op;
    return op;
}

}  // namespace wgx::ops
