// aten.flip.default: out = self reversed along each of `dims`. Args: [self, dims, out].
// Every dtype.
#include <algorithm>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class Flip final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.flip.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(2, "out");
        auto dims = wrap_dims(args, int_list_arg(args, 1, "dims"), self.rank(), "dims");
        expect_dtype(args, out, self.dtype(), "out");
        expect_shape(args, out, self.shape(), "out");
        expect_indexable(args, out, "out");
        auto strides = contiguous_strides(self.shape());
        std::vector<CopyDim> copy;
        int64_t base = 0;
        for (int64_t d = 0; d < self.rank(); ++d) {
            int64_t size = self.shape()[d];
            bool flipped = std::find(dims.begin(), dims.end(), d) != dims.end();
            if (flipped) base += (size - 1) * strides[d];
            copy.push_back({size, flipped ? -strides[d] : strides[d], 0, size});
        }
        record_gather(rec, name(), self, out, std::move(copy), base);
    }
};

}  // namespace

const Op& flip_op() {
    static const Flip op;
    return op;
}

}  // namespace wgx::ops
