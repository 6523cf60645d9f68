#include "graph/passes/fold_prepack.h"

#include <algorithm>
#include <map>
#include <set>

namespace wgx::graph {

size_t fold_prepack(Graph& graph) {
    auto tensor_at = [&](int32_t id) -> const Tensor* {
        if (id < 0 || static_cast<size_t>(id) >= graph.values.size()) return nullptr;
        return std::get_if<Tensor>(&graph.values[static_cast<size_t>(id)]);
    };
    // How often each value is written (as an op's last argument or inside its output list).
    std::map<int32_t, int> writes;
    for (const OpCall& op : graph.chain) {
        if (op.args.empty()) continue;
        int32_t out = op.args.back();
        if (const auto* list = std::get_if<ValueList>(&graph.values[static_cast<size_t>(out)])) {
            for (int32_t item : list->items) writes[item]++;
        } else {
            writes[out]++;
        }
    }
    const std::set<int32_t> outputs(graph.output_ids.begin(), graph.output_ids.end());

    std::map<int32_t, int32_t> replace;  // prepacked tensor -> its constant
    std::vector<OpCall> kept;
    for (OpCall& op : graph.chain) {
        if (op.name == "et_vk.prepack.default" && op.args.size() == 2) {
            const Tensor* from = tensor_at(op.args[0]);
            const Tensor* to = tensor_at(op.args[1]);
            bool foldable = from && to && from->constant_id >= 0 && from->dtype == to->dtype &&
                            from->dims == to->dims && writes[op.args[1]] == 1 &&
                            !outputs.count(op.args[1]);
            if (foldable) {
                replace[op.args[1]] = op.args[0];
                continue;
            }
        }
        kept.push_back(std::move(op));
    }
    if (replace.empty()) {
        graph.chain = std::move(kept);
        return 0;
    }
    auto redirect = [&](int32_t& id) {
        if (auto it = replace.find(id); it != replace.end()) id = it->second;
    };
    for (OpCall& op : kept) {
        for (int32_t& arg : op.args) redirect(arg);
    }
    for (Value& v : graph.values) {
        if (auto* list = std::get_if<ValueList>(&v)) {
            for (int32_t& item : list->items) redirect(item);
        }
    }
    graph.chain = std::move(kept);
    return replace.size();
}

}  // namespace wgx::graph
