// aten.expand_copy.default: out = self broadcast to `size` (-1 keeps a dim; new dims lead).
// Args: [self, size, implicit, out]. Every dtype.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class ExpandCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.expand_copy.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 4);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        std::vector<int64_t> size = int_list_arg(args, 1, "size");
        int64_t rank = static_cast<int64_t>(size.size());
        if (rank < self.rank()) {
            args.fail(fmt::format("size {} has fewer dims than self {}.", shape_string(size),
                                  shape_string(self.shape())));
        }
        auto strides = contiguous_strides(self.shape());
        Shape shape(size.size());
        std::vector<CopyDim> copy;
        for (int64_t i = 0; i < rank; ++i) {
            int64_t j = i - (rank - self.rank());
            int64_t stride = 0;
            if (j < 0) {
                if (size[i] < 1)
                    args.fail(fmt::format("size[{}] is {} for a new dim.", i, size[i]));
                shape[i] = size[i];
            } else if (size[i] == -1 || size[i] == self.shape()[j]) {
                shape[i] = self.shape()[j];
                stride = strides[j];
            } else if (self.shape()[j] == 1 && size[i] >= 1) {
                shape[i] = size[i];
            } else {
                args.fail(fmt::format("self {} cannot expand to {} (dim {}).",
                                      shape_string(self.shape()), shape_string(size), i));
            }
            copy.push_back({shape[i], stride, 0, shape[i]});
        }
        expect_dtype(args, out, self.dtype(), "out");
        expect_shape(args, out, shape, "out");
        expect_indexable(args, out, "out");
        record_gather(rec, name(), self, out, std::move(copy), 0);
    }
};

}  // namespace

const Op& expand_copy_op() {
    static const ExpandCopy op;
    return op;
}

}  // namespace wgx::ops
