// et_vk.q8ta_add [a int8, b int8 (a's shape), a_scale, a_zero_point, b_scale, b_zero_point,
// out_scale, out_zero_point, alpha, out int8] and et_vk.q8ta_relu [x int8, x_scale,
// x_zero_point, out_scale, out_zero_point, out int8], as ExecuTorch's Vulkan fusion passes
// write a quantized add or relu between int8 tensors (q8ta_elementwise.wgsl).
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
    uint32_t pad[3];
};
static_assert(sizeof(Q8taElementwiseParams) == 48);

void record_q8ta_elementwise(Recorder& rec, const Args& args, std::string_view name,
                             const Tensor& a, const Tensor* b, QParam aq, QParam bq, float alpha,
                             QParam oq) {
    const Tensor& out = args.tensor(args.size() - 1, "out");
    expect_int8(args, a, a.rank(), b ? "input_a" : "input");
    expect_int8(args, out, a.rank(), "out");
    expect_shape(args, out, a.shape(), "out");
    if (b) {
        expect_int8(args, *b, b->rank(), "input_b");
        expect_shape(args, *b, a.shape(), "input_b");
    }
    const Q8taElementwiseParams p{uint32_t(a.numel()),
                                  uint32_t((a.numel() + 3) / 4),
                                  float(aq.zero_point),
                                  aq.scale,
                                  float(bq.zero_point),
                                  bq.scale,
                                  alpha,
                                  oq.inv_scale,
                                  float(oq.zero_point),
                                  {}};
    if (p.numel == 0) return;
    const uint32_t wg = rec.workgroup_size(256);
    Kernel k = rec.kernel(
        std::string(name),
        std::string(wgsl::ops_quant_q8ta_common) + std::string(wgsl::ops_quant_q8ta_elementwise),
        {{"WG", double(wg)}, {"ADD", b ? 1.0 : 0.0}});
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
        record_q8ta_elementwise(rec, args, name(), args.tensor(0, "input_a"), &b, aq, bq,
                                float(alpha), oq);
    }
};

class Q8taRelu final : public BuiltinOp {
  public:
    std::string_view name() const override { return "et_vk.q8ta_relu.default"; }
    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(6, 6);
        const QParam xq = qparam_args(args, 1, 2, "input");
        const QParam oq = qparam_args(args, 3, 4, "output");
        record_q8ta_elementwise(rec, args, name(), args.tensor(0, "input"), nullptr, xq, {}, 0.f,
                                oq);
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

}  // namespace wgx::ops
