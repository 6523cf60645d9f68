#include "ops/elementwise/compare.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/dispatch_geometry.h"
#include "ops/common/broadcast.h"
#include "ops/common/float16_support.h"
#include "ops/elementwise/compare.wgsl.h"
#include "ops/op_table.h"
#include "ops/registry.h"

namespace wgx::ops {

void record_compare(Recorder& rec, std::string_view op, std::string_view wgsl_op,
                    const Args& args) {
    args.expect_count(3, 3);
    const Tensor& a = args.tensor(0, "self");
    const Tensor& out = args.tensor(2, "out");
    const bool scalar = !std::holds_alternative<Tensor>(args[1].value());
    Tensor b = scalar ? a : args.tensor(1, "other");
    DType storage = storage_dtype(a.dtype());
    if (storage != DType::f32 && storage != DType::f16 && storage != DType::i32) {
        args.fail(fmt::format("dtype {} is not supported.", dtype_name(a.dtype())));
    }
    expect_float16_support(rec, args, a.dtype());
    if (!scalar && b.dtype() != a.dtype()) {
        args.fail(fmt::format("self ({}) and other ({}) must have one dtype.",
                              dtype_name(a.dtype()), dtype_name(b.dtype())));
    }
    if (out.dtype() != DType::boolean) {
        args.fail(fmt::format("out must be bool, got {}.", dtype_name(out.dtype())));
    }
    Shape shape = a.shape();
    if (!scalar) {
        auto s = broadcast_shapes(a.shape(), b.shape());
        if (!s) {
            args.fail(fmt::format("shapes {} and {} are not broadcastable.",
                                  shape_string(a.shape()), shape_string(b.shape())));
        }
        shape = *s;
    }
    if (out.shape() != shape) {
        args.fail(fmt::format("out has shape {}, expected {}.", shape_string(out.shape()),
                              shape_string(shape)));
    }
    CompareParams p{};
    p.numel = static_cast<uint32_t>(out.numel());
    p.scalar = scalar ? static_cast<float>(args.number(1, "other")) : 0.f;
    auto sizes = padded_sizes(shape);
    auto sa = broadcast_strides(a.shape(), shape);
    auto sb = broadcast_strides(b.shape(), shape);
    std::copy(sizes.begin(), sizes.end(), p.out_sizes);
    std::copy(sa.begin(), sa.end(), p.a_strides);
    std::copy(sb.begin(), sb.end(), p.b_strides);

    uint32_t wg = rec.workgroup_size(256);
    // Float16 compares in f32 (exact: every half is a float), against the scalar as given.
    std::string source =
        wgsl_storage_and_compute(a.dtype()) +
        fmt::format("fn apply(x: T, y: T) -> bool {{ return x {} y; }}\n", wgsl_op) +
        std::string(wgsl::ops_elementwise_compare);
    Kernel k =
        rec.kernel(op, std::move(source), {{"WG", double(wg)}, {"B_SCALAR", scalar ? 1.0 : 0.0}});
    rec.dispatch(k, {a, b, out, Binding::uniform(p)}, rec.grid_1d(ceil_div(out.numel(), 4), wg));
}

namespace {

// The comparison ops: graph name and WGSL operator. Args: [self, other, out], `other` a tensor
// (the .Tensor forms) or a number (the .Scalar forms); out is bool.
struct CompareRow {
    std::string_view name, wgsl_op;
};

constexpr CompareRow kCompareOps[] = {
    {"aten.eq.Tensor", "=="}, {"aten.ne.Tensor", "!="}, {"aten.lt.Tensor", "<"},
    {"aten.le.Tensor", "<="}, {"aten.gt.Tensor", ">"},  {"aten.ge.Tensor", ">="},
    {"aten.eq.Scalar", "=="}, {"aten.ne.Scalar", "!="}, {"aten.lt.Scalar", "<"},
    {"aten.le.Scalar", "<="}, {"aten.gt.Scalar", ">"},  {"aten.ge.Scalar", ">="},
};

class CompareOp final : public BuiltinOp {
  public:
    constexpr CompareOp(const CompareRow& row) : row_(row) {}
    std::string_view name() const override { return row_.name; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        record_compare(rec, row_.name, row_.wgsl_op, args);
    }

  private:
    CompareRow row_;
};

}  // namespace

std::span<const Op* const> compare_ops() {
    static const OpTable<CompareOp> table(kCompareOps);
    return table.ops();
}

}  // namespace wgx::ops
