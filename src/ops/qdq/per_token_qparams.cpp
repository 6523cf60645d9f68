// quantized_decomposed.choose_qparams_per_token_asymmetric.default: a scale and zero point per
// row of the last dim for int8 dynamic quantization (the formula is in
// per_token_qparams.wgsl; the reference fixes the range at [-128, 127] whatever dtype says).
// Args: [input, dtype, (scale, zero_point)] with the outputs as one tensor list, or as two
// trailing tensors; both have input's shape with the last dim 1. scale is float64 (stored as
// float32) or float32, zero_point int64 (stored as int32) or int32.
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/workgroup_reduce.h"
#include "ops/qdq/div_rn.wgsl.h"
#include "ops/qdq/per_token_qparams.wgsl.h"
#include "ops/qdq/qdq_args.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

using namespace qdq;

struct PerTokenParams {
    uint32_t rows, row_len, pad0, pad1;
};
static_assert(sizeof(PerTokenParams) == 16);

class ChooseQparamsPerToken final : public BuiltinOp {
  public:
    std::string_view name() const override {
        return "quantized_decomposed.choose_qparams_per_token_asymmetric.default";
    }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 4);
        Tensor scale, zero_point;
        if (args.size() == 3) {
            auto outs = args.tensor_list(2, "outputs");
            if (outs.size() != 2 || !outs[0] || !outs[1]) {
                args.fail(fmt::format(
                    "argument 2 (outputs) must list 2 tensors (scale, zero_point), got {}.",
                    args[2].describe()));
            }
            scale = *outs[0];
            zero_point = *outs[1];
        } else {
            scale = args.tensor(2, "scale");
            zero_point = args.tensor(3, "zero_point");
        }
        const Tensor& x = args.tensor(0, "input");
        quant_dtype_arg(args, 1, "dtype");
        expect_dtype(args, x, DType::f32, "input");
        if (x.rank() < 1 || x.shape().back() < 1) {
            args.fail(fmt::format("input must have a last dim of at least 1, got shape {}.",
                                  shape_string(x.shape())));
        }
        expect_indexable(args, x, "input");
        Shape qshape = x.shape();
        qshape.back() = 1;
        const int64_t rows = x.numel() / x.shape().back();
        expect_scales(args, scale, rows, "scale");
        expect_zero_points(args, zero_point, rows, "zero_point");
        expect_shape(args, scale, qshape, "scale");
        expect_shape(args, zero_point, qshape, "zero_point");
        if (rows == 0) return;

        PerTokenParams p{uint32_t(rows), uint32_t(x.shape().back()), 0, 0};
        uint32_t preferred = 64;
        while (preferred < 256 && preferred < p.row_len) preferred *= 2;
        const uint32_t wg = rec.workgroup_size(preferred);
        const bool subgroups = use_subgroups(rec);
        Kernel k = rec.kernel(fmt::format("{}{}", name(), subgroups ? "/subgroups" : ""),
                              workgroup_reduce_prelude(DType::f32, subgroups) +
                                  std::string(wgsl::ops_qdq_div_rn) +
                                  std::string(wgsl::ops_qdq_per_token_qparams),
                              {{"WG", double(wg)}});
        rec.dispatch(k, {x, scale, zero_point, Binding::uniform(p)}, rec.grid_1d(p.rows, 1));
    }
};

}  // namespace

const Op& choose_qparams_per_token_op() {
    static const ChooseQparamsPerToken op;
    return op;
}

}  // namespace wgx::ops
