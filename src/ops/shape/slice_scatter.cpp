// aten.slice_scatter.default: out = self with self[..., start:end:step, ...] (along `dim`)
// replaced by src. Args: [self, src, dim, start?, end?, step, out]; start and end clamp as in
// PyTorch (negative ones count from the end, none or INT64_MAX mean the ends); src has self's
// shape except len = ceil((end - start) / step) along dim. What functionalization makes of an
// in-place write into part of a buffer (a state's `[:batch].mul_()`). Every dtype (moved as
// bits); one dispatch (slice_scatter.wgsl).
#include <fmt/format.h>

#include <algorithm>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/slice_scatter.h"
#include "ops/shape/slice_scatter.wgsl.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

struct SliceScatterParams {
    uint32_t numel, inner, dim_size, len;
    uint32_t start, step, lanes, words;
};
static_assert(sizeof(SliceScatterParams) == 32);
static_assert(offsetof(SliceScatterParams, start) == 16);

}  // namespace

void record_slice_scatter(Recorder& rec, std::string_view label, const Tensor& self,
                          const Tensor& src, const Tensor& out, int64_t dim, int64_t start,
                          int64_t len, int64_t step) {
    const int64_t n = self.shape()[dim];
    int64_t inner = 1;
    for (int64_t d = dim + 1; d < self.rank(); ++d) inner *= self.shape()[d];
    const uint32_t lanes = lanes_per_word(self.dtype());
    const SliceScatterParams p{uint32_t(self.numel()),
                               uint32_t(inner),
                               uint32_t(n),
                               uint32_t(len),
                               uint32_t(start),
                               uint32_t(step),
                               lanes,
                               uint32_t((self.numel() + lanes - 1) / lanes)};
    if (p.numel == 0) return;
    if (len == 0) {  // nothing replaced (and no empty src to bind)
        rec.copy(self, out);
        return;
    }
    const uint32_t wg = rec.workgroup_size(128);
    Kernel k = rec.kernel(label, std::string(wgsl::ops_shape_slice_scatter), {{"WG", double(wg)}});
    rec.dispatch(k, {self, src, out, Binding::uniform(p)}, rec.grid_1d(p.words, wg));
}

namespace {

class SliceScatter final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.slice_scatter.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(7, 7);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& src = args.tensor(1, "src");
        const Tensor& out = args.tensor(6, "out");
        if (self.rank() == 0) args.fail("self must have at least one dim.");
        const int64_t dim = wrap_dim(args, args.integer(2, "dim"), self.rank(), "dim");
        const int64_t n = self.shape()[dim];
        auto bound = [&](size_t i, const char* what, int64_t absent) {
            if (args.is_none(i)) return absent;
            int64_t v = args.integer(i, what);
            if (v < 0) v += n;
            return std::clamp<int64_t>(v, 0, n);
        };
        const int64_t start = bound(3, "start", 0);
        const int64_t end = std::max(start, bound(4, "end", n));
        const int64_t step = args.integer(5, "step");
        if (step < 1) args.fail(fmt::format("step is {}; it must be positive.", step));
        const int64_t len = (end - start + step - 1) / step;

        expect_dtype(args, src, self.dtype(), "src");
        expect_dtype(args, out, self.dtype(), "out");
        expect_shape(args, out, self.shape(), "out");
        Shape slice = self.shape();
        slice[dim] = len;
        expect_shape(args, src, slice, "src");
        expect_indexable(args, self, "self");

        record_slice_scatter(rec, name(), self, src, out, dim, start, len, step);
    }
};

}  // namespace

const Op& slice_scatter_op() {
    static const SliceScatter op;
    return op;
}

}  // namespace wgx::ops
