// aten._native_batch_norm_legit_no_training.default: inference batch norm over dim 1,
// out = (x - running_mean) / sqrt(running_var + eps) * weight + bias.
// Args: [input, weight?, bias?, running_mean, running_var, momentum, eps,
// (out, save_mean, save_invstd)]. PyTorch returns the last two empty; where a graph gives them
// room ([C]) they get running_mean and 1 / sqrt(running_var + eps), and absent ones are
// skipped. float32, or float16 throughout (computed in f32).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/wgsl_types.h"
#include "ops/norm/batch_norm.wgsl.h"
#include "ops/norm/batch_norm_stats.wgsl.h"
#include "ops/norm/norm.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct BatchNormParams {
    uint32_t numel;
    uint32_t channels;
    uint32_t inner;
    float eps;
};
static_assert(sizeof(BatchNormParams) == 16);

struct BatchNormStatsParams {
    uint32_t channels;
    float eps;
    uint32_t pad0, pad1;
};
static_assert(sizeof(BatchNormStatsParams) == 16);

class BatchNorm final : public BuiltinOp {
  public:
    std::string_view name() const override {
        return "aten._native_batch_norm_legit_no_training.default";
    }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        if (args.size() < 8) args.expect_count(8, 10);
        const Tensor& input = args.tensor(0, "input");
        auto weight = args.optional_tensor(1, "weight");
        auto bias = args.optional_tensor(2, "bias");
        const Tensor& mean = args.tensor(3, "running_mean");
        const Tensor& var = args.tensor(4, "running_var");
        args.number(5, "momentum");  // unused without training, but must be a number
        double eps = args.number(6, "eps");
        auto outs = output_list(args, 7, 3);
        const Tensor& out = *outs[0];

        if (input.rank() < 2) {
            args.fail(fmt::format("input {} needs at least 2 dims ([N, C, ...]).",
                                  shape_string(input.shape())));
        }
        int64_t C = input.shape()[1];
        expect_float(rec, args, input, "input");
        for (const auto& [t, what] : {std::pair{weight, "weight"}, std::pair{bias, "bias"},
                                      std::pair{std::optional(mean), "running_mean"},
                                      std::pair{std::optional(var), "running_var"}}) {
            if (t) {
                expect_dtype(args, *t, input.dtype(), what);
                expect_shape(args, *t, {C}, what);
            }
        }
        expect_dtype(args, out, input.dtype(), "out");
        expect_shape(args, out, input.shape(), "out");
        for (size_t i : {1u, 2u}) {
            if (outs[i]) {
                std::string what = i == 1 ? "save_mean" : "save_invstd";
                expect_dtype(args, *outs[i], input.dtype(), what);
                expect_shape(args, *outs[i], {C}, what);
            }
        }
        expect_indexable(args, input, "input");

        BatchNormParams p{static_cast<uint32_t>(input.numel()), static_cast<uint32_t>(C),
                          static_cast<uint32_t>(input.numel() / input.shape()[0] / C),
                          static_cast<float>(eps)};
        uint32_t wg = rec.workgroup_size(256);
        Kernel k =
            rec.kernel(name(), wgsl_alias(input.dtype()) + std::string(wgsl::ops_norm_batch_norm),
                       {{"WG", double(wg)},
                        {"HAS_WEIGHT", weight ? 1.0 : 0.0},
                        {"HAS_BIAS", bias ? 1.0 : 0.0}});
        rec.dispatch(k,
                     {input, weight ? *weight : input, bias ? *bias : input, mean, var, out,
                      Binding::uniform(p)},
                     rec.grid_1d(p.numel, wg));

        if (outs[1] || outs[2]) {
            Tensor save_mean = outs[1] ? *outs[1] : rec.scratch(input.dtype(), {C});
            Tensor save_invstd = outs[2] ? *outs[2] : rec.scratch(input.dtype(), {C});
            BatchNormStatsParams s{static_cast<uint32_t>(C), static_cast<float>(eps), 0, 0};
            uint32_t swg = rec.workgroup_size(64);
            Kernel sk =
                rec.kernel(fmt::format("{}/stats", name()),
                           wgsl_alias(input.dtype()) + std::string(wgsl::ops_norm_batch_norm_stats),
                           {{"WG", double(swg)}});
            rec.dispatch(sk, {mean, var, save_mean, save_invstd, Binding::uniform(s)},
                         rec.grid_1d(static_cast<uint64_t>(C), swg));
        }
    }
};

}  // namespace

const Op& batch_norm_op() {
    static const BatchNorm op;
    return op;
}

}  // namespace wgx::ops
