// aten.native_layer_norm.default: out = (x - mean) * rstd * weight + bias over the trailing
// `normalized_shape` dims, rstd = 1 / sqrt(biased var + eps).
// Args: [input, normalized_shape, weight?, bias?, eps, (out, mean, rstd)]; mean and rstd have
// input's shape with the normalized dims set to 1 and may be absent. float32, or float16
// throughout (computed in f32).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/norm/norm.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class LayerNorm final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.native_layer_norm.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        if (args.size() < 6) args.expect_count(6, 8);
        const Tensor& input = args.tensor(0, "input");
        Shape normalized = int_list_arg(args, 1, "normalized_shape");
        auto weight = args.optional_tensor(2, "weight");
        auto bias = args.optional_tensor(3, "bias");
        double eps = args.number(4, "eps");
        auto outs = output_list(args, 5, 3);
        const Tensor& out = *outs[0];

        int64_t k = static_cast<int64_t>(normalized.size());
        bool trailing = k >= 1 && k <= input.rank();
        for (int64_t i = 0; trailing && i < k; ++i) {
            trailing = input.shape()[input.rank() - k + i] == normalized[i];
        }
        if (!trailing) {
            args.fail(fmt::format("normalized_shape {} is not the trailing dims of input {}.",
                                  shape_string(normalized), shape_string(input.shape())));
        }
        expect_float(rec, args, input, "input");
        for (const auto& [t, what] : {std::pair{weight, "weight"}, std::pair{bias, "bias"}}) {
            if (t) {
                expect_dtype(args, *t, input.dtype(), what);
                expect_shape(args, *t, normalized, what);
            }
        }
        expect_dtype(args, out, input.dtype(), "out");
        expect_shape(args, out, input.shape(), "out");
        Shape stats = input.shape();
        for (int64_t i = input.rank() - k; i < input.rank(); ++i) stats[i] = 1;
        for (size_t i : {1u, 2u}) {
            if (outs[i]) {
                std::string what = i == 1 ? "mean" : "rstd";
                expect_dtype(args, *outs[i], input.dtype(), what);
                expect_shape(args, *outs[i], stats, what);
            }
        }
        expect_indexable(args, input, "input");

        int64_t n = product(normalized);
        NormRowsParams p{};
        p.rows = static_cast<uint32_t>(input.numel() / n);
        p.row_len = static_cast<uint32_t>(n);
        p.groups = 1;
        p.per_group = 0;
        p.hw = 1;
        p.eps = static_cast<float>(eps);
        record_norm_rows(rec, name(), input, weight, bias, out, outs[1], outs[2], p);
    }
};

}  // namespace

const Op& layer_norm_op() {
    static const LayerNorm op;
    return op;
}

}  // namespace wgx::ops
