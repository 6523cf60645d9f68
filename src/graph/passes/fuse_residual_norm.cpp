#include "graph/passes/fuse_residual_norm.h"

#include <vector>

#include "graph/passes/graph_uses.h"
#include "graph/schema/fused_ops.h"

namespace wgx::graph {
namespace {

// Whether `op` is add(a, b, alpha?) -> h with alpha absent or 1.
bool plain_add(const Graph& g, const OpCall& op) {
    if (op.name != "aten.add.Tensor" || (op.args.size() != 3 && op.args.size() != 4)) return false;
    if (op.args.size() == 4 && !is_null(g, op.args[2])) {
        const auto alpha = number_at(g, op.args[2]);
        if (!alpha || *alpha != 1.0) return false;
    }
    return true;
}

}  // namespace

size_t fuse_residual_norm(Graph& g) {
    const Uses uses = count_uses(g);
    ChainEdit edit(g);
    for (size_t i = 0; i + 1 < g.chain.size(); ++i) {
        const OpCall& add = g.chain[i];
        const OpCall& norm = g.chain[i + 1];
        if (edit.taken(i) || !plain_add(g, add) || norm.name != "et_vk.rms_norm.default" ||
            norm.args.size() != 4) {
            continue;
        }
        const int32_t a = add.args[0], b = add.args[1], h = add.args.back();
        const Tensor* ht = tensor_at(g, h);
        if (norm.args[0] != h || !ht || (ht->dtype != DType::f32 && ht->dtype != DType::f16) ||
            !same_tensor_type(g, a, h) || !same_tensor_type(g, b, h) ||
            !same_tensor_type(g, norm.args[3], h) || uses.write_count(h) != 1) {
            continue;
        }
        using S = schema::AddRmsNorm;
        OpCall fused{std::string(S::name), std::vector<int32_t>(S::count, -1), norm.debug_handle};
        fused.args[S::self] = a;
        fused.args[S::other] = b;
        fused.args[S::weight] = norm.args[1];
        fused.args[S::eps] = norm.args[2];
        ValueList outs;
        outs.items = {h, norm.args[3]};
        g.values.emplace_back(std::move(outs));
        fused.args[S::out] = static_cast<int32_t>(g.values.size() - 1);
        edit.replace({i, i + 1}, std::move(fused));
    }
    return edit.apply(g);
}

}  // namespace wgx::graph
