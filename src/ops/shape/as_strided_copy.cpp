// aten.as_strided_copy.default: out[i...] = self.flat[storage_offset + sum(i_d * stride_d)].
// Args: [self, size, stride, storage_offset?, out]. Every read must fall inside self.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/registry.h"
#include "ops/shape/strided_copy.h"

namespace wgx::ops {
namespace {

class AsStridedCopy final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.as_strided_copy.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 5);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        std::vector<int64_t> size = args.int_list(1, "size");
        std::vector<int64_t> stride = args.int_list(2, "stride");
        int64_t offset =
            args.size() == 5 && !args.is_none(3) ? args.integer(3, "storage_offset") : 0;
        if (size.size() != stride.size()) {
            args.fail(
                fmt::format("size has {} dims but stride has {}.", size.size(), stride.size()));
        }
        expect_shape(args, out, Shape(size.begin(), size.end()), "out");
        if (out.dtype() != self.dtype()) {
            args.fail(fmt::format("out ({}) must have self's dtype ({}).", dtype_name(out.dtype()),
                                  dtype_name(self.dtype())));
        }
        // The furthest element read, for the bounds check.
        int64_t lo = offset, hi = offset;
        std::vector<CopyDim> dims;
        for (size_t d = 0; d < size.size(); ++d) {
            if (stride[d] < 0) args.fail(fmt::format("stride {} is negative.", stride[d]));
            hi += (size[d] - 1) * stride[d];
            dims.push_back({size[d], stride[d], 0, size[d]});
        }
        if (lo < 0 || hi >= self.numel()) {
            args.fail(fmt::format("the view reads elements {} to {}, outside self's {} elements.",
                                  lo, hi, self.numel()));
        }
        if (dims.empty()) dims.push_back({1, 0, 0, 1});
        record_gather(rec, name(), self, out, std::move(dims), offset);
    }
};

}  // namespace

const Op& as_strided_copy_op() {
    static const AsStridedCopy op;
    return op;
}

}  // namespace wgx::ops
