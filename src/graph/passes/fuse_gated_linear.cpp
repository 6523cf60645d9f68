#include "graph/passes/fuse_gated_linear.h"

#include <optional>
#include <string_view>
#include <vector>

#include "graph/passes/graph_uses.h"
#include "graph/schema/fused_ops.h"

namespace wgx::graph {
namespace {

constexpr std::string_view kFloatLinear = "et_vk.linear_q4gsw.default";

// One of the two 4-bit layers in the forms the fused op computes.
struct Layer {
    int32_t input = -1, weights = -1, scales = -1, group = -1;
    std::optional<double> eps;  // 8-bit activations (wgx.linear_dq8ca_q4gsw)
};

std::optional<Layer> layer(const Graph& g, const OpCall& op) {
    Layer l;
    if (op.name == kFloatLinear) {
        // [x, weights, scales, group_size, (bias,) out]
        if (op.args.size() != 5 && !(op.args.size() == 6 && is_null(g, op.args[4]))) {
            return std::nullopt;
        }
        l = {op.args[0], op.args[1], op.args[2], op.args[3], std::nullopt};
    } else if (op.name == schema::LinearDq8caOwnQparams::name) {
        using S = schema::LinearDq8caOwnQparams;
        if (op.args.size() != S::count || !is_null(g, op.args[S::bias])) return std::nullopt;
        l = {op.args[S::input], op.args[S::weights], op.args[S::weight_scales],
             op.args[S::group_size], number_at(g, op.args[S::eps])};
        if (!l.eps) return std::nullopt;
    } else {
        return std::nullopt;
    }
    return l;
}

// The call writing `v`, seen through a view_copy that keeps its dims (dynamic-bound reshapes
// stay calls): the writer's index and, when there is one, the view's. The view must be the only
// reader of what it reads.
struct Source {
    size_t writer = 0;
    std::optional<size_t> view;
};

std::optional<Source> source(const Graph& g, const Uses& uses, int32_t v) {
    if (uses.write_count(v) != 1) return std::nullopt;
    const size_t w = uses.writer.at(v);
    const OpCall& op = g.chain[w];
    if (op.name != "aten.view_copy.default" || op.args.size() != 3) return Source{w, std::nullopt};
    const int32_t in = op.args[0];
    if (!same_tensor_type(g, in, v) || !uses.private_to_one_reader(in) ||
        uses.write_count(in) != 1) {
        return std::nullopt;
    }
    return Source{uses.writer.at(in), w};
}

}  // namespace

size_t fuse_gated_linear(Graph& g) {
    const Uses uses = count_uses(g);
    ChainEdit edit(g);
    using M = schema::SiluMul;
    using S = schema::GatedLinearQ4gsw;
    for (size_t i = 0; i < g.chain.size(); ++i) {
        const OpCall& gate = g.chain[i];
        if (gate.name != M::name || gate.args.size() != M::count) continue;
        const int32_t a = gate.args[M::self], b = gate.args[M::other];
        if (a == b || !uses.private_to_one_reader(a) || !uses.private_to_one_reader(b) ||
            !same_tensor_type(g, a, b) || !same_tensor_type(g, a, gate.args[M::out])) {
            continue;
        }
        const auto sa = source(g, uses, a), sb = source(g, uses, b);
        if (!sa || !sb) continue;
        const size_t ia = sa->writer, ib = sb->writer;
        if (edit.taken(ia) || edit.taken(ib) || (sa->view && edit.taken(*sa->view)) ||
            (sb->view && edit.taken(*sb->view)) || g.chain[ia].name != g.chain[ib].name) {
            continue;
        }
        const auto la = layer(g, g.chain[ia]), lb = layer(g, g.chain[ib]);
        if (!la || !lb || la->input != lb->input || la->eps != lb->eps ||
            uses.write_count(la->input) > 1 || !same_tensor_type(g, la->weights, lb->weights) ||
            !same_tensor_type(g, la->scales, lb->scales) ||
            number_at(g, la->group) != number_at(g, lb->group)) {
            continue;
        }
        OpCall fused{std::string(S::name), std::vector<int32_t>(S::count, -1), gate.debug_handle};
        fused.args[S::input] = la->input;
        fused.args[S::eps] = append_number(g, la->eps);
        fused.args[S::gate_weights] = la->weights;
        fused.args[S::gate_scales] = la->scales;
        fused.args[S::up_weights] = lb->weights;
        fused.args[S::up_scales] = lb->scales;
        fused.args[S::group_size] = la->group;
        fused.args[S::out] = gate.args[M::out];
        std::vector<size_t> calls = {ia, ib};
        for (const auto& view : {sa->view, sb->view}) {
            if (view) calls.push_back(*view);
        }
        calls.push_back(i);
        edit.replace(calls, std::move(fused));
    }
    return edit.apply(g);
}

}  // namespace wgx::graph
