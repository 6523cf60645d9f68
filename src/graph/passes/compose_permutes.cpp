#include "graph/passes/compose_permutes.h"

#include <optional>
#include <vector>

#include "graph/passes/graph_uses.h"
#include "graph/passes/permutation.h"

namespace wgx::graph {
namespace {

constexpr const char* kPermute = "aten.permute_copy.default";

// The permutation of call `i` when it is a well-formed permute_copy of a tensor.
std::optional<std::vector<int64_t>> permute_of(const Graph& g, size_t i) {
    const OpCall& call = g.chain[i];
    if (call.name != kPermute || call.args.size() != 3) return std::nullopt;
    const Tensor* in = tensor_at(g, call.args[0]);
    const Tensor* out = tensor_at(g, call.args[2]);
    if (!in || !out || in->dims.size() != out->dims.size()) return std::nullopt;
    return permutation_at(g, call.args[1], in->dims.size());
}

std::vector<int64_t> permuted(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
    std::vector<int64_t> out;
    out.reserve(perm.size());
    for (int64_t d : perm) out.push_back(dims[static_cast<size_t>(d)]);
    return out;
}

}  // namespace

size_t compose_permutes(Graph& g) {
    const Uses uses = count_uses(g);
    ChainEdit edit(g);
    size_t removed = 0;
    for (size_t i = 0; i < g.chain.size(); ++i) {
        if (edit.taken(i)) continue;
        auto perm = permute_of(g, i);
        if (!perm) continue;
        const int32_t x = g.chain[i].args[0];
        if (uses.write_count(x) > 1) continue;
        std::vector<size_t> calls = {i};
        size_t last = i;
        for (;;) {
            const int32_t mid = g.chain[last].args[2];
            if (!uses.private_to_one_reader(mid)) break;
            const size_t next = uses.reader.at(mid);
            if (next <= last || edit.taken(next)) break;
            const auto next_perm = permute_of(g, next);
            if (!next_perm || g.chain[next].args[0] != mid || next_perm->size() != perm->size())
                break;
            *perm = compose(*perm, *next_perm);
            calls.push_back(next);
            last = next;
        }
        if (calls.size() < 2) continue;

        // Copies: appending a value below may move the tensors.
        const Tensor in = *tensor_at(g, x);
        const int32_t out_id = g.chain[last].args[2];
        const Tensor out = *tensor_at(g, out_id);
        if (permuted(in.dims, *perm) != out.dims)
            continue;  // malformed: left for the ops to report
        OpCall fused;
        fused.debug_handle = g.chain[last].debug_handle;
        const bool reshape =
            !in.dynamic_bound && !out.dynamic_bound && keeps_element_order(in.dims, *perm);
        if (reshape) {
            fused.name = "aten.view_copy.default";
            g.values.push_back(IntList{out.dims});
        } else {
            fused.name = kPermute;
            g.values.push_back(IntList{*perm});
        }
        fused.args = {x, static_cast<int32_t>(g.values.size() - 1), out_id};
        edit.replace(calls, std::move(fused));
        removed += calls.size() - 1;
    }
    edit.apply(g);
    return removed;
}

}  // namespace wgx::graph
