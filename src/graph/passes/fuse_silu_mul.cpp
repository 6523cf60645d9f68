#include "graph/passes/fuse_silu_mul.h"

#include <vector>

#include "graph/passes/graph_uses.h"
#include "graph/schema/fused_ops.h"

namespace wgx::graph {
size_t fuse_silu_mul(Graph& g) {
    const Uses uses = count_uses(g);
    ChainEdit edit(g);
    for (size_t i = 0; i < g.chain.size(); ++i) {
        const OpCall& silu = g.chain[i];
        if (silu.name != "aten.silu.default" || silu.args.size() != 2) continue;
        const int32_t a = silu.args[0], s = silu.args[1];
        const Tensor* at = tensor_at(g, a);
        if (!at || (at->dtype != DType::f32 && at->dtype != DType::f16) ||
            !same_tensor_type(g, s, a) || uses.write_count(a) > 1 ||
            !uses.private_to_one_reader(s)) {
            continue;
        }
        const size_t j = uses.reader.at(s);
        const OpCall& mul = g.chain[j];
        if (j <= i || edit.taken(j) || mul.name != "aten.mul.Tensor" || mul.args.size() != 3 ||
            (mul.args[0] == s) == (mul.args[1] == s)) {
            continue;
        }
        const int32_t b = mul.args[0] == s ? mul.args[1] : mul.args[0];
        if (!same_tensor_type(g, b, a) || !same_tensor_type(g, mul.args[2], a) ||
            uses.write_count(b) > 1) {
            continue;
        }
        using S = schema::SiluMul;
        OpCall fused{std::string(S::name), std::vector<int32_t>(S::count, -1), mul.debug_handle};
        fused.args[S::self] = a;
        fused.args[S::other] = b;
        fused.args[S::out] = mul.args[2];
        edit.replace({i, j}, std::move(fused));
    }
    return edit.apply(g);
}

}  // namespace wgx::graph
