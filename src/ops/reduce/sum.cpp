// aten.sum.dim_IntList: out = sum of self over `dim` (none or [] = every dim).
// Args: [self, dim?, keepdim, dtype?, out]; also aten.sum.default [self, dtype?, out].
// out's dtype is `dtype` when given, else self's for floats and int64 for ints and bool (as
// PyTorch). float32 sums accumulate in float32 (tree order); float16 ones too, rounded once to
// float16 on store; integer sums in int32.
#include <fmt/format.h>

#include "ops/reduce/reduce.h"
#include "ops/registry.h"
#include "ops/common/dims.h"

namespace wgx::ops {
namespace {

class Sum final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.sum.dim_IntList"; }
    bool accepts_float16() const override { return true; }
    std::vector<std::string_view> aliases() const override { return {"aten.sum.default"}; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(2, 5);
        const Tensor& self = args.tensor(0, "self");
        const Tensor& out = args.tensor(args.size() - 1, "out");
        bool whole = args.size() <= 3;  // aten.sum.default
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
        DType want = dtype ? *dtype : is_float(self.dtype()) ? self.dtype() : DType::i64;
        expect_dtype(args, out, want, "out");
        expect_shape(args, out, reduced_shape(self.shape(), dims, keepdim), "out");
        record_reduce(rec, args, ReduceKind::sum, self, dims, out);
    }
};

}  // namespace

const Op& sum_op() {
    static const Sum op;
    return op;
}

}  // namespace wgx::ops
