// The reductions: sum and mean, amax and amin, argmax and argmin (the table below), all through
// record_reduce (reduce.h).
//   sum.dim_IntList, mean.dim  [self, dim?, keepdim, dtype?, out], dim none or [] = every dim;
//   sum.default, mean.default  [self, dtype?, out], over every dim.
//     Sum's out dtype is `dtype` when given, else self's for floats and int64 for ints and bool
//     (as PyTorch); float sums accumulate in float32 (float16 rounded once on store), integer
//     sums in int32. Mean takes floating dtypes only (an integer self needs a floating
//     `dtype`), accumulates in float32 and scales by 1 / count.
//   amax, amin  [self, dim, keepdim, out], dim a list ([] = every dim); out has self's dtype;
//     NaN propagates, as in PyTorch.
//   argmax, argmin  [self, dim?, keepdim, out (int64)]: the index along `dim`, or in the
//     flattened self when dim is none (out then has rank 0, or every dim 1 with keepdim). Ties
//     give the first index and NaN counts as the extreme, as in PyTorch.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/op_table.h"
#include "ops/reduce/reduce.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct ReduceRow {
    std::string_view name;
    std::string_view alias;  // "" for none
    ReduceKind kind;
};

constexpr ReduceRow kReduceOps[] = {
    {"aten.mean.dim", "aten.mean.default", ReduceKind::mean},
    {"aten.sum.dim_IntList", "aten.sum.default", ReduceKind::sum},
    {"aten.amax.default", "", ReduceKind::max},
    {"aten.amin.default", "", ReduceKind::min},
    {"aten.argmax.default", "", ReduceKind::argmax},
    {"aten.argmin.default", "", ReduceKind::argmin},
};

// Every dim of a tensor of `rank` dims.
std::vector<int64_t> all_dims(int64_t rank) {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
    return dims;
}

void record_sum_or_mean(Recorder& rec, const Args& args, ReduceKind kind) {
    args.expect_count(2, 5);
    const Tensor& self = args.tensor(0, "self");
    const Tensor& out = args.tensor(args.size() - 1, "out");
    const bool whole = args.size() <= 3;  // the .default forms
    std::vector<int64_t> dims;
    bool keepdim = false;
    std::optional<DType> dtype;
    if (whole) {
        dims = all_dims(self.rank());
        if (args.size() == 3) dtype = optional_scalar_type_arg(args, 1, "dtype");
    } else {
        dims = reduction_dims(args, 1, self.rank());
        keepdim = args.size() > 3 && !args.is_none(2) && args.boolean(2, "keepdim");
        if (args.size() == 5) dtype = optional_scalar_type_arg(args, 3, "dtype");
    }
    DType want;
    if (kind == ReduceKind::mean) {
        want = dtype ? *dtype : self.dtype();
        if (!is_float(want)) {
            args.fail(fmt::format("mean of a {} tensor needs a floating dtype, got {}.",
                                  dtype_name(self.dtype()), dtype_name(want)));
        }
    } else {
        want = dtype ? *dtype : is_float(self.dtype()) ? self.dtype() : DType::i64;
    }
    expect_dtype(args, out, want, "out");
    expect_shape(args, out, reduced_shape(self.shape(), dims, keepdim), "out");
    record_reduce(rec, args, kind, self, dims, out);
}

void record_extremum(Recorder& rec, const Args& args, ReduceKind kind) {
    args.expect_count(2, 4);
    const Tensor& self = args.tensor(0, "self");
    const Tensor& out = args.tensor(args.size() - 1, "out");
    const std::vector<int64_t> dims =
        args.size() >= 3 ? reduction_dims(args, 1, self.rank()) : all_dims(self.rank());
    const bool keepdim = args.size() == 4 && !args.is_none(2) && args.boolean(2, "keepdim");
    expect_dtype(args, out, self.dtype(), "out");
    expect_shape(args, out, reduced_shape(self.shape(), dims, keepdim), "out");
    record_reduce(rec, args, kind, self, dims, out);
}

void record_arg_extremum(Recorder& rec, const Args& args, ReduceKind kind) {
    args.expect_count(2, 4);
    const Tensor& self = args.tensor(0, "self");
    const Tensor& out = args.tensor(args.size() - 1, "out");
    const bool keepdim = args.size() == 4 && !args.is_none(2) && args.boolean(2, "keepdim");
    std::vector<int64_t> dims;
    Shape shape;
    if (args.size() >= 3 && !args.is_none(1)) {
        dims = {wrap_dim(args, args.integer(1, "dim"), self.rank(), "dim")};
        shape = reduced_shape(self.shape(), dims, keepdim);
    } else {
        dims = all_dims(self.rank());
        if (keepdim) shape.assign(self.shape().size(), 1);
    }
    if (self.rank() == 0) dims.clear();
    expect_dtype(args, out, DType::i64, "out");
    expect_shape(args, out, shape, "out");
    record_reduce(rec, args, kind, self, dims, out);
}

class Reduction final : public BuiltinOp {
  public:
    constexpr Reduction(const ReduceRow& row) : row_(row) {}
    std::string_view name() const override { return row_.name; }
    std::vector<std::string_view> aliases() const override {
        if (row_.alias.empty()) return {};
        return {row_.alias};
    }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        switch (row_.kind) {
            case ReduceKind::sum:
            case ReduceKind::mean: return record_sum_or_mean(rec, args, row_.kind);
            case ReduceKind::max:
            case ReduceKind::min: return record_extremum(rec, args, row_.kind);
            case ReduceKind::argmax:
            case ReduceKind::argmin: return record_arg_extremum(rec, args, row_.kind);
        }
    }

  private:
    ReduceRow row_;
};

}  // namespace

std::span<const Op* const> reduce_ops() {
    static const OpTable<Reduction> table(kReduceOps);
    return table.ops();
}

}  // namespace wgx::ops
