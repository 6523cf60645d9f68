// et_vk.q8ta_add [a int8, b int8 (a's shape), a_scale, a_zero_point, b_scale, b_zero_point,
// out_scale, out_zero_point, alpha, out int8], et_vk.q8ta_relu [x int8, x_scale, x_zero_point,
// out_scale, out_zero_point, out int8] and et_vk.q8ta_pixel_shuffle [x int8 [N, C * r * r, H,
// W], x_scale, x_zero_point, out_inv_scale (1 / out's scale), out_zero_point, upscale_factor r,
// out int8 [N, C, H * r, W * r]], as ExecuTorch's Vulkan fusion passes write a quantized add,
// relu or pixel shuffle between int8 tensors (q8ta_elementwise.wgsl).
#include <fmt/format.h>

#include <cmath>

#include "ops/common/dims.h"
#include "ops/quant/q8ta_args.h"
#include "ops/quant/q8ta_common.wgsl.h"
#include "ops/quant/q8ta_elementwise.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

using namespace q8ta;

struct Q8taElementwiseParams {
    uint32_t numel, words;
    float a_zero_point, a_scale, b_zero_point, b_scale, alpha, out_inv_scale, out_zero_point;
    uint32_t r, C, H, W;
    uint32_t pad[3];
};
static_assert(sizeof(Q8taElementwiseParams) == 64);

enum class Mode : uint32_t { relu = 0, add = 1, pixel_shuffle = 2 };

// `out_shape`: what out must be (a's shape but for the pixel shuffle); `r`: its upscale factor.
void record_q8ta_elementwise(Recorder& rec, const Args& args, std::string_view name, Mode mode,
                             const Tensor& a, const Tensor* b, QParam aq, QParam bq, float alpha,
                             QParam oq, const Shape& out_shape, int64_t r = 1) {
    const Tensor& out = args.tensor(args.size() - 1, "out");
    expect_int8(args, a, a.rank(), b ? "input_a" : "input");
    expect_int8(args, out, int64_t(out_shape.size()), "out");
    expect_shape(args, out, out_shape, "out");
    if (b) {
        expect_int8(args, *b, b->rank(), "input_b");
        expect_shape(args, *b, a.shape(), "input_b");
    }
    const auto dim = [&](size_t d) { return uint32_t(out_shape[d]); };
    const bool shuffle = mode == Mode::pixel_shuffle;
    const Q8taElementwiseParams p{uint32_t(out.numel()),
                                  uint32_t((out.numel() + 3) / 4),
                                  float(aq.zero_point),
                                  aq.scale,
                                  float(bq.zero_point),
                                  bq.scale,
                                  alpha,
                                  oq.inv_scale,
                                  float(oq.zero_point),
                                  uint32_t(r),
                                  shuffle ? dim(1) : 1,
                                  shuffle ? dim(2) : 1,
                                  shuffle ? dim(3) : 1,
                                  {}};
    if (p.numel == 0) return;
    const uint32_t wg = rec.workgroup_size(256);
    Kernel k = rec.kernel(
        std::string(name),
        std::string(wgsl::ops_quant_q8ta_common) + std::string(wgsl::ops_quant_q8ta_elementwise),
        {{"WG", double(wg)}, {"MODE", double(uint32_t(mode))}});
    rec.dispatch(k, {a, b ? *b : a, out, Binding::uniform(p)}, rec.grid_1d(p.words, wg));
}

class Q8taAdd final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.q8ta_add.default"; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(10, 10);
        const QParam aq = qparam_args(args, 2, 3, "input_a");
        const QParam bq = qparam_args(args, 4, 5, "input_b");
        const QParam oq = qparam_args(args, 6, 7, "output");
        const double alpha = args.number(8, "alpha");
        if (!std::isfinite(alpha)) args.fail("alpha must be finite.");
        const Tensor& b = args.tensor(1, "input_b");
        const Tensor& a = args.tensor(0, "input_a");
        record_q8ta_elementwise(rec, args, name(), Mode::add, a, &b, aq, bq, float(alpha), oq,
                                a.shape());
    }
};

class Q8taRelu final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.q8ta_relu.default"; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(6, 6);
        const QParam xq = qparam_args(args, 1, 2, "input");
        const QParam oq = qparam_args(args, 3, 4, "output");
        const Tensor& x = args.tensor(0, "input");
        record_q8ta_elementwise(rec, args, name(), Mode::relu, x, nullptr, xq, {}, 0.f, oq,
                                x.shape());
    }
};

class Q8taPixelShuffle final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.q8ta_pixel_shuffle.default"; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(7, 7);
        const Tensor& x = args.tensor(0, "input");
        const QParam xq = qparam_args(args, 1, 2, "input");
        const double inv = args.number(3, "output_inv_scale");
        if (!(inv > 0) || !std::isfinite(inv)) {
            args.fail(fmt::format("output_inv_scale must be positive and finite, got {}.", inv));
        }
        // The reference quantizes with scale 1 / output_inv_scale, whose reciprocal it takes.
        const QParam oq{float(1.0 / inv), float(1.0 / (1.0 / inv)),
                        zero_point_arg(args, 4, "output")};
        const int64_t r = args.integer(5, "upscale_factor");
        if (x.rank() != 4)
            args.fail(fmt::format("input must be 4-D, got {}.", shape_string(x.shape())));
        if (r < 1 || r > 64 || x.shape()[1] % (r * r) != 0) {
            args.fail(
                fmt::format("upscale_factor {} must be 1..64 with its square dividing the "
                            "input's {} channels.",
                            r, x.shape()[1]));
        }
        const Shape& s = x.shape();
        record_q8ta_elementwise(rec, args, name(), Mode::pixel_shuffle, x, nullptr, xq, {}, 0.f, oq,
                                {s[0], s[1] / (r * r), s[2] * r, s[3] * r}, r);
    }
};

}  // namespace

const Op& q8ta_add_op() {
    static const Q8taAdd op;
    return op;
}
const Op& q8ta_relu_op() {
    static const Q8taRelu op;
    return op;
}
const Op& q8ta_pixel_shuffle_op() {
    static const Q8taPixelShuffle op;
    return op;
}

}  // namespace wgx::ops
