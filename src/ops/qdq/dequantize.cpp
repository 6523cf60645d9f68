// quantized_decomposed.dequantize_per_tensor.{default,tensor}, dequantize_per_channel and
// dequantize_per_token: int8 / uint8 / int32 to float32 as torch/ao/quantization/fx/
// _decomposed.py does. Per tensor: (float(q) - zero_point) * scale; per channel and per token:
// (q - zero_point) * scale, the difference in
// integers (the same for 8-bit inputs; for int32 the reference's order is kept).
// Args: .default [input, scale, zero_point, quant_min, quant_max, dtype, out_dtype?, out];
//       .tensor  [input, scale [1], zero_point [1], quant_min, quant_max, dtype, out_dtype?, out];
//       per_channel [input, scales [C], zero_points [C]?, axis, quant_min, quant_max, dtype,
//                    out_dtype?, out] (no zero points: zero);
//       per_token [input, scales [T], zero_points [T], quant_min, quant_max, dtype,
//                  output_dtype, out] with T = input's rows (numel / last dim).
// input's dtype must be `dtype`; out (input's shape) is float32, the only out_dtype taken.
// Scales are float32 or float64 (read as float32) and zero points int32 or int64.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "ops/common/dims.h"
#include "ops/qdq/dequantize.wgsl.h"
#include "ops/qdq/qdq_args.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

using namespace qdq;

struct DequantizeParams {
    uint32_t numel, inner, channels;
    int32_t zero_point;
    float scale;
    uint32_t pad0, pad1, pad2;
};
static_assert(sizeof(DequantizeParams) == 32);

struct QParams {
    const Tensor* scales = nullptr;  // null: scale and zero_point below
    const Tensor* zero_points = nullptr;
    int64_t inner = 1, channels = 1;
    float scale = 1;
    int32_t zero_point = 0;
    bool integer_difference = false;
};

// `range_at`: the position of quant_min (dtype two later, out_dtype three later when given).
void record_dequantize(Recorder& rec, const Args& args, std::string_view name, const QParams& qp,
                       size_t range_at) {
    const Tensor& q = args.tensor(0, "input");
    const Tensor& out = args.tensor(args.size() - 1, "out");
    const DType dtype = quant_dtype_arg(args, range_at + 2, "dtype", q.dtype());
    quant_range_args(args, range_at, dtype);
    expect_dtype(args, q, dtype, "input");
    if (args.size() > range_at + 4) expect_dequantized_out(args, range_at + 3, out);
    expect_dtype(args, out, DType::f32, "out");
    expect_shape(args, out, q.shape(), "out");
    expect_indexable(args, q, "input");
    DequantizeParams p{uint32_t(q.numel()),
                       uint32_t(qp.inner),
                       uint32_t(qp.channels),
                       qp.zero_point,
                       qp.scale,
                       0,
                       0,
                       0};
    if (p.numel == 0) return;
    const uint32_t wg = rec.workgroup_size(256);
    const bool buffers = qp.scales != nullptr;
    const bool has_zp = qp.zero_points != nullptr;
    Kernel k = rec.kernel(fmt::format("{}/{}", name, dtype_name(dtype)),
                          std::string(wgsl::ops_qdq_dequantize),
                          {{"WG", double(wg)},
                           {"QPARAMS", buffers ? 1.0 : 0.0},
                           {"IN_KIND", double(storage_kind(dtype))},
                           {"HAS_ZP", has_zp ? 1.0 : 0.0},
                           {"INT_DIFF", qp.integer_difference ? 1.0 : 0.0}});
    // Bindings the kernel never reads (no buffers, no zero points) get a tensor it binds anyway.
    const Tensor& scales = buffers ? *qp.scales : q;
    rec.dispatch(k, {q, scales, has_zp ? *qp.zero_points : scales, out, Binding::uniform(p)},
                 rec.grid_1d(p.numel, wg));
}

class DequantizePerTensor final : public BuiltinOp {
  public:
    std::string_view name() const override {
        return "quantized_decomposed.dequantize_per_tensor.default";
    }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(7, 8);
        QParams qp;
        qp.scale = float(scale_arg(args, 1, "scale"));
        const int64_t zp = args.integer(2, "zero_point");
        if (zp < INT32_MIN || zp > INT32_MAX) {
            args.fail(fmt::format("zero_point {} does not fit in int32.", zp));
        }
        qp.zero_point = int32_t(zp);
        record_dequantize(rec, args, name(), qp, 3);
    }
};

class DequantizePerTensorTensor final : public BuiltinOp {
  public:
    std::string_view name() const override {
        return "quantized_decomposed.dequantize_per_tensor.tensor";
    }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(7, 8);
        const Tensor& scale = args.tensor(1, "scale");
        const Tensor& zero_point = args.tensor(2, "zero_point");
        expect_scales(args, scale, 1, "scale");
        expect_zero_points(args, zero_point, 1, "zero_point");
        QParams qp;
        qp.scales = &scale;
        qp.zero_points = &zero_point;
        qp.inner = std::max<int64_t>(1, args.tensor(0, "input").numel());
        record_dequantize(rec, args, name(), qp, 3);
    }
};

class DequantizePerChannel final : public BuiltinOp {
  public:
    std::string_view name() const override {
        return "quantized_decomposed.dequantize_per_channel.default";
    }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(8, 9);
        const Tensor& q = args.tensor(0, "input");
        const Tensor& scales = args.tensor(1, "scales");
        const std::optional<Tensor> zero_points = args.optional_tensor(2, "zero_points");
        const int64_t axis = wrap_dim(args, args.integer(3, "axis"), q.rank(), "axis");
        QParams qp;
        qp.channels = q.rank() == 0 ? 1 : q.shape()[size_t(axis)];
        for (int64_t d = axis + 1; d < q.rank(); ++d) qp.inner *= q.shape()[size_t(d)];
        expect_scales(args, scales, qp.channels, "scales");
        if (zero_points) expect_zero_points(args, *zero_points, qp.channels, "zero_points");
        qp.scales = &scales;
        qp.zero_points = zero_points ? &*zero_points : nullptr;
        qp.integer_difference = true;
        record_dequantize(rec, args, name(), qp, 4);
    }
};

// Per token: the reference's (input - zero_points) * scales, the difference in integers.
class DequantizePerToken final : public BuiltinOp {
  public:
    std::string_view name() const override {
        return "quantized_decomposed.dequantize_per_token.default";
    }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(8, 8);
        const Tensor& q = args.tensor(0, "input");
        const Tensor& scales = args.tensor(1, "scales");
        const Tensor& zero_points = args.tensor(2, "zero_points");
        if (q.rank() < 1) args.fail("input must have at least one dim.");
        QParams qp;
        qp.inner = std::max<int64_t>(1, q.shape().back());
        qp.channels = q.numel() / qp.inner;
        expect_scales(args, scales, qp.channels, "scales");
        expect_zero_points(args, zero_points, qp.channels, "zero_points");
        qp.channels = std::max<int64_t>(1, qp.channels);
        qp.scales = &scales;
        qp.zero_points = &zero_points;
        qp.integer_difference = true;
        record_dequantize(rec, args, name(), qp, 3);
    }
};

}  // namespace

const Op& dequantize_per_token_op() {
    static const DequantizePerToken op;
    return op;
}
const Op& dequantize_per_tensor_op() {
    static const DequantizePerTensor op;
    return op;
}
const Op& dequantize_per_tensor_tensor_op() {
    static const DequantizePerTensorTensor op;
    return op;
}
const Op& dequantize_per_channel_op() {
    static const DequantizePerChannel op;
    return op;
}

}  // namespace wgx::ops
