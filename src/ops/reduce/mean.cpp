// aten.mean.dim: out = mean of self over `dim` (none or [] = every dim).
// Args: [self, dim?, keepdim, dtype?, out]; also aten.mean.default [self, dtype?, out].
// Floating dtypes only (an integer self needs a floating `dtype`, as in PyTorch). Accumulates
// in float32 and scales by 1 / count (float16: read as and summed in float32, rounded once).
#include <fmt/format.h>

#include "ops/reduce/reduce.h"
#include "ops/registry.h"
#include "ops/common/dims.h"

namespace wgx::ops {
namespace {

class Mean final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.mean.dim"; }
    bool accepts_float16() const override { return true; }
    std::vector<std::string_view> aliases() const override { return {"aten.mean.default"}; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 5);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        bool whole = args.size() <= 3;  // aten.mean.default
        std::vector<int64_t> dims;
        bool keepdim = false;
        std::optional<DType> dtype;
        if (whole) {
            for (int64_t d = 0; d < self.rank(); ++d) dims.push_back(d);
            if (args.size() == 3) dtype = optional_scalar_type_arg(args, 1, "dtype");
        } else {
            dims = reduction_dims(args, 1, self.rank());
            keepdim = args.size() > 3 && !args.is_none(2) && args.boolean(2, "keepdim");
            if (args.size() == 5) dtype = optional_scalar_type_arg(args, 3, "dtype");
        }
        DType want = dtype ? *dtype : self.dtype();
        if (!is_float(want)) {
            args.fail(fmt::format("mean of a {} tensor needs a floating dtype, got {}.",
                                  dtype_name(self.dtype()), dtype_name(want)));
        }
        expect_dtype(args, out, want, "out");
        expect_shape(args, out, reduced_shape(self.shape(), dims, keepdim), "out");
        record_reduce(rec, args, ReduceKind::mean, self, dims, out);
    }
};

}  // namespace

const Op& mean_op() {
    static const Mean op;
    return op;
}

}  // namespace wgx::ops
