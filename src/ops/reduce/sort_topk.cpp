// aten.sort.default, aten.sort.stable and aten.topk.default, by rank (sort_rank.wgsl): values
// and int64 indices along `dim`. Args: [self, dim, descending, (values, indices)],
// [self, stable?, dim, descending, (values, indices)] and [self, k, dim, largest, sorted,
// (values, indices)], the outputs as one tensor list or two trailing tensors. Float32, float16,
// int32 and int64. The sort is stable (ties keep their order: sort.default leaves it open, so
// this is one of its answers); top-k results always come sorted (sorted=False leaves the order
// open). NaN counts as larger than every number, as in PyTorch.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/reduce/sort_rank.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct SortParams {
    uint32_t lines, n, inner, k, descending, pad0, pad1, pad2;
};
static_assert(sizeof(SortParams) == 32);

// The two outputs, after the `first` leading arguments.
std::pair<Tensor, Tensor> outputs(const Args& args, size_t first) {
    if (args.size() == first + 1) {
        auto outs = args.tensor_list(first, "outputs");
        if (outs.size() != 2 || !outs[0] || !outs[1]) {
            args.fail(
                fmt::format("argument {} (outputs) must list 2 tensors (values, indices), "
                            "got {}.",
                            first, args[first].describe()));
        }
        return {*outs[0], *outs[1]};
    }
    return {args.tensor(first, "values"), args.tensor(first + 1, "indices")};
}

void record_sort(Recorder& rec, const Args& args, std::string_view label, int64_t raw_dim,
                 std::optional<int64_t> k, bool descending, const Tensor& values,
                 const Tensor& indices) {
    const Tensor& self = args.tensor(0, "self");
    const DType storage = storage_dtype(self.dtype());
    if (storage != DType::f32 && storage != DType::f16 && storage != DType::i32) {
        args.fail(
            fmt::format("{} tensors are not supported (float32, float16, int32 and int64 "
                        "are).",
                        dtype_name(self.dtype())));
    }
    expect_float16_support(rec, args, self.dtype());
    const Shape s = self.rank() == 0 ? Shape{1} : self.shape();
    const int64_t dim = wrap_dim(args, raw_dim, static_cast<int64_t>(s.size()), "dim");
    const int64_t n = s[static_cast<size_t>(dim)];
    const int64_t keep = k.value_or(n);
    if (keep < 0 || keep > n) {
        args.fail(fmt::format("k is {}; dim {} has {} elements.", keep, dim, n));
    }
    Shape want = self.shape();
    if (!want.empty()) want[static_cast<size_t>(dim)] = keep;
    expect_dtype(args, values, self.dtype(), "values");
    expect_shape(args, values, want, "values");
    if (indices.dtype() != DType::i64 && indices.dtype() != DType::i32) {
        args.fail(fmt::format("indices must be int64, got {}.", dtype_name(indices.dtype())));
    }
    expect_shape(args, indices, want, "indices");
    if (values.numel() == 0) return;
    SortParams p{
        1, static_cast<uint32_t>(n), 1, static_cast<uint32_t>(keep), descending ? 1u : 0u, 0, 0, 0};
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
        if (d != dim) p.lines *= static_cast<uint32_t>(s[static_cast<size_t>(d)]);
        if (d > dim) p.inner *= static_cast<uint32_t>(s[static_cast<size_t>(d)]);
    }
    const uint32_t wg = rec.workgroup_size(128);
    Kernel kernel =
        rec.kernel(fmt::format("{}/{}", label, dtype_name(storage)),
                   wgsl_storage_and_compute(self.dtype()) + std::string(wgsl::ops_reduce_sort_rank),
                   {{"WG", double(wg)}});
    rec.dispatch(kernel, {self, values, indices, Binding::uniform(p)},
                 rec.grid_1d(uint64_t(p.lines) * p.n, wg));
}

class SortDefault final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.sort.default"; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 5);
        const auto [values, indices] = outputs(args, 3);
        record_sort(rec, args, name(), args.integer(1, "dim"), std::nullopt,
                    args.boolean(2, "descending"), values, indices);
    }
};

class SortStable final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.sort.stable"; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(5, 6);
        const auto [values, indices] = outputs(args, 4);
        record_sort(rec, args, name(), args.integer(2, "dim"), std::nullopt,
                    args.boolean(3, "descending"), values, indices);
    }
};

class Topk final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.topk.default"; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(6, 7);
        const auto [values, indices] = outputs(args, 5);
        record_sort(rec, args, name(), args.integer(2, "dim"), args.integer(1, "k"),
                    args.boolean(3, "largest"), values, indices);
    }
};

}  // namespace

const Op& sort_op() {
    static const SortDefault op;
    return op;
}

const Op& sort_stable_op() {
    static const SortStable op;
    return op;
}

const Op& topk_op() {
    static const Topk op;
    return op;
}

}  // namespace wgx::ops
