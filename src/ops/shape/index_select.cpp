// aten.index_select.default: out = self gathered along `dim` by a 1-D int64/int32 index, out's
// dim of the index's length (torch.roll exports to it, with arange and fmod). Args: [self, dim,
// index, out]. 32- and 16-bit dtypes (the row gather's); bool, uint8 and int8 are refused with
// an error. An index outside [0, size) gives zeros for its slice: PyTorch raises there, which a
// kernel cannot (as for aten.index.Tensor).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/llm/embedding.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class IndexSelect final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.index_select.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& index = args.tensor(2, "index");
        const Tensor& out = args.tensor(3, "out");
        // A rank-0 self is indexed as a 1-element vector (PyTorch allows dim 0 or -1 there).
        const Shape s = self.rank() == 0 ? Shape{1} : self.shape();
        const int64_t dim =
            wrap_dim(args, args.integer(1, "dim"), static_cast<int64_t>(s.size()), "dim");
        if (index.dtype() != DType::i64 && index.dtype() != DType::i32) {
            args.fail(
                fmt::format("index must be int64 or int32, got {}.", dtype_name(index.dtype())));
        }
        if (index.rank() > 1) {
            args.fail(fmt::format("index must be 1-D (or a scalar), got shape {}.",
                                  shape_string(index.shape())));
        }
        if (device_size(self.dtype()) == 1) {
            args.fail(fmt::format("{} tensors are not supported yet (32- and 16-bit types are).",
                                  dtype_name(self.dtype())));
        }
        expect_float16_support(rec, args, self.dtype());
        expect_dtype(args, out, self.dtype(), "out");
        Shape want = s;
        want[static_cast<size_t>(dim)] = index.numel();
        if (self.rank() == 0) want = {};
        expect_shape(args, out, want, "out");
        if (out.numel() == 0) return;
        int64_t inner = 1;
        for (size_t d = static_cast<size_t>(dim) + 1; d < s.size(); ++d) inner *= s[d];
        expect_indexable(args, self, "self");
        expect_indexable(args, out, "out");
        record_row_gather(rec, name(), self, index, out, s[static_cast<size_t>(dim)], inner);
    }
};

}  // namespace

const Op& index_select_op() {
    static const IndexSelect op;
    return op;
}

}  // namespace wgx::ops
