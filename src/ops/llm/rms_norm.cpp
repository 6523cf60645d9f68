// et_vk.rms_norm.default: out = x / sqrt(mean(x^2 over the last dim) + eps) * weight.
// Args: [x, weight [D] (D = x's last dim), eps, out (x's shape)]. float32, or float16
// throughout (computed in f32, as ExecuTorch's reference computes in float and casts back).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/common/workgroup_reduce.h"
#include "ops/llm/rms_norm.wgsl.h"
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

class RmsNorm final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.rms_norm.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(4, 4);
        const Tensor& x = args.tensor(0, "x");
        const Tensor& weight = args.tensor(1, "weight");
        const double eps = args.number(2, "eps");
        const Tensor& out = args.tensor(3, "out");
        const DType dt = one_float_type(rec, args, {{&x, "x"}, {&weight, "weight"}, {&out, "out"}});
        if (x.rank() < 1) args.fail("x must have at least one dim.");
        const int64_t n = x.shape().back();
        expect_shape(args, weight, {n}, "weight");
        expect_shape(args, out, x.shape(), "out");
        expect_indexable(args, x, "x");
        if (!(eps >= 0)) args.fail(fmt::format("eps must be >= 0, got {}.", eps));

        RmsNormParams p{uint32_t(x.numel() / n), uint32_t(n), float(eps), 0};
        uint32_t preferred = 64;
        while (preferred < 256 && preferred < p.row_len) preferred *= 2;
        const uint32_t wg = rec.workgroup_size(preferred);
        const bool subgroups = use_subgroups(rec);
        Kernel k = rec.kernel(
            fmt::format("{}/{}{}", name(), wgsl_scalar(dt), subgroups ? "_subgroups" : ""),
            workgroup_reduce_prelude(dt, subgroups) + std::string(wgsl::ops_llm_rms_norm),
            {{"WG", double(wg)}});
        rec.dispatch(k, {x, weight, out, Binding::uniform(p)}, rec.grid_1d(p.rows, 1));
    }
};

}  // namespace

const Op& rms_norm_op() {
    static const RmsNorm op;
    return op;
}

}  // namespace wgx::ops
