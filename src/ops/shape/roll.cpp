// aten.roll.default: out = self shifted cyclically by shifts[i] along dims[i]; with no dims,
// along the flattened tensor (then one shift). Args: [self, shifts, dims, out]. Every dtype.
// A shift s along a dim of size n reads source coordinate (c + n - s mod n) mod n: the strided
// copy's wrap mode with that offset.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

// The source offset of a roll by `shift` along a dim of `size` (0 <= result < size).
int64_t roll_offset(int64_t shift, int64_t size) {
    if (size == 0) return 0;
    const int64_t s = ((shift % size) + size) % size;
    return (size - s) % size;
}

class Roll final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.roll.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(3, "out");
        const std::vector<int64_t> shifts = int_list_arg(args, 1, "shifts");
        const std::vector<int64_t> raw_dims = int_list_arg(args, 2, "dims");
        expect_dtype(args, out, self.dtype(), "out");
        expect_shape(args, out, self.shape(), "out");
        expect_indexable(args, out, "out");
        if (self.numel() == 0) return;
        if (raw_dims.empty()) {
            if (shifts.size() != 1) {
                args.fail(fmt::format(
                    "without dims, roll takes one shift (the flattened tensor), not {}.",
                    shifts.size()));
            }
            const int64_t n = self.numel();
            record_gather(rec, name(), self.view(0, {n}), out.view(0, {n}),
                          {{n, 1, 0, n, roll_offset(shifts[0], n)}}, 0, CopyMode::wrap);
            return;
        }
        if (shifts.size() != raw_dims.size()) {
            args.fail(fmt::format("{} shifts for {} dims; give one per dim.", shifts.size(),
                                  raw_dims.size()));
        }
        // A dim may be named twice: its shifts add up (torch.roll(x, (1, 2), (0, 0)) rolls by 3).
        std::vector<int64_t> total(self.rank(), 0);
        for (size_t i = 0; i < raw_dims.size(); ++i) {
            total[wrap_dim(args, raw_dims[i], self.rank(), "dims")] += shifts[i];
        }
        const auto strides = contiguous_strides(self.shape());
        std::vector<CopyDim> copy;
        for (int64_t d = 0; d < self.rank(); ++d) {
            const int64_t size = self.shape()[d];
            copy.push_back({size, strides[d], 0, size, roll_offset(total[d], size)});
        }
        record_gather(rec, name(), self, out, std::move(copy), 0, CopyMode::wrap);
    }
};

}  // namespace

const Op& roll_op() {
    static const Roll op;
    return op;
}

}  // namespace wgx::ops
