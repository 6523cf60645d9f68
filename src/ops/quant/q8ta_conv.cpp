// ExecuTorch's Vulkan convolutions and linear layers of static int8 activations (q8ta_conv.wgsl),
// as its fusion passes write a PT2E-quantized model (XNNPACK or Vulkan quantizer, static
// per-tensor activations, per-channel int8 weights) lowered with the VulkanPartitioner:
//   et_vk.q8ta_conv2d / q8ta_conv2d_pw: [x int8 [N, C_in, H, W], x_scale, x_zero_point,
//     weights int8 [C_out, Kp] ((kh, kw, ic) per row), weight_sums (unused: the kernel subtracts
//     the zero point itself), weight_scales [>= C_out], out_scale, out_zero_point, bias
//     [>= C_out] or none, kernel_size, stride, padding, dilation, groups, activation, out int8];
//   et_vk.q8ta_conv2d_dw: the same with depthwise weights [kH, kW, C_out_p];
//   et_vk.q8ta_conv2d_transposed: the same with output_padding after padding;
//   et_vk.q8ta_linear / q8ta_linear_gemv: [x int8 [..., K], x_scale, x_zero_point, weights int8
//     [N, K], weight_sums, weight_scales [>= N], out_scale, out_zero_point, bias or none,
//     activation, out int8 [..., N]];
//   et_vk.linear_q8ta_q8csw: [x float32 [..., K], x_scale, x_zero_point, weights, weight_sums,
//     weight_scales, bias or none, out float32]: the input quantized in the layer, a float
//     output.
// Each matches the reference of ExecuTorch's custom_ops_lib: dequantize, convolve in float,
// quantize; here the sum runs exactly in int32 (one rounding where the reference has many).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "ops/common/dims.h"
#include "ops/op_table.h"
#include "ops/quant/q8ta_args.h"
#include "ops/quant/q8ta_common.wgsl.h"
#include "ops/quant/q8ta_conv.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

using namespace q8ta;

struct Q8taConvParams {
    uint32_t C_in, H_in, W_in, C_out;
    uint32_t H_out, W_out, groups, w_row;
    uint32_t kH, kW, stride_h, stride_w;
    int32_t pad_h, pad_w;
    uint32_t dil_h, dil_w;
    uint32_t numel, words;
    int32_t x_zero_point;
    float x_scale, x_inv_scale, out_inv_scale, out_zero_point;
    uint32_t pad;
};
static_assert(sizeof(Q8taConvParams) == 96);

enum class Form { conv, depthwise, transposed, linear, linear_float };

struct Q8taConvRow {
    const char* name;
    Form form;
};

constexpr Q8taConvRow kQ8taConvOps[] = {
    {"et_vk.q8ta_conv2d.default", Form::conv},
    {"et_vk.q8ta_conv2d_pw.default", Form::conv},
    {"et_vk.q8ta_conv2d_dw.default", Form::depthwise},
    {"et_vk.q8ta_conv2d_transposed.default", Form::transposed},
    {"et_vk.q8ta_linear.default", Form::linear},
    {"et_vk.q8ta_linear_gemv.default", Form::linear},
    {"et_vk.linear_q8ta_q8csw.default", Form::linear_float},
};

// A 2-value list argument (kernel_size, stride, ...); one value serves both dims.
std::array<int64_t, 2> pair_arg(const Args& args, size_t i, std::string_view name, int64_t lo) {
    std::vector<int64_t> v = int_list_arg(args, i, name);
    if (v.size() == 1) v.push_back(v[0]);
    if (v.size() != 2) args.fail(fmt::format("{} must have 2 values, got {}.", name, v.size()));
    for (int64_t x : v) {
        if (x < lo || x > (int64_t(1) << 24)) {
            args.fail(fmt::format("{} value {} is out of range.", name, x));
        }
    }
    return {v[0], v[1]};
}

class Q8taConv final : public BuiltinOp {
  public:
    constexpr Q8taConv(const Q8taConvRow& row) : row_(row) {}
    std::string_view name() const override { return row_.name; }

