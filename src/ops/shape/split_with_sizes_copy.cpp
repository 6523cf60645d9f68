// aten.split_with_sizes_copy.default: out[k] = the k-th piece of self along `dim`, of
// split_sizes[k] elements (the sizes add up to the dim). Args: [self, split_sizes, dim, out
// (list; absent entries are skipped)]. Every dtype.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/split.h"

namespace wgx::ops {
namespace {

class SplitWithSizesCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.split_with_sizes_copy.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& self = args.tensor(0, "self");
        std::vector<int64_t> sizes = int_list_arg(args, 1, "split_sizes");
        auto outs = args.tensor_list(3, "out");
        if (self.rank() == 0) args.fail("self must have at least one dim.");
        int64_t dim = wrap_dim(args, args.integer(2, "dim"), self.rank(), "dim");
        int64_t total = 0;
        for (int64_t s : sizes) {
            if (s < 1)
                args.fail(fmt::format("split_sizes {} holds {}; sizes must be positive.",
                                      shape_string(sizes), s));
            total += s;
        }
        if (total != self.shape()[dim]) {
            args.fail(fmt::format("split_sizes {} add up to {}, but dim {} of self {} is {}.",
                                  shape_string(sizes), total, dim, shape_string(self.shape()),
                                  self.shape()[dim]));
        }
        record_split(rec, args, self, sizes, dim, outs);
    }
};

}  // namespace

const Op& split_with_sizes_copy_op() {
    static const SplitWithSizesCopy op;
    return op;
}

}  // namespace wgx::ops
