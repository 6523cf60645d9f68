// aten.split_copy.Tensor: out[k] = the k-th piece of self along `dim`, each of split_size
// elements but the last (the remainder). Args: [self, split_size, dim, out (list; absent
// entries are skipped)]. Every dtype.
#include <fmt/format.h>

#include <algorithm>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/split.h"

namespace wgx::ops {
namespace {

class SplitCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.split_copy.Tensor"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& self = args.tensor(0, "self");
        int64_t split_size = args.integer(1, "split_size");
        auto outs = args.tensor_list(3, "out");
        if (self.rank() == 0) args.fail("self must have at least one dim.");
        int64_t dim = wrap_dim(args, args.integer(2, "dim"), self.rank(), "dim");
        if (split_size < 1) {
            args.fail(fmt::format("split_size is {}; it must be positive.", split_size));
        }
        std::vector<int64_t> sizes;
        for (int64_t at = 0; at < self.shape()[dim]; at += split_size) {
            sizes.push_back(std::min(split_size, self.shape()[dim] - at));
        }
        record_split(rec, args, self, sizes, dim, outs);
    }
};

}  // namespace

const Op& split_copy_op() {
    static const SplitCopy op;
    return op;
}

}  // namespace wgx::ops
