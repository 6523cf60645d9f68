// aten.native_group_norm.default: input [N, C, *] in `group` groups of C / group channels;
// each (sample, group) is normalised by its mean and biased variance, then scaled and shifted
// per channel. Args: [input, weight?, bias?, N, C, HxW, group, eps, (out, mean, rstd)]; mean
// and rstd are [N, group] and may be absent. float32, or float16 throughout (computed in f32).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/norm/norm.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class GroupNorm final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.native_group_norm.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        if (args.size() < 9) args.expect_count(9, 11);
        const Tensor& input = args.tensor(0, "input");
        auto weight = args.optional_tensor(1, "weight");
        auto bias = args.optional_tensor(2, "bias");
        int64_t N = args.integer(3, "N");
        int64_t C = args.integer(4, "C");
        int64_t HxW = args.integer(5, "HxW");
        int64_t group = args.integer(6, "group");
        double eps = args.number(7, "eps");
        auto outs = output_list(args, 8, 3);
        const Tensor& out = *outs[0];

        if (input.rank() < 2 || input.shape()[0] != N || input.shape()[1] != C || N < 1 || C < 1 ||
            HxW < 1 || input.numel() != N * C * HxW) {
            args.fail(fmt::format("input {} does not match N={}, C={}, HxW={}.",
                                  shape_string(input.shape()), N, C, HxW));
        }
        if (group < 1 || C % group != 0) {
            args.fail(fmt::format("group {} does not divide C={}.", group, C));
        }
        expect_float(rec, args, input, "input");
        for (const auto& [t, what] : {std::pair{weight, "weight"}, std::pair{bias, "bias"}}) {
            if (t) {
                expect_dtype(args, *t, input.dtype(), what);
                expect_shape(args, *t, {C}, what);
            }
        }
        expect_dtype(args, out, input.dtype(), "out");
        expect_shape(args, out, input.shape(), "out");
        for (size_t i : {1u, 2u}) {
            if (outs[i]) {
                std::string what = i == 1 ? "mean" : "rstd";
                expect_dtype(args, *outs[i], input.dtype(), what);
                expect_shape(args, *outs[i], {N, group}, what);
            }
        }
        expect_indexable(args, input, "input");

        NormRowsParams p{};
        p.rows = static_cast<uint32_t>(N * group);
        p.row_len = static_cast<uint32_t>(C / group * HxW);
        p.groups = static_cast<uint32_t>(group);
        p.per_group = static_cast<uint32_t>(C / group);
        p.hw = static_cast<uint32_t>(HxW);
        p.eps = static_cast<float>(eps);
        record_norm_rows(rec, name(), input, weight, bias, out, outs[1], outs[2], p);
    }
};

}  // namespace

const Op& group_norm_op() {
    static const GroupNorm op;
    return op;
}

}  // namespace wgx::ops
