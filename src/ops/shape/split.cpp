#include "ops/shape/split.h"

#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {

void record_split(Recorder& rec, const Args& args, const Tensor& self,
                  const std::vector<int64_t>& sizes, int64_t dim,
                  const std::vector<std::optional<Tensor>>& outs) {
    if (outs.size() != sizes.size()) {
        args.fail(
            fmt::format("out has {} tensors; the split makes {}.", outs.size(), sizes.size()));
    }
    expect_indexable(args, self, "self");
    auto strides = contiguous_strides(self.shape());
    int64_t offset = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
        Shape shape = self.shape();
        shape[dim] = sizes[k];
        if (outs[k]) {
            std::string what = fmt::format("out[{}]", k);
            expect_dtype(args, *outs[k], self.dtype(), what);
            expect_shape(args, *outs[k], shape, what);
            std::vector<CopyDim> copy;
            for (int64_t d = 0; d < self.rank(); ++d) {
                copy.push_back({shape[d], strides[d], 0, shape[d]});
            }
            record_gather(rec, args.op(), self, *outs[k], std::move(copy), offset * strides[dim]);
        }
        offset += sizes[k];
    }
}

}  // namespace wgx::ops
