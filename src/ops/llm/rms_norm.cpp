// et_vk.rms_norm.default: out = x / sqrt(mean(x^2 over the last dim) + eps) * weight.
// Args: [x, weight [D] (D = x's last dim), eps, out (x's shape)]. float32, or float16
// throughout (computed in f32, as ExecuTorch's reference computes in float and casts back).
// wgx.add_rms_norm.default: the same norm of self + other, the sum stored too (see below).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "graph/schema/fused_ops.h"
#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/common/wgsl_types.h"
#include "ops/common/workgroup_reduce.h"
#include "ops/llm/rms_norm.wgsl.h"
#include "ops/norm/norm.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct RmsNormParams {
    uint32_t rows, row_len;
    float eps;
    uint32_t pad;
};
static_assert(sizeof(RmsNormParams) == 16);
static_assert(offsetof(RmsNormParams, eps) == 8);

// One norm: of x, or (with `sum`) of x + addend, the sum stored into sum_out. The dtype and
// shape checks of x, weight and out are here, the caller's of the rest.
struct NormCall {
    const Tensor& x;
    const Tensor& weight;
    double eps;
    const Tensor& out;
    const Tensor* addend = nullptr;
    const Tensor* sum_out = nullptr;
};

void record_rms_norm(Recorder& rec, const Args& args, std::string_view name, const NormCall& c) {
    const DType dt =
        c.addend ? one_float_type(rec, args,
                                  {{&c.x, "self"},
                                   {&c.weight, "weight"},
                                   {&c.out, "norm"},
                                   {c.addend, "other"},
                                   {c.sum_out, "sum"}})
                 : one_float_type(rec, args, {{&c.x, "x"}, {&c.weight, "weight"}, {&c.out, "out"}});
    const Tensor& x = c.x;
    if (x.rank() < 1) args.fail("x must have at least one dim.");
    const int64_t n = x.shape().back();
    expect_shape(args, c.weight, {n}, "weight");
    expect_shape(args, c.out, x.shape(), "out");
    if (c.addend) {
        expect_shape(args, *c.addend, x.shape(), "other");
        expect_shape(args, *c.sum_out, x.shape(), "sum");
    }
    expect_indexable(args, x, "x");
    if (!(c.eps >= 0)) args.fail(fmt::format("eps must be >= 0, got {}.", c.eps));

    RmsNormParams p{uint32_t(x.numel() / n), uint32_t(n), float(c.eps), 0};
    uint32_t preferred = 64;
    while (preferred < 256 && preferred < p.row_len) preferred *= 2;
    const uint32_t wg = rec.workgroup_size(preferred);
    const bool subgroups = use_subgroups(rec);
    std::string text(wgsl::ops_llm_rms_norm);
    replace_wgsl_marker(text, "LOAD_X",
                        c.addend
                            ? "@group(0) @binding(4) var<storage, read> addend: array<T>;\n"
                              "@group(0) @binding(5) var<storage, read_write> sum_out: array<T>;\n"
                              "fn load_x(i: u32) -> f32 {\n"
                              "    let s = T(f32(x[i]) + f32(addend[i]));\n"
                              "    sum_out[i] = s;\n"
                              "    return f32(s);\n"
                              "}\n"
                            : "fn load_x(i: u32) -> f32 { return f32(x[i]); }\n");
    Kernel k =
        rec.kernel(fmt::format("{}/{}{}", name, wgsl_scalar(dt), subgroups ? "_subgroups" : ""),
                   workgroup_reduce_prelude(dt, subgroups) + text, {{"WG", double(wg)}});
    std::vector<Binding> bindings = {x, c.weight, c.out, Binding::uniform(p)};
    if (c.addend) bindings.insert(bindings.end(), {*c.addend, *c.sum_out});
    rec.dispatch(k, bindings, rec.grid_1d(p.rows, 1));
}

class RmsNorm final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.rms_norm.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        record_rms_norm(rec, args, name(),
                        {args.tensor(0, "x"), args.tensor(1, "weight"), args.number(2, "eps"),
                         args.tensor(3, "out")});
    }
};

// wgx.add_rms_norm.default (schema::AddRmsNorm): a residual add and the norm after it, one
// dispatch instead of two; graph/passes/fuse_residual_norm makes it.
class AddRmsNorm final : public BuiltinOp {
    using S = schema::AddRmsNorm;

  public:
    std::string_view name() const override { return schema::AddRmsNorm::name; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(S::count, S::count);
        auto outs = output_list(args, S::out, 2);
        if (!outs[0] || !outs[1]) args.fail("out must list two tensors (sum, norm).");
        NormCall c{args.tensor(S::self, "self"), args.tensor(S::weight, "weight"),
                   args.number(S::eps, "eps"), *outs[1]};
        c.addend = &args.tensor(S::other, "other");
        c.sum_out = &*outs[0];
        record_rms_norm(rec, args, name(), c);
    }
};

}  // namespace

const Op& rms_norm_op() {
    static const RmsNorm op;
    return op;
}

const Op& add_rms_norm_op() {
    static const AddRmsNorm op;
    return op;
}

}  // namespace wgx::ops
