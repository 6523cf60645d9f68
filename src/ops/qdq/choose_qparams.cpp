// quantized_decomposed.choose_qparams.tensor: the per-tensor affine scale and zero point of a
// float32 tensor for dynamic quantization (determine_qparams of torch/ao/quantization/utils.py;
// the formula is in choose_qparams.wgsl).
// Args: [input, quant_min, quant_max, eps, dtype, (scale [1], zero_point [1])] with the outputs
// as one tensor list, or as two trailing tensors. scale is float64 (stored as float32) or
// float32, zero_point int64 (stored as int32) or int32. As the reference's validate_qmin_qmax,
// quant_min <= 0 <= quant_max and quant_min < quant_max; also inside dtype's range.
#include <fmt/format.h>

#include <cmath>

#include "ops/common/dims.h"
#include "ops/common/workgroup_reduce.h"
#include "ops/qdq/choose_qparams.wgsl.h"
#include "ops/qdq/div_rn.wgsl.h"
#include "ops/qdq/qdq_args.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

using namespace qdq;

struct ChooseQparamsParams {
    uint32_t numel;
    int32_t quant_min, quant_max;
    float eps, range;
    uint32_t pad0, pad1, pad2;
};
static_assert(sizeof(ChooseQparamsParams) == 32);

class ChooseQparams final : public BuiltinOp {
  public:
    std::string_view name() const override { return "quantized_decomposed.choose_qparams.tensor"; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(6, 7);
        Tensor scale, zero_point;
        if (args.size() == 6) {
            auto outs = args.tensor_list(5, "outputs");
            if (outs.size() != 2 || !outs[0] || !outs[1]) {
                args.fail(fmt::format(
                    "argument 5 (outputs) must list 2 tensors (scale, zero_point), got {}.",
                    args[5].describe()));
            }
            scale = *outs[0];
            zero_point = *outs[1];
        } else {
            scale = args.tensor(5, "scale");
            zero_point = args.tensor(6, "zero_point");
        }
        const Tensor& x = args.tensor(0, "input");
        const DType dtype = quant_dtype_arg(args, 4, "dtype");
        const QuantRange range = quant_range_args(args, 1, dtype);
        if (range.min > 0 || range.max < 0 || range.min == range.max) {
            args.fail(fmt::format(
                "quant_min {} and quant_max {} must include 0 and differ (validate_qmin_qmax).",
                range.min, range.max));
        }
        const double eps = args.number(3, "eps");
        if (!(eps > 0) || !std::isfinite(float(eps))) {
            args.fail(fmt::format("eps must be positive and finite, got {}.", eps));
        }
        expect_dtype(args, x, DType::f32, "input");
        expect_indexable(args, x, "input");
        expect_scales(args, scale, 1, "scale");
        expect_zero_points(args, zero_point, 1, "zero_point");

        // The reference divides by float(quant_max - quant_min), rounded to float32 by the
        // float32 tensor division.
        ChooseQparamsParams p{uint32_t(x.numel()),
                              range.min,
                              range.max,
                              float(eps),
                              float(double(range.max) - double(range.min)),
                              0,
                              0,
                              0};
        const uint32_t wg = rec.workgroup_size(256);
        const bool subgroups = use_subgroups(rec);
        Kernel k = rec.kernel(fmt::format("{}{}", name(), subgroups ? "/subgroups" : ""),
                              workgroup_reduce_prelude(DType::f32, subgroups) +
                                  std::string(wgsl::ops_qdq_div_rn) +
                                  std::string(wgsl::ops_qdq_choose_qparams),
                              {{"WG", double(wg)}});
        rec.dispatch(k, {x, scale, zero_point, Binding::uniform(p)}, Grid{1, 1, 1});
    }
};

}  // namespace

const Op& choose_qparams_op() {
    static const ChooseQparams op;
    return op;
}

}  // namespace wgx::ops
