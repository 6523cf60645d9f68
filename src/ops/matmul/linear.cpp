// aten.linear.default: out [..., N] = input [..., K] @ weight[N, K]^T + bias [N].
// Args: [input, weight, bias?, out]. Leading dims of input are flattened into M; the weight is
// read transposed in the kernel (no transposed copy). float32, or float16 throughout (float32
// arithmetic).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/matmul/gemm.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

class Linear final : public BuiltinOp {
  public:
    std::string_view name() const override { return "aten.linear.default"; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(3, 4);
        const Tensor& input = args.tensor(0, "input");
        const Tensor& weight = args.tensor(1, "weight");
        auto bias = args.size() == 4 ? args.optional_tensor(2, "bias") : std::nullopt;
        const Tensor& out = args.tensor(args.size() - 1, "out");
        one_float_type(rec, args,
                       {{&input, "input"},
                        {&weight, "weight"},
                        {bias ? &*bias : nullptr, "bias"},
                        {&out, "out"}});
        if (input.rank() < 1) args.fail("input must have at least one dim.");
        if (weight.rank() != 2) {
            args.fail(fmt::format("weight must be 2-D [out_features, in_features], got {}.",
                                  shape_string(weight.shape())));
        }
        int64_t K = input.shape().back();
        int64_t N = weight.shape()[0];
        if (weight.shape()[1] != K) {
            args.fail(fmt::format("input {} has {} features but weight {} expects {}.",
                                  shape_string(input.shape()), K, shape_string(weight.shape()),
                                  weight.shape()[1]));
        }
        if (bias) {
            // PyTorch adds the bias with broadcasting; [N] and [] are what graphs hold.
            if (!(bias->shape() == Shape{N} || bias->numel() == 1)) {
                args.fail(fmt::format("bias has shape {}, expected [{}].",
                                      shape_string(bias->shape()), N));
            }
        }
        Shape shape = input.shape();
        shape.back() = N;
        expect_shape(args, out, shape, "out");
        expect_indexable(args, input, "input");
        expect_indexable(args, out, "out");

        GemmParams p{};
        p.M = static_cast<uint32_t>(input.numel() / K);
        p.N = static_cast<uint32_t>(N);
        p.K = static_cast<uint32_t>(K);
        p.batch = 1;
        p.bias_col_stride = bias && bias->numel() > 1 ? 1 : 0;
        p.alpha = 1.f;
        p.beta = 1.f;
        record_gemm(rec, name(), input, weight, bias, out, p, true);
    }
};

}  // namespace

const Op& linear_op() {
    static const Linear op;
    return op;
}

}  // namespace wgx::ops
