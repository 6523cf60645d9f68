// quantized_decomposed.quantize_per_tensor.{default,tensor}, quantize_per_channel.default and
// quantize_per_token.default: float32 to int8 / uint8 / int32 as
// torch/ao/quantization/fx/_decomposed.py does, clamp(round(x * (1 / scale)) + zero_point,
// quant_min, quant_max) with round half to even (per token: see QuantizePerToken).
// Args: .default     [input, scale, zero_point, quant_min, quant_max, dtype, out];
//       .tensor      [input, scale [1], zero_point [1], quant_min, quant_max, dtype, out];
//       per_channel  [input, scales [C], zero_points [C], axis, quant_min, quant_max, dtype, out]
//                    with C = input's size at axis;
//       per_token    [input, scales [T], zero_points [T], quant_min, quant_max, dtype, out]
//                    with T = input's rows (numel / last dim).
// out has input's shape and dtype `dtype`. Scales are float32 or float64 and zero points
// int32 or int64 tensors; the GPU holds them as float32 / int32, so a float64 scale that
// float32 cannot hold would be rounded once (the observers and choose_qparams ops all make
// float32 values).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "ops/common/dims.h"
#include "ops/qdq/div_rn.wgsl.h"
#include "ops/qdq/qdq_args.h"
#include "ops/qdq/quantize.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

using namespace qdq;

struct QuantizeParams {
    uint32_t numel, words, inner, channels;
    float quant_min, quant_max, zero_point, inv_scale;
};
static_assert(sizeof(QuantizeParams) == 32);

// Where the kernel finds the scale and zero point: the uniforms, or buffers per channel.
struct QParams {
    const Tensor* scales = nullptr;  // null: inv_scale and zero_point below
    const Tensor* zero_points = nullptr;
    int64_t inner = 1, channels = 1;
    float inv_scale = 1, zero_point = 0;
    uint32_t rounding = 0;  // quantize.wgsl's ROUNDING
};

void record_quantize(Recorder& rec, const Args& args, std::string_view name, const QParams& qp,
                     size_t range_at) {
    const Tensor& x = args.tensor(0, "input");
    const Tensor& out = args.tensor(args.size() - 1, "out");
    const DType dtype = quant_dtype_arg(args, range_at + 2, "dtype", out.dtype());
    const QuantRange range = quant_range_args(args, range_at, dtype);
    expect_dtype(args, x, DType::f32, "input");
    expect_dtype(args, out, dtype, "out");
    expect_shape(args, out, x.shape(), "out");
    expect_indexable(args, x, "input");
    const uint32_t kind = storage_kind(dtype);
    const uint32_t lanes = kind == 0 ? 1 : 4;
    QuantizeParams p{uint32_t(x.numel()), uint32_t((x.numel() + lanes - 1) / lanes),
                     uint32_t(qp.inner),  uint32_t(qp.channels),
                     float(range.min),    float(range.max),
                     qp.zero_point,       qp.inv_scale};
    if (p.numel == 0) return;
    const uint32_t wg = rec.workgroup_size(256);
    const bool buffers = qp.scales != nullptr;
    Kernel k = rec.kernel(fmt::format("{}/{}", name, dtype_name(dtype)),
                          std::string(wgsl::ops_qdq_div_rn) + std::string(wgsl::ops_qdq_quantize),
                          {{"WG", double(wg)},
                           {"QPARAMS", buffers ? 1.0 : 0.0},
                           {"OUT_KIND", double(kind)},
                           {"ROUNDING", double(qp.rounding)}});
    // Without buffers the kernel never reads bindings 1 and 2; the input stands in for them.
    rec.dispatch(
        k, {x, buffers ? *qp.scales : x, buffers ? *qp.zero_points : x, out, Binding::uniform(p)},
        rec.grid_1d(p.words, wg));
}

