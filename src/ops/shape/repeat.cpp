// aten.repeat.default: out = self tiled `repeats` times per dim (repeats may add leading dims).
// Args: [self, repeats, out]. Every dtype.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class Repeat final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.repeat.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(2, "out");
        std::vector<int64_t> repeats = int_list_arg(args, 1, "repeats");
        int64_t rank = static_cast<int64_t>(repeats.size());
        if (rank < self.rank()) {
            args.fail(fmt::format("repeats has {} entries, fewer than self's rank {}.", rank,
                                  self.rank()));
        }
        auto strides = contiguous_strides(self.shape());
        Shape shape(repeats.size());
        std::vector<CopyDim> copy;
        for (int64_t i = 0; i < rank; ++i) {
            if (repeats[i] < 1) {
                args.fail(fmt::format("repeats[{}] is {}; it must be positive.", i, repeats[i]));
            }
            int64_t j = i - (rank - self.rank());
            int64_t in = j < 0 ? 1 : self.shape()[j];
            shape[i] = in * repeats[i];
            copy.push_back({shape[i], j < 0 ? 0 : strides[j], 0, in});
        }
        expect_dtype(args, out, self.dtype(), "out");
        expect_shape(args, out, shape, "out");
        expect_indexable(args, out, "out");
        record_gather(rec, name(), self, out, std::move(copy), 0, CopyMode::wrap);
    }
};

}  // namespace

const Op& repeat_op() {
    static const Repeat op;
    return op;
}

}  // namespace wgx::ops
