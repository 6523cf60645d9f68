#include "graph/passes/fuse_dynamic_quant.h"

#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "graph/passes/graph_uses.h"
#include "graph/schema/fused_ops.h"

namespace wgx::graph {
namespace {

constexpr std::string_view kChoose = "torchao.choose_qparams_affine.default";
constexpr std::string_view kLinear = "et_vk.linear_dq8ca_q4gsw.default";

template <typename T>
const T* value_as(const Graph& g, int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= g.values.size()) return nullptr;
    return std::get_if<T>(&g.values[static_cast<size_t>(id)]);
}

// The eps of a choose_qparams_affine call computing per-row asymmetric int8 qparams of a
// float32 input (the form the fused linear implements), with its scale and zero point; nullopt
// for any other form. Args: [input, mapping_type, block_size, target_dtype, quant_min,
// quant_max, eps, scale_dtype, zero_point_dtype, keepdim, (scale, zero_point)].
struct Choose {
    int32_t input = -1, scale = -1, zero_point = -1;
    double eps = 0;
};

std::optional<Choose> per_row_int8(const Graph& g, const OpCall& op) {
    if (op.name != kChoose || op.args.size() != 11) return std::nullopt;
    const Tensor* x = tensor_at(g, op.args[0]);
    const auto* mode = value_as<String>(g, op.args[1]);
    const auto* block = value_as<IntList>(g, op.args[2]);
    const auto* outs = value_as<ValueList>(g, op.args[10]);
    if (!x || x->dtype != DType::f32 || x->dims.empty() || !mode || mode->value != "ASYMMETRIC" ||
        !block || block->items.size() != x->dims.size() || !outs || outs->items.size() != 2) {
        return std::nullopt;
    }
    for (size_t i = 0; i + 1 < x->dims.size(); ++i) {
        if (block->items[i] != 1) return std::nullopt;
    }
    if (block->items.back() != x->dims.back()) return std::nullopt;
    const auto qmin = number_at(g, op.args[4]), qmax = number_at(g, op.args[5]);
    if (!qmin || !qmax || *qmin != -128 || *qmax != 127) return std::nullopt;
    std::optional<double> eps = double(std::numeric_limits<float>::min());
    if (!is_null(g, op.args[6])) eps = number_at(g, op.args[6]);
    if (!eps || !(*eps >= 0)) return std::nullopt;
    const Tensor* scale = tensor_at(g, outs->items[0]);
    const Tensor* zp = tensor_at(g, outs->items[1]);
    if (!scale || scale->dtype != DType::f32 || !zp ||
        (zp->dtype != DType::i8 && zp->dtype != DType::i32)) {
        return std::nullopt;
    }
    return Choose{op.args[0], outs->items[0], outs->items[1], *eps};
}

}  // namespace

size_t fuse_dynamic_quant(Graph& g) {
    const Uses uses = count_uses(g);
    // The linear layers reading each value as their input_scale.
    std::map<int32_t, std::vector<size_t>> by_scale;
    for (size_t i = 0; i < g.chain.size(); ++i) {
        const OpCall& op = g.chain[i];
        if (op.name == kLinear && op.args.size() >= 8) by_scale[op.args[1]].push_back(i);
    }
    std::vector<bool> dropped(g.chain.size(), false);
    size_t folded = 0;
    for (size_t i = 0; i < g.chain.size(); ++i) {
        const auto c = per_row_int8(g, g.chain[i]);
        if (!c) continue;
        const auto it = by_scale.find(c->scale);
        if (it == by_scale.end()) continue;
        const std::vector<size_t>& linears = it->second;
        // Only these layers may read the qparams, each with this input, scale and zero point,
        // after this call; nothing may write the input in between.
        bool only_these = uses.write_count(c->scale) == 1 && uses.write_count(c->zero_point) == 1 &&
                          uses.write_count(c->input) <= 1 && !uses.graph_outputs.count(c->scale) &&
                          !uses.graph_outputs.count(c->zero_point) &&
                          uses.read_count(c->scale) == static_cast<int>(linears.size()) &&
                          uses.read_count(c->zero_point) == static_cast<int>(linears.size());
        for (size_t l : linears) {
            const OpCall& op = g.chain[l];
            only_these =
                only_these && l > i && op.args[0] == c->input && op.args[2] == c->zero_point;
        }
        if (!only_these) continue;
        using S = schema::LinearDq8caOwnQparams;
        const int32_t eps = append_number(g, c->eps);
        const int32_t none = append_number(g, std::nullopt);
        for (size_t l : linears) {
            // [x, scale, zp, weights, sums, weight_scales, group_size, (bias,) out]
            const std::vector<int32_t> a = g.chain[l].args;
            std::vector<int32_t> args(S::count, -1);
            args[S::input] = a[0];
            args[S::eps] = eps;
            args[S::weights] = a[3];
            // Not read by the kernel: left out, so the constant is never uploaded (the sums of
            // a 1B model's weights are 154 MB).
            args[S::weight_sums] = none;
            args[S::weight_scales] = a[5];
            args[S::group_size] = a[6];
            args[S::bias] = a.size() == 9 ? a[7] : none;
            args[S::out] = a.back();
            g.chain[l].name = std::string(S::name);
            g.chain[l].args = std::move(args);
        }
        dropped[i] = true;
        ++folded;
    }
    if (folded == 0) return 0;
    std::vector<OpCall> kept;
    for (size_t i = 0; i < g.chain.size(); ++i) {
        if (!dropped[i]) kept.push_back(std::move(g.chain[i]));
    }
    g.chain = std::move(kept);
    return folded;
}

}  // namespace wgx::graph
