// aten.index.Tensor: self[indices], PyTorch's advanced indexing, for one index tensor: the list
// holds absent entries (a full slice, `:`) then one int64/int32 tensor for dim d, and out is
// self.shape[:d] + index.shape + self.shape[d+1:]. That is how ExecuTorch's static LLM exports
// read the rope tables at the cache position (freqs[input_pos]). Several index tensors
// (broadcast together) and boolean masks are refused with an error saying so.
// Args: [self, indices (a list of optional tensors), out]. An index outside [0, size) gives
// zeros, as in aten.embedding: PyTorch raises there (a kernel cannot), and counts negative
// indices from the end, which this kernel does not (they give zeros too).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/llm/embedding.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class IndexTensor final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.index.Tensor"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 3);
        const Tensor& self = args.tensor(0, "self");
        const std::vector<std::optional<Tensor>> indices = args.tensor_list(1, "indices");
        const Tensor& out = args.tensor(2, "out");
        int64_t dim = -1;
        for (size_t i = 0; i < indices.size(); ++i) {
            if (!indices[i]) continue;
            if (dim >= 0) {
                args.fail("more than one index tensor is not supported (only self[..., idx]).");
            }
            dim = static_cast<int64_t>(i);
        }
        if (dim < 0) args.fail("indices holds no tensor.");
        if (dim >= self.rank()) {
            args.fail(fmt::format("{} indices for a rank {} tensor.", indices.size(), self.rank()));
        }
        const Tensor& index = *indices[static_cast<size_t>(dim)];
        if (index.dtype() != DType::i64 && index.dtype() != DType::i32) {
            args.fail(
                fmt::format("index {} must be int64 or int32 (boolean masks are not "
                            "supported), got {}.",
                            dim, dtype_name(index.dtype())));
        }
        expect_float16_support(rec, args, self.dtype());
        expect_dtype(args, out, self.dtype(), "out");
        const Shape& s = self.shape();
        Shape want(s.begin(), s.begin() + dim);
        want.insert(want.end(), index.shape().begin(), index.shape().end());
        want.insert(want.end(), s.begin() + dim + 1, s.end());
        expect_shape(args, out, want, "out");
        int64_t inner = 1;
        for (int64_t d = dim + 1; d < self.rank(); ++d) inner *= s[static_cast<size_t>(d)];
        expect_indexable(args, self, "self");
        expect_indexable(args, out, "out");
        record_row_gather(rec, name(), self, index, out, s[static_cast<size_t>(dim)], inner);
    }
};

}  // namespace

const Op& index_tensor_op() {
    static const IndexTensor op;
    return op;
}

}  // namespace wgx::ops
