// llama.gated_delta_rule.default: the recurrence of a gated DeltaNet layer (Qwen 3.5's linear
// attention). Per batch b and head h, with a state S [K, V] starting at initial_state, for
// t = 0 .. T-1:
//   S = decay[t] * S                 (a scalar per head, or one factor per row of S)
//   S = S + k[t]^T (beta[t] * (v[t] - k[t] S))
//   out[t] = q[t] S
// Args: [query [B, H, T, K], key [B, H, T, K], value [B, H, T, V], decay [B, H, T] or
// [B, H, T, K], beta [B, H, T], initial_state [B, H, K, V], outs (list: out [B, H, T, V],
// final_state [B, H, K, V])]. float32 only, as ExecuTorch's kernel. The exporter repeats key
// heads up to the value heads before the op, so query and key have one head count here.
// One dispatch (gated_delta_rule.wgsl).
#include <fmt/format.h>

#include "ops/common/dims.h"
#include "ops/llm/gated_delta_rule.wgsl.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

struct DeltaRuleParams {
    uint32_t batch_heads, seq, key_dim, value_dim;
    uint32_t channelwise, total, pad1, pad2;
};
static_assert(sizeof(DeltaRuleParams) == 32);
static_assert(offsetof(DeltaRuleParams, channelwise) == 16);

class GatedDeltaRule final : public BuiltinOp {
  public:
    std::string_view name() const override { return "llama.gated_delta_rule.default"; }

    void record(Recorder& rec, const Args& args) const override {
        args.expect_count(7, 7);
        const Tensor& q = args.tensor(0, "query");
        const Tensor& k = args.tensor(1, "key");
        const Tensor& v = args.tensor(2, "value");
        const Tensor& decay = args.tensor(3, "decay");
        const Tensor& beta = args.tensor(4, "beta");
        const Tensor& initial = args.tensor(5, "initial_state");
        const auto outs = args.tensor_list(6, "outs");
        if (outs.size() != 2 || !outs[0] || !outs[1]) {
            args.fail(
                fmt::format("outs must be two tensors (out, final_state), got {}.", outs.size()));
        }
        const Tensor& out = *outs[0];
        const Tensor& final_state = *outs[1];
        const std::pair<const Tensor*, const char*> all[] = {
            {&q, "query"},   {&k, "key"},
            {&v, "value"},   {&decay, "decay"},
            {&beta, "beta"}, {&initial, "initial_state"},
            {&out, "out"},   {&final_state, "final_state"}};
        for (const auto& [t, what] : all) expect_dtype(args, *t, DType::f32, what);
        if (q.rank() != 4 || v.rank() != 4) {
            args.fail(fmt::format("query {} and value {} must be 4-D [B, H, T, D].",
                                  shape_string(q.shape()), shape_string(v.shape())));
        }
        const Shape& qs = q.shape();
        const int64_t B = qs[0], H = qs[1], T = qs[2], K = qs[3], V = v.shape()[3];
        expect_shape(args, k, qs, "key");
        expect_shape(args, v, {B, H, T, V}, "value");
        const bool channelwise = decay.rank() == 4;
        expect_shape(args, decay, channelwise ? qs : Shape{B, H, T}, "decay");
        expect_shape(args, beta, {B, H, T}, "beta");
        expect_shape(args, initial, {B, H, K, V}, "initial_state");
        expect_shape(args, out, {B, H, T, V}, "out");
        expect_shape(args, final_state, {B, H, K, V}, "final_state");
        if (K < 1 || V < 1) args.fail(fmt::format("K = {} and V = {} must be positive.", K, V));
        for (const auto& [t, what] : all) expect_indexable(args, *t, what);

        const DeltaRuleParams p{
            uint32_t(B * H),       uint32_t(T),         uint32_t(K), uint32_t(V),
            uint32_t(channelwise), uint32_t(B * H * V), 0,           0};
        if (p.total == 0) return;
        const uint32_t wg = rec.workgroup_size(64);
        Kernel kernel =
            rec.kernel(name(), std::string(wgsl::ops_llm_gated_delta_rule), {{"WG", double(wg)}});
        rec.dispatch(kernel, {q, k, v, decay, beta, initial, out, final_state, Binding::uniform(p)},
                     rec.grid_1d(p.total, wg));
    }
};

}  // namespace

const Op& gated_delta_rule_op() {
    static const GatedDeltaRule op;
    return op;
}

}  // namespace wgx::ops