class QuantizePerTensor final : public BuiltinOp {
  public:
    std::string_view name() const override {
        return "quantized_decomposed.quantize_per_tensor.default";
    }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(7, 7);
        QParams qp;
        // The reference multiplies by 1.0 / scale made in double, as float32.
        qp.inv_scale = float(1.0 / scale_arg(args, 1, "scale"));
        const int64_t zp = args.integer(2, "zero_point");
        if (zp < INT32_MIN || zp > INT32_MAX) {
            args.fail(fmt::format("zero_point {} does not fit in int32.", zp));
        }
        qp.zero_point = float(zp);
        record_quantize(rec, args, name(), qp, 3);
    }
};

class QuantizePerTensorTensor final : public BuiltinOp {
  public:
    std::string_view name() const override {
        return "quantized_decomposed.quantize_per_tensor.tensor";
    }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(7, 7);
        const Tensor& scale = args.tensor(1, "scale");
        const Tensor& zero_point = args.tensor(2, "zero_point");
        expect_scales(args, scale, 1, "scale");
        expect_zero_points(args, zero_point, 1, "zero_point");
        QParams qp;
        qp.scales = &scale;
        qp.zero_points = &zero_point;
        qp.inner = std::max<int64_t>(1, args.tensor(0, "input").numel());
        record_quantize(rec, args, name(), qp, 3);
    }
};

class QuantizePerChannel final : public BuiltinOp {
  public:
    std::string_view name() const override {
        return "quantized_decomposed.quantize_per_channel.default";
    }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(8, 8);
        const Tensor& x = args.tensor(0, "input");
        const Tensor& scales = args.tensor(1, "scales");
        const Tensor& zero_points = args.tensor(2, "zero_points");
        const int64_t axis = wrap_dim(args, args.integer(3, "axis"), x.rank(), "axis");
        QParams qp;
        qp.channels = x.rank() == 0 ? 1 : x.shape()[size_t(axis)];
        for (int64_t d = axis + 1; d < x.rank(); ++d) qp.inner *= x.shape()[size_t(d)];
        expect_scales(args, scales, qp.channels, "scales");
        expect_zero_points(args, zero_points, qp.channels, "zero_points");
        qp.scales = &scales;
        qp.zero_points = &zero_points;
        record_quantize(rec, args, name(), qp, 4);
    }
};

// Per token: one scale and zero point per row of the last dim. The reference computes
// input.mul(1.0 / scales).add(zero_points).round() in the scales' type: float64 (what
// choose_qparams_per_token_asymmetric gives) is rounded exactly on the quotient, float32 as
// float32 does.
class QuantizePerToken final : public BuiltinOp {
  public:
    std::string_view name() const override {
        return "quantized_decomposed.quantize_per_token.default";
    }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(7, 7);
        const Tensor& x = args.tensor(0, "input");
        const Tensor& scales = args.tensor(1, "scales");
        const Tensor& zero_points = args.tensor(2, "zero_points");
        if (x.rank() < 1) args.fail("input must have at least one dim.");
        QParams qp;
        qp.inner = std::max<int64_t>(1, x.shape().back());
        qp.channels = x.numel() / qp.inner;
        expect_scales(args, scales, qp.channels, "scales");
        expect_zero_points(args, zero_points, qp.channels, "zero_points");
        qp.channels = std::max<int64_t>(1, qp.channels);
        qp.scales = &scales;
        qp.zero_points = &zero_points;
        qp.rounding = scales.dtype() == DType::f64 ? 2 : 1;
        record_quantize(rec, args, name(), qp, 3);
    }
};

}  // namespace

const Op& quantize_per_token_op() {
    static const QuantizePerToken op;
    return op;
}
const Op& quantize_per_tensor_op() {
    static const QuantizePerTensor op;
    return op;
}
const Op& quantize_per_tensor_tensor_op() {
    static const QuantizePerTensorTensor op;
    return op;
}
const Op& quantize_per_channel_op() {
    static const QuantizePerChannel op;
    return op;
}

}  // namespace wgx::ops
