// aten.copy.default and aten.copy_.default: out = src broadcast to self's shape (self's values
// are not read). Args: [self, src, non_blocking, out]; for copy_ out is self itself, which the
// op writes in place (a model's state buffer, e.g. a DeltaNet or short-conv state written back
// at the end of a run: schema/in_place.h). One dtype throughout (PyTorch would convert; the
// exports copy like into like). Every dtype.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

// Both ops: out = src broadcast to self's shape.
void record_copy(Recorder& rec, const Args& args) {
    args.expect_count(4, 4);
    const Tensor& self = args.tensor(0, "self");
    const Tensor& src = args.tensor(1, "src");
    args.boolean(2, "non_blocking");
    const Tensor& out = args.tensor(3, "out");
    expect_dtype(args, src, self.dtype(), "src");
    expect_dtype(args, out, self.dtype(), "out");
    expect_shape(args, out, self.shape(), "out");
    if (src.shape() == self.shape()) {
        rec.copy(src, out);
        return;
    }
    // src's dims align with self's trailing ones; a dim of 1 (or a missing leading one) is
    // read again for every index there.
    const Shape& shape = self.shape();
    if (src.rank() > self.rank()) {
        args.fail(fmt::format("src {} has more dims than self {}.", shape_string(src.shape()),
                              shape_string(shape)));
    }
    const auto strides = contiguous_strides(src.shape());
    const int64_t lead = self.rank() - src.rank();
    std::vector<CopyDim> copy;
    for (int64_t d = 0; d < self.rank(); ++d) {
        const int64_t j = d - lead;
        int64_t stride = 0;
        if (j >= 0 && src.shape()[j] == shape[d]) {
            stride = strides[j];
        } else if (j >= 0 && src.shape()[j] != 1) {
            args.fail(fmt::format("src {} does not broadcast to self {} (dim {}).",
                                  shape_string(src.shape()), shape_string(shape), d));
        }
        copy.push_back({shape[d], stride, 0, shape[d]});
    }
    expect_indexable(args, out, "out");
    record_gather(rec, args.op(), src, out, std::move(copy), 0);
}

class Copy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.copy.default"; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override { record_copy(rec, args); }
};

class CopyInPlace final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.copy_.default"; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override { record_copy(rec, args); }
};

}  // namespace

const Op& copy_op() {
    static const Copy op;
    return op;
}

const Op& copy_in_place_op() {
    static const CopyInPlace op;
    return op;
}

}  // namespace wgx::ops