    void record(Recorder& rec, const Args& args) const override {
        const bool linear = row_.form == Form::linear || row_.form == Form::linear_float;
        const bool transposed = row_.form == Form::transposed;
        const bool float_io = row_.form == Form::linear_float;
        if (row_.form == Form::linear) {
            args.expect_count(10, 11);
        } else if (float_io) {
            args.expect_count(7, 8);
        } else {
            args.expect_count(transposed ? 17 : 16, transposed ? 17 : 16);
        }
        const Tensor& x = args.tensor(0, "x");
        const QParam xq = qparam_args(args, 1, 2, "input");
        const Tensor& weights = args.tensor(3, "weights");
        const Tensor& scales = args.tensor(5, "weight_scales");
        QParam oq;
        if (!float_io) oq = qparam_args(args, 6, 7, "output");
        const size_t bias_at = float_io ? 6 : 8;
        const std::optional<Tensor> bias =
            args.size() > bias_at + 1 ? args.optional_tensor(bias_at, "bias") : std::nullopt;
        const Tensor& out = args.tensor(args.size() - 1, "out");

        Q8taConvParams p{};
        p.groups = 1;
        p.kH = p.kW = p.stride_h = p.stride_w = p.dil_h = p.dil_w = 1;
        uint32_t activation = 0;
        expect_dtype(args, x, float_io ? DType::f32 : DType::i8, "x");
        expect_dtype(args, out, float_io ? DType::f32 : DType::i8, "out");
        expect_dtype(args, weights, DType::i8, "weights");
        if (linear) {
            if (x.rank() < 1) args.fail("x must have at least one dim.");
            expect_int8(args, weights, 2, "weights");
            const int64_t K = x.shape().back(), N = weights.shape()[0];
            if (weights.shape()[1] != K) {
                args.fail(fmt::format("weights {} must have x's {} features per row.",
                                      shape_string(weights.shape()), K));
            }
            Shape want = x.shape();
            want.back() = N;
            expect_shape(args, out, want, "out");
            p.C_in = uint32_t(K);
            p.C_out = uint32_t(N);
            p.w_row = uint32_t(K);
            if (row_.form == Form::linear && args.size() == 11)
                activation = activation_arg(args, 9);
        } else {
            expect_int8(args, x, 4, "x");
            expect_int8(args, out, 4, "out");
            const auto kernel = pair_arg(args, 9, "kernel_size", 1);
            const auto stride = pair_arg(args, 10, "stride", 1);
            const auto padding = pair_arg(args, 11, "padding", 0);
            const auto output_padding =
                transposed ? pair_arg(args, 12, "output_padding", 0) : std::array<int64_t, 2>{};
            const size_t d = transposed ? 13 : 12;
            const auto dilation = pair_arg(args, d, "dilation", 1);
            const int64_t groups = args.integer(d + 1, "groups");
            activation = activation_arg(args, d + 2);
            const Shape& in = x.shape();
            const int64_t C_out = out.shape()[1];
            if (groups < 1 || in[1] % groups != 0 || C_out % groups != 0) {
                args.fail(fmt::format("groups {} must divide x's {} and out's {} channels.", groups,
                                      in[1], C_out));
            }
            const int64_t cin_g = in[1] / groups;
            Shape want = {in[0], C_out, 0, 0};
            for (int i = 0; i < 2; ++i) {
                const int64_t span = dilation[i] * (kernel[i] - 1);
                want[size_t(2 + i)] =
                    transposed ? (in[size_t(2 + i)] - 1) * stride[i] - 2 * padding[i] + span +
                                     output_padding[i] + 1
                               : (in[size_t(2 + i)] + 2 * padding[i] - span - 1) / stride[i] + 1;
            }
            if (want[2] < 1 || want[3] < 1) args.fail("the convolution's output is empty.");
            expect_shape(args, out, want, "out");
            if (row_.form == Form::depthwise) {
                if (groups != in[1] || C_out != in[1]) {
                    args.fail(
                        fmt::format("a depthwise convolution needs groups = input channels "
                                    "= output channels, got {}, {} and {}.",
                                    groups, in[1], C_out));
                }
                expect_int8(args, weights, 3, "weights");
                const Shape& w = weights.shape();
                if (w[0] != kernel[0] || w[1] != kernel[1] || w[2] < C_out) {
                    args.fail(fmt::format("depthwise weights {} must be [{}, {}, >= {}].",
                                          shape_string(w), kernel[0], kernel[1], C_out));
                }
                p.w_row = uint32_t(w[2]);
            } else {
                expect_int8(args, weights, 2, "weights");
                const Shape& w = weights.shape();
                const int64_t taps = kernel[0] * kernel[1] * cin_g;
                if (w[0] != C_out || w[1] < taps) {
                    args.fail(
                        fmt::format("weights {} must be [{}, >= {}] (kernel {} x {} over {} "
                                    "input channels a group).",
                                    shape_string(w), C_out, taps, kernel[0], kernel[1], cin_g));
                }
                p.w_row = uint32_t(w[1]);
            }
            p.C_in = uint32_t(in[1]);
            p.H_in = uint32_t(in[2]);
            p.W_in = uint32_t(in[3]);
            p.C_out = uint32_t(C_out);
            p.H_out = uint32_t(want[2]);
            p.W_out = uint32_t(want[3]);
            p.groups = uint32_t(groups);
            p.kH = uint32_t(kernel[0]);
            p.kW = uint32_t(kernel[1]);
            p.stride_h = uint32_t(stride[0]);
            p.stride_w = uint32_t(stride[1]);
            p.pad_h = int32_t(padding[0]);
            p.pad_w = int32_t(padding[1]);
            p.dil_h = uint32_t(dilation[0]);
            p.dil_w = uint32_t(dilation[1]);
        }
        if (linear) p.H_in = p.W_in = p.H_out = p.W_out = 1;
        expect_dtype(args, scales, DType::f32, "weight_scales");
        if (scales.numel() < p.C_out) {
            args.fail(
                fmt::format("weight_scales has {} elements, fewer than the {} output "
                            "channels.",
                            scales.numel(), p.C_out));
        }
        if (bias) {
            expect_dtype(args, *bias, DType::f32, "bias");
            if (bias->numel() < p.C_out) {
                args.fail(fmt::format("bias has {} elements, fewer than the {} output channels.",
                                      bias->numel(), p.C_out));
            }
        }
        expect_indexable(args, x, "x");
        expect_indexable(args, out, "out");
        p.numel = uint32_t(out.numel());
        p.words = float_io ? p.numel : (p.numel + 3) / 4;
        p.x_zero_point = xq.zero_point;
        p.x_scale = xq.scale;
        p.x_inv_scale = xq.inv_scale;
        p.out_inv_scale = oq.inv_scale;
        p.out_zero_point = float(oq.zero_point);
        if (p.numel == 0) return;
        const uint32_t layout = row_.form == Form::depthwise ? 1 : transposed ? 2 : 0;
        const uint32_t wg = rec.workgroup_size(64);
        Kernel k = rec.kernel(
            fmt::format("q8ta conv/layout{}{}{}{}", layout, bias ? " bias" : "",
                        activation ? " relu" : "", float_io ? " float" : ""),
            std::string(wgsl::ops_quant_q8ta_common) + std::string(wgsl::ops_quant_q8ta_conv),
            {{"WG", double(wg)},
             {"LAYOUT", double(layout)},
             {"HAS_BIAS", bias ? 1.0 : 0.0},
             {"RELU", double(activation)},
             {"INPUT_FLOAT", float_io ? 1.0 : 0.0},
             {"OUTPUT_FLOAT", float_io ? 1.0 : 0.0}});
        // Without a bias the scales stand in for it (never read).
        rec.dispatch(k, {x, weights, scales, bias.value_or(scales), out, Binding::uniform(p)},
                     rec.grid_1d(p.words, wg));
    }

  private:
    Q8taConvRow row_;
};

}  // namespace

std::span<const Op* const> q8ta_conv_ops() {
    static const OpTable<Q8taConv> table(kQ8taConvOps);
    return table.ops();
}

}  // namespace wgx::ops
