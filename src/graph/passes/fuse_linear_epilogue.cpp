#include "graph/passes/fuse_linear_epilogue.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/passes/alias_reshapes.h"
#include "graph/passes/graph_uses.h"
#include "graph/passes/permutation.h"
#include "graph/schema/fused_ops.h"

namespace wgx::graph {
namespace {

constexpr std::string_view kLinear = "aten.linear.default";
constexpr std::string_view kGelu = "aten.gelu.default";
constexpr std::string_view kPermute = "aten.permute_copy.default";
constexpr std::string_view kMul = "aten.mul.Tensor";
constexpr std::string_view kAdd = "aten.add.Tensor";
using Fused = schema::LinearEpilogue;

// A float32 tensor of static shape (the values this pass rewrites), else nullptr.
const Tensor* plain_f32(const Graph& g, int32_t id) {
    const Tensor* t = tensor_at(g, id);
    return t && t->dtype == DType::f32 && !t->dynamic_bound ? t : nullptr;
}

// The chain's steps in the order the fused op applies them; each may appear once, in order.
enum class Step { linear, activation, channels_first, scale, residual };

// What the walk from the linear layer has found so far.
struct Pattern {
    std::vector<size_t> calls;  // the linear layer, then every call taken, in chain order
    size_t committed = 1;       // calls[0, committed) end with a real step (not a reshape)
    Step last = Step::linear;
    int32_t value;  // the value the next call must read
    int32_t out;    // the output of the last real step
    schema::Activation activation = schema::Activation::none;
    bool channels_first = false;
    int64_t batch = 0, rows = 0;  // channels_first: out is [batch, N, rows...]
    int32_t scale = -1, residual = -1;
};

// The other operand of a binary call reading `value` exactly once, or nullopt.
std::optional<int32_t> other_operand(const OpCall& op, int32_t value) {
    if (op.args.size() < 3) return std::nullopt;
    const int32_t a = op.args[0], b = op.args[1];
    if ((a == value) == (b == value)) return std::nullopt;  // value + value, or not an operand
    return a == value ? b : a;
}

// The fused op's activation for an activation call: gelu (exact or tanh, by its approximate
// argument), silu, hardswish; nullopt for other calls.
std::optional<schema::Activation> activation_of(const Graph& g, const OpCall& op) {
    if (auto a = epilogue_activation(op); a != schema::Activation::none) return a;
    if (op.name != kGelu) return std::nullopt;
    if (op.args.size() == 2 || (op.args.size() == 3 && is_null(g, op.args[1]))) {
        return schema::Activation::gelu;
    }
    if (op.args.size() != 3) return std::nullopt;
    const auto* s = std::get_if<String>(&g.values[static_cast<size_t>(op.args[1])]);
    if (!s) return std::nullopt;
    if (s->value == "none") return schema::Activation::gelu;
    if (s->value == "tanh") return schema::Activation::gelu_tanh;
    return std::nullopt;
}

// permute_copy(x, [0, r-1, 1, ..., r-2]) of x [B, d..., N] into [B, N, d...]: the features
// to dim 1.
bool moves_features_to_dim1(const Graph& g, const OpCall& op, const std::vector<int64_t>& in,
                            const std::vector<int64_t>& out, int64_t features) {
    if (op.args.size() != 3 || in.size() < 3 || in.back() != features) return false;
    const auto perm = permutation_at(g, op.args[1], in.size());
    if (!perm) return false;
    const auto r = static_cast<int64_t>(in.size());
    if ((*perm)[0] != 0 || (*perm)[1] != r - 1) return false;
    for (int64_t i = 2; i < r; ++i) {
        if ((*perm)[static_cast<size_t>(i)] != i - 1) return false;
    }
    std::vector<int64_t> permuted;
    for (int64_t d : *perm) permuted.push_back(in[static_cast<size_t>(d)]);
    return permuted == out;
}

// Whether multiplying a tensor of shape `x` (the fused op's output, laid out as the pattern says)
// by `gamma` broadcast against it scales each output feature by gamma's value for it: gamma
// holds one value per feature along the axis of x that carries the features.
bool is_per_feature(const std::vector<int64_t>& gamma, const std::vector<int64_t>& x,
                    int64_t features, int64_t inner) {
    if (element_count(gamma) != features || gamma.size() > x.size()) return false;
    const size_t lead = x.size() - gamma.size();
    std::optional<size_t> axis;
    for (size_t j = 0; j < gamma.size(); ++j) {
        if (gamma[j] == 1) continue;
        if (axis || gamma[j] != x[lead + j]) return false;  // two non-1 dims, or it broadcasts x
        axis = lead + j;
    }
    if (!axis) return true;  // features == 1: one value for everything
    int64_t after = 1;
    for (size_t a = *axis + 1; a < x.size(); ++a) after *= x[a];
    return x[*axis] == features && after == inner;
}

}  // namespace

size_t fuse_linear_epilogue(Graph& g) {
    const Uses uses = count_uses(g);
    ChainEdit edit(g);
    // A value the fused call reads where the linear layer, the mul or the add did: it must
    // not change in between (written at most once, before them).
    auto stable = [&](int32_t id) { return !tensor_at(g, id) || uses.write_count(id) <= 1; };

    for (size_t i = 0; i < g.chain.size(); ++i) {
        const OpCall& linear = g.chain[i];
        if (linear.name != kLinear || (linear.args.size() != 3 && linear.args.size() != 4) ||
            edit.taken(i)) {
            continue;
        }
        const int32_t x = linear.args[0], w = linear.args[1];
        const int32_t b = linear.args.size() == 4 ? linear.args[2] : -1;
        const Tensor* xt = plain_f32(g, x);
        const Tensor* wt = plain_f32(g, w);
        const Tensor* tt = plain_f32(g, linear.args.back());
        if (!xt || !wt || !tt || wt->dims.size() != 2 || xt->dims.empty() ||
            xt->dims.back() != wt->dims[1] || wt->dims[1] == 0 || element_count(tt->dims) == 0) {
            continue;
        }
        if (!is_null(g, b) && !plain_f32(g, b)) continue;
        if (!stable(x) || !stable(w) || (!is_null(g, b) && !stable(b))) continue;
        const int64_t features = wt->dims[0];
        const int64_t total =
            element_count(tt->dims);  // M * N: every value of the chain holds as many

        Pattern p;
        p.calls = {i};
        p.value = p.out = linear.args.back();
        while (p.last != Step::residual && uses.private_to_one_reader(p.value)) {
            const size_t k = uses.reader.at(p.value);
            if (k <= p.calls.back() || edit.taken(k)) break;
            const OpCall& op = g.chain[k];
            if (op.args.empty() || op.args.back() == p.value) break;
            const int32_t next = op.args.back();
            const Tensor* nt = plain_f32(g, next);
            const Tensor* vt = plain_f32(g, p.value);
            if (!nt || !vt || element_count(nt->dims) != total) break;

            std::optional<Step> step;
            if (is_contiguous_reshape(g, op)) {
                if (op.args.front() != p.value) break;
                // After the permute, out's shape must keep saying [batch, N, ...].
                if (p.channels_first &&
                    (nt->dims.size() < 2 || nt->dims[0] != p.batch || nt->dims[1] != features)) {
                    break;
                }
            } else if (auto act = activation_of(g, op);
                       act && p.last < Step::activation && op.args[0] == p.value) {
                p.activation = *act;
                step = Step::activation;
            } else if (op.name == kPermute && p.last < Step::channels_first &&
                       op.args[0] == p.value &&
                       moves_features_to_dim1(g, op, vt->dims, nt->dims, features)) {
                p.channels_first = true;
                p.batch = vt->dims[0];
                p.rows = p.batch > 0 ? total / features / p.batch : 0;
                step = Step::channels_first;
            } else if (op.name == kMul && p.last < Step::scale && op.args.size() == 3) {
                auto gamma = other_operand(op, p.value);
                const Tensor* gt = gamma ? plain_f32(g, *gamma) : nullptr;
                if (!gt || !stable(*gamma) || nt->dims != vt->dims ||
                    !is_per_feature(gt->dims, vt->dims, features, p.channels_first ? p.rows : 1)) {
                    break;
                }
                p.scale = *gamma;
                step = Step::scale;
            } else if (op.name == kAdd && (op.args.size() == 3 || op.args.size() == 4)) {
                if (op.args.size() == 4 && !is_null(g, op.args[2])) {
                    auto alpha = number_at(g, op.args[2]);
                    if (!alpha || *alpha != 1.0) break;
                }
                auto r = other_operand(op, p.value);
                const Tensor* rt = r ? plain_f32(g, *r) : nullptr;
                if (!rt || !stable(*r) || rt->dims != vt->dims || nt->dims != vt->dims) break;
                p.residual = *r;
                step = Step::residual;
            } else {
                break;
            }
            p.calls.push_back(k);
            p.value = next;
            if (step) {
                p.last = *step;
                p.out = next;
                p.committed = p.calls.size();
            }
        }
        if (p.committed < 2) continue;  // nothing but reshapes follow the linear layer
        p.calls.resize(p.committed);    // reshapes after the last step stay

        OpCall fused;
        fused.name = std::string(Fused::name);
        fused.debug_handle = linear.debug_handle;
        fused.args.resize(Fused::count, -1);
        fused.args[Fused::input] = x;
        fused.args[Fused::weight] = w;
        fused.args[Fused::bias] = b >= 0 ? b : append_number(g, std::nullopt);
        g.values.emplace_back(String{std::string(schema::activation_name(p.activation))});
        fused.args[Fused::activation] = static_cast<int32_t>(g.values.size() - 1);
        fused.args[Fused::scale] = p.scale >= 0 ? p.scale : append_number(g, std::nullopt);
        fused.args[Fused::residual] = p.residual >= 0 ? p.residual : append_number(g, std::nullopt);
        g.values.emplace_back(Bool{p.channels_first});
        fused.args[Fused::channels_first] = static_cast<int32_t>(g.values.size() - 1);
        fused.args[Fused::out] = p.out;
        edit.replace(p.calls, std::move(fused));
    }
    return edit.apply(g);
}

}  // namespace wgx::graph
