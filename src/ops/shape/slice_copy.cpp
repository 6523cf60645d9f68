// aten.slice_copy.Tensor: out = self[..., start:end:step, ...] along `dim`.
// Args: [self, dim, start?, end?, step, out]. start and end clamp as in PyTorch (negative ones
// count from the end; INT64_MAX or none means "to the end"); step >= 1. Every dtype.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class SliceCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.slice_copy.Tensor"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(6, 6);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(5, "out");
        if (self.rank() == 0) args.fail("self must have at least one dim.");
        int64_t dim = wrap_dim(args, args.integer(1, "dim"), self.rank(), "dim");
        int64_t size = self.shape()[dim];
        // A live start (an LLM's cache position) is read on the GPU and a live end only decides
        // the output's length, which `out` has already: neither is baked into the recording.
        LiveInt live_start = args.is_none(2) ? LiveInt{} : args.live_integer(2, "start");
        // A negative live start counts from the end (a state's last `-seq_len` positions):
        // the GPU's clamp would read it as 0, so its value is baked in instead. It follows the
        // sizes, which a new recording follows anyway.
        if (live_start.live() && live_start.value < 0) live_start = {args.integer(2, "start")};
        const LiveInt live_end = args.is_none(3) ? LiveInt{std::numeric_limits<int64_t>::max()}
                                                 : args.live_integer(3, "end");
        int64_t start = live_start.value;
        int64_t end = live_end.value;
        int64_t step = args.integer(4, "step");
        if (step < 1) args.fail(fmt::format("step is {}; it must be positive.", step));
        if (start < 0) start += size;
        if (end < 0) end += size;
        start = std::clamp<int64_t>(start, 0, size);
        end = std::clamp<int64_t>(end, start, size);
        int64_t len = (end - start + step - 1) / step;

        expect_dtype(args, out, self.dtype(), "out");
        Shape shape = self.shape();
        shape[dim] = len;
        expect_shape(args, out, shape, "out");
        expect_indexable(args, self, "self");
        auto strides = contiguous_strides(self.shape());
        std::vector<CopyDim> copy;
        for (int64_t d = 0; d < self.rank(); ++d) {
            int64_t stride = d == dim ? strides[d] * step : strides[d];
            copy.push_back({shape[d], stride, 0, shape[d]});
        }
        if (live_start.live()) {
            // The start moves from run to run; the length (out's) does not.
            const LiveOffset live{live_start.slot, strides[dim], size - (len - 1) * step - 1};
            record_gather(rec, name(), self, out, std::move(copy), 0, CopyMode::plain, 0, live);
        } else {
            record_gather(rec, name(), self, out, std::move(copy), start * strides[dim]);
        }
    }
};

}  // namespace

const Op& slice_copy_op() {
    static const SliceCopy op;
    return op;
}

}  // namespace wgx::ops
