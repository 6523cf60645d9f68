// wgx.linear_epilogue.default: the engine's own op for a linear layer and what a transformer
// block does right after it, in the GEMM's epilogue (one dispatch; two with split K):
//   y = act(input @ weight^T + bias) * scale + residual
// No exporter writes it; the graph pass graph/passes/fuse_linear_epilogue builds it from
// aten.linear followed by aten.gelu (or aten.silu, aten.hardswish), aten.mul.Tensor (a layer
// scale), aten.add.Tensor (a residual) and a permute_copy to channels-first, with the reshapes in
// between. The steps run in the order those ops do (PyTorch: linear -> gelu; linear -> mul(gamma)
// -> add). Args: [input, weight, bias?, activation, scale?, residual?, channels_first, out]
//   input [..., K], weight [N, K], bias [N] (or one element) as aten.linear; M = input's rows;
//   activation: "none", "gelu" (aten.gelu, approximate "none": exact, through erf),
//     "gelu_tanh" (approximate "tanh"), "silu" or "hardswish";
//   scale: N elements (any shape), one per output feature;
//   residual: out's shape, read in out's layout;
//   channels_first false: out holds M * N elements, y in row-major [M, N] order (its shape is
//     free: the pass lets reshapes of y fall away);
//   channels_first true: out is [B, N, d...] with B * prod(d) = M, and
//     out[b, n, p] = y[b * P + p, n] (P = prod(d)): y viewed as [B, P, N] with the features
//     moved to dim 1, as ConvNeXt's permute back to NCHW after its MLP does. The GEMM then
//     computes out[b] = weight @ input[b]^T, so the permute costs nothing.
// float32, or float16 throughout (float32 arithmetic).
#include <fmt/format.h>

#include "graph/schema/fused_ops.h"
#include "ops/common/dims.h"
#include "ops/common/float16_support.h"
#include "ops/matmul/gemm.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

using Schema = schema::LinearEpilogue;

Activation parse_activation(const Args& args) {
    const auto* s = std::get_if<std::string>(&args[Schema::activation].value());
    if (s == nullptr) {
        args.fail(
            fmt::format("argument {} (activation) must be a string.", size_t(Schema::activation)));
    }
    if (auto a = schema::activation_named(*s)) return *a;
    args.fail(
        fmt::format("activation must be \"none\", \"gelu\", \"gelu_tanh\", \"silu\" or "
                    "\"hardswish\", got \"{}\".",
                    *s));
}

class LinearEpilogue final : public BuiltinOp {
  public:
    std::string_view name() const override { return schema::LinearEpilogue::name; }
    bool accepts_float16() const override { return true; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(Schema::count, Schema::count);
        const Tensor& input = args.tensor(Schema::input, "input");
        const Tensor& weight = args.tensor(Schema::weight, "weight");
        const auto bias = args.optional_tensor(Schema::bias, "bias");
        const Activation activation = parse_activation(args);
        const auto scale = args.optional_tensor(Schema::scale, "scale");
        const auto residual = args.optional_tensor(Schema::residual, "residual");
        const bool channels_first = args.boolean(Schema::channels_first, "channels_first");
        const Tensor& out = args.tensor(Schema::out, "out");
        one_float_type(rec, args,
                       {{&input, "input"},
                        {&weight, "weight"},
                        {bias ? &*bias : nullptr, "bias"},
                        {scale ? &*scale : nullptr, "scale"},
                        {residual ? &*residual : nullptr, "residual"},
                        {&out, "out"}});

        if (input.rank() < 1) args.fail("input must have at least one dim.");
        if (weight.rank() != 2) {
            args.fail(fmt::format("weight must be 2-D [out_features, in_features], got {}.",
                                  shape_string(weight.shape())));
        }
        const int64_t K = input.shape().back();
        const int64_t N = weight.shape()[0];
        if (weight.shape()[1] != K) {
            args.fail(fmt::format("input {} has {} features but weight {} expects {}.",
                                  shape_string(input.shape()), K, shape_string(weight.shape()),
                                  weight.shape()[1]));
        }
        if (K == 0) args.fail("input has no features (its last dim is 0).");
        const int64_t M = input.numel() / K;
        if (bias && !(bias->shape() == Shape{N} || bias->numel() == 1)) {
            args.fail(
                fmt::format("bias has shape {}, expected [{}].", shape_string(bias->shape()), N));
        }
        if (scale && scale->numel() != N) {
            args.fail(
                fmt::format("scale has shape {} ({} elements); it needs one per output "
                            "feature ({}).",
                            shape_string(scale->shape()), scale->numel(), N));
        }
        if (residual && residual->shape() != out.shape()) {
            args.fail(fmt::format("residual has shape {}; it must have out's shape {}.",
                                  shape_string(residual->shape()), shape_string(out.shape())));
        }

        // The batches (1 unless channels_first) and the rows of each.
        int64_t batch = 1, rows = M;
        if (channels_first) {
            const Shape& s = out.shape();
            if (s.size() < 2 || s[1] != N || (s[0] == 0 ? M != 0 : M % s[0] != 0) ||
                out.numel() != M * N) {
                args.fail(fmt::format(
                    "channels_first: out must be [B, {}, ...] holding the {} rows of input {} "
                    "as B batches; got {}.",
                    N, M, shape_string(input.shape()), shape_string(s)));
            }
            batch = s[0];
            rows = batch > 0 ? M / batch : 0;
        } else if (out.numel() != M * N) {
            args.fail(fmt::format("out must hold {} x {} elements (input {}, weight {}); got {}.",
                                  M, N, shape_string(input.shape()), shape_string(weight.shape()),
                                  shape_string(out.shape())));
        }
        expect_indexable(args, input, "input");
        expect_indexable(args, out, "out");
        if (residual) expect_indexable(args, *residual, "residual");
        if (out.numel() == 0) return;

        const uint32_t bias_stride = bias && bias->numel() > 1 ? 1 : 0;
        GemmCall call{input, weight, bias, out};
        call.p.alpha = 1.f;
        call.p.beta = 1.f;
        call.p.K = static_cast<uint32_t>(K);
        call.activation = activation;
        call.scale = scale;
        call.residual = residual;
        if (channels_first) {
            // out[b] [N, P] = weight [N, K] @ input[b]^T, input[b] stored [P, K].
            call.a = weight;
            call.b = input;
            call.trans_b = true;
            call.p.M = static_cast<uint32_t>(N);
            call.p.N = static_cast<uint32_t>(rows);
            call.p.batch = static_cast<uint32_t>(batch);
            call.p.a_batch_stride = 0;
            call.p.b_batch_stride = static_cast<uint32_t>(rows * K);
            call.p.c_batch_stride = static_cast<uint32_t>(N * rows);
            call.p.bias_row_stride = bias_stride;
            call.scale_rows = true;
        } else {
            call.trans_b = true;
            call.p.M = static_cast<uint32_t>(M);
            call.p.N = static_cast<uint32_t>(N);
            call.p.batch = 1;
            call.p.c_batch_stride = static_cast<uint32_t>(M * N);
            call.p.bias_col_stride = bias_stride;
        }
        record_gemm(rec, name(), call);
    }
};

}  // namespace

const Op& linear_epilogue_op() {
    static const LinearEpilogue op;
    return op;
}

}  // namespace wgx::ops
