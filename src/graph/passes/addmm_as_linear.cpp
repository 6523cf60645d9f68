#include "graph/passes/addmm_as_linear.h"

#include <string_view>
#include <vector>

#include "graph/passes/graph_uses.h"

namespace wgx::graph {
namespace {

constexpr std::string_view kAddmm = "aten.addmm.default";  // self, mat1, mat2, beta, alpha, out
constexpr std::string_view kMm = "aten.mm.default";        // self, mat2, out
constexpr std::string_view kPermute = "aten.permute_copy.default";

// W when `id` is permute_copy(W, [1, 0]) of a 2-D float32 W, written once and read only by
// `reader`; -1 otherwise.
int32_t transposed_from(const Graph& g, const Uses& uses, int32_t id, size_t reader) {
    auto w = uses.writer.find(id);
    if (w == uses.writer.end() || uses.write_count(id) != 1 || !uses.private_to_one_reader(id) ||
        uses.reader.at(id) != reader) {
        return -1;
    }
    const OpCall& p = g.chain[w->second];
    if (p.name != kPermute || p.args.size() != 3) return -1;
    const auto* perm = std::get_if<IntList>(&g.values[static_cast<size_t>(p.args[1])]);
    const Tensor* wt = tensor_at(g, p.args[0]);
    if (!perm || !wt || wt->dims.size() != 2 || wt->dtype != DType::f32 ||
        uses.write_count(p.args[0]) > 1) {
        return -1;
    }
    const bool swap = (perm->items == std::vector<int64_t>{1, 0}) ||
                      (perm->items == std::vector<int64_t>{-1, -2}) ||
                      (perm->items == std::vector<int64_t>{1, -2}) ||
                      (perm->items == std::vector<int64_t>{-1, 0});
    return swap ? p.args[0] : -1;
}

bool is_one(const Graph& g, int32_t id) {
    if (is_null(g, id)) return true;
    auto n = number_at(g, id);
    return n && *n == 1.0;
}

}  // namespace

size_t addmm_as_linear(Graph& g) {
    const Uses uses = count_uses(g);
    size_t rewritten = 0;
    for (size_t i = 0; i < g.chain.size(); ++i) {
        OpCall& call = g.chain[i];
        int32_t bias = -1, x = -1, mat2 = -1, out = -1;
        if (call.name == kAddmm && call.args.size() == 6) {
            if (!is_one(g, call.args[3]) || !is_one(g, call.args[4])) continue;
            bias = call.args[0];
            x = call.args[1];
            mat2 = call.args[2];
            out = call.args[5];
        } else if (call.name == kMm && call.args.size() == 3) {
            x = call.args[0];
            mat2 = call.args[1];
            out = call.args[2];
        } else {
            continue;
        }
        const int32_t w = transposed_from(g, uses, mat2, i);
        if (w < 0) continue;
        const Tensor* bt = bias >= 0 ? tensor_at(g, bias) : nullptr;
        const Tensor* wt = tensor_at(g, w);
        if (bias >= 0 &&
            (!bt || bt->dims != std::vector<int64_t>{wt->dims[0]} || bt->dtype != DType::f32)) {
            continue;
        }
        // W is now read where the product is, later than the copy read it: a planned W (not a
        // constant) gets a pool of its own again (assign_memory_pools), as ChainEdit does.
        if (auto* wv = std::get_if<Tensor>(&g.values[static_cast<size_t>(w)]);
            wv->constant_id < 0) {
            wv->mem_obj_id = -1;
        }
        OpCall linear;
        linear.name = "aten.linear.default";
        linear.debug_handle = call.debug_handle;
        linear.args = {x, w, bias >= 0 ? bias : append_number(g, std::nullopt), out};
        call = std::move(linear);
        ++rewritten;
    }
    if (rewritten) {
        // The transposed copies nothing reads now.
        drop_unread_calls(g, [](const OpCall& c) { return c.name == kPermute; });
    }
    return rewritten;
}

}  // namespace wgx::graph
