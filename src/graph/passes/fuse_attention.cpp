#include "graph/passes/fuse_attention.h"

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "graph/passes/alias_reshapes.h"
#include "graph/passes/graph_uses.h"
#include "graph/passes/strided_view.h"
#include "graph/schema/fused_ops.h"

namespace wgx::graph {
namespace {

constexpr std::string_view kBmm = "aten.bmm.default";
constexpr std::string_view kSoftmax = "aten._softmax.default";
using Fused = schema::Attention;
// ops/matmul/attention.cpp's limits.
constexpr int64_t kMaxKeys = 256;
constexpr int64_t kMaxHeadSize = 128;

// The graph around one candidate: who writes and reads each value.
struct Match {
    const Graph& g;
    const Uses& uses;
    const std::map<int32_t, std::vector<size_t>>& readers;
    std::set<size_t> calls;  // the calls the fused call replaces

    // The call writing `id` when it is its only writer, has the given name and `args`
    // arguments (its output included; a malformed file may give a call fewer).
    std::optional<size_t> writer(int32_t id, std::string_view name, size_t args) const {
        auto w = uses.writer.find(id);
        if (w == uses.writer.end() || uses.write_count(id) != 1) return std::nullopt;
        const OpCall& c = g.chain[w->second];
        if (c.name != name || c.args.size() != args) return std::nullopt;
        return w->second;
    }
    // `id` followed back through reshapes and shape-keeping copies (added to `calls`).
    int32_t through_reshapes(int32_t id) {
        for (;;) {
            auto w = uses.writer.find(id);
            if (w == uses.writer.end() || uses.write_count(id) != 1) return id;
            const OpCall& c = g.chain[w->second];
            if (c.args.size() < 2 || !is_contiguous_reshape(g, c)) return id;
            calls.insert(w->second);
            id = c.args[0];
        }
    }
    std::optional<double> number(int32_t id) const { return number_at(g, id); }
    // A Bool value (or an Int / Double used as one).
    std::optional<bool> flag(int32_t id) const {
        if (id >= 0 && size_t(id) < g.values.size()) {
            if (const auto* b = std::get_if<Bool>(&g.values[size_t(id)])) return b->value;
        }
        if (auto n = number(id)) return *n != 0.0;
        return std::nullopt;
    }
    // A dim argument equal to the last dim of a rank-`rank` tensor.
    bool last_dim(int32_t id, size_t rank) const {
        auto d = number(id);
        return d && (int64_t(*d) == -1 || int64_t(*d) == int64_t(rank) - 1);
    }
    // Every value the matched calls write (but `out`) is read only by matched calls.
    bool private_except(int32_t out) const {
        for (size_t c : calls) {
            bool ok = true;
            for_each_arg_value(g, g.chain[c].args.back(), [&](int32_t id) {
                if (id == out) return;
                if (uses.graph_outputs.count(id)) ok = false;
                auto r = readers.find(id);
                if (r == readers.end()) return;
                for (size_t reader : r->second) {
                    if (!calls.count(reader)) ok = false;
                }
            });
            if (!ok) return false;
        }
        return true;
    }
};

// where(logical_not(any(logical_not(eq(S, -inf)), -1, keepdim)), full_like(P, 0), P): the guard
// PyTorch's exported attention puts around softmax P of scores S, with reshapes allowed
// between any two of its calls (ExecuTorch 1.2 reads the where's operands through views,
// 1.5 directly). Adds its calls to `m` and returns P, or nullopt when `id` is not written by
// such a where.
std::optional<int32_t> guarded_softmax(Match& m, int32_t id, int32_t scores) {
    auto where = m.writer(id, "aten.where.self", 4);
    if (!where) return std::nullopt;
    const OpCall& w = m.g.chain[*where];
    const int32_t p = w.args[2];
    const int32_t zeros = m.through_reshapes(w.args[1]);
    // full_like(self, fill, dtype, layout, device, pin_memory, memory_format) with fill 0, or
    // zeros_like(self, dtype, layout, device, pin_memory, memory_format).
    auto full = m.writer(zeros, "aten.full_like.default", 8);
    if (full && m.number(m.g.chain[*full].args[1]).value_or(1.0) != 0.0) return std::nullopt;
    if (!full) full = m.writer(zeros, "aten.zeros_like.default", 7);
    if (!full) return std::nullopt;
    auto not2 = m.writer(m.through_reshapes(w.args[0]), "aten.logical_not.default", 2);
    if (!not2) return std::nullopt;
    auto any = m.writer(m.through_reshapes(m.g.chain[*not2].args[0]), "aten.any.dim", 4);
    if (!any) return std::nullopt;
    const OpCall& a = m.g.chain[*any];
    const Tensor* at = tensor_at(m.g, a.args[0]);
    if (!at || !m.last_dim(a.args[1], at->dims.size()) || !m.flag(a.args[2]).value_or(false)) {
        return std::nullopt;
    }
    auto not1 = m.writer(m.through_reshapes(a.args[0]), "aten.logical_not.default", 2);
    if (!not1) return std::nullopt;
    auto eq = m.writer(m.through_reshapes(m.g.chain[*not1].args[0]), "aten.eq.Scalar", 3);
    if (!eq) return std::nullopt;
    const OpCall& e = m.g.chain[*eq];
    auto inf = m.number(e.args[1]);
    if (!inf || !(std::isinf(*inf) && *inf < 0)) return std::nullopt;
    if (m.through_reshapes(e.args[0]) != scores) return std::nullopt;
    m.calls.insert({*where, *full, *not2, *any, *not1, *eq});
    return p;
}

int32_t append(Graph& g, Value v) {
    g.values.push_back(std::move(v));
    return int32_t(g.values.size() - 1);
}

IntList view_list(const StridedView& v) {
    return IntList{{v.offset, v.strides[0], v.strides[1], v.strides[2]}};
}

}  // namespace

size_t fuse_attention(Graph& g) {
    const Uses uses = count_uses(g);
    std::map<int32_t, std::vector<size_t>> readers;
    for (size_t i = 0; i < g.chain.size(); ++i) {
        const auto& args = g.chain[i].args;
        for (size_t a = 0; a + 1 < args.size(); ++a) {
            for_each_arg_value(g, args[a], [&](int32_t id) { readers[id].push_back(i); });
        }
    }
    ChainEdit edit(g);
    std::vector<std::pair<std::vector<size_t>, OpCall>> found;

    for (size_t j = 0; j < g.chain.size(); ++j) {
        const OpCall& bmm2 = g.chain[j];
        if (bmm2.name != kBmm || bmm2.args.size() != 3) continue;
        Match m{g, uses, readers, {j}};
        // The weights: a softmax over the last dim, guarded or not, of bmm1's scores.
        const int32_t p_read = m.through_reshapes(bmm2.args[0]);
        int32_t p = p_read;
        bool zero_masked_rows = false;
        std::optional<size_t> softmax = m.writer(p, kSoftmax, 4);
        int32_t scores = -1;
        if (!softmax) {
            // The guard: find the softmax through the where's third argument first.
            auto where = m.writer(p, "aten.where.self", 4);
            if (!where) continue;
            softmax = m.writer(m.through_reshapes(g.chain[*where].args[2]), kSoftmax, 4);
            if (!softmax) continue;
            scores = m.through_reshapes(g.chain[*softmax].args[0]);
            auto guarded = guarded_softmax(m, p, scores);
            if (!guarded || m.through_reshapes(*guarded) != g.chain[*softmax].args.back()) continue;
            zero_masked_rows = true;
        } else {
            scores = m.through_reshapes(g.chain[*softmax].args[0]);
        }
        const OpCall& sm = g.chain[*softmax];
        const Tensor* smt = tensor_at(g, sm.args[0]);
        if (!smt || !m.last_dim(sm.args[1], smt->dims.size()) ||
            m.flag(sm.args[2]).value_or(true)) {
            continue;
        }
        m.calls.insert(*softmax);
        auto bmm1 = m.writer(scores, kBmm, 3);
        if (!bmm1) continue;
        m.calls.insert(*bmm1);
        if (!m.private_except(bmm2.args.back())) continue;
        bool overlap = false;
        for (size_t c : m.calls) overlap = overlap || edit.taken(c);
        if (overlap) continue;

        // Operands: q [B, Lq, D], k^T [B, D, Lk], v [B, Lk, DV], out [B, Lq, DV].
        const OpCall& b1 = g.chain[*bmm1];
        const Tensor* qt = tensor_at(g, b1.args[0]);
        const Tensor* kt = tensor_at(g, b1.args[1]);
        const Tensor* vt = tensor_at(g, bmm2.args[1]);
        const Tensor* ot = tensor_at(g, bmm2.args[2]);
        if (!qt || !kt || !vt || !ot || qt->dims.size() != 3 || kt->dims.size() != 3 ||
            vt->dims.size() != 3 || ot->dims.size() != 3 || ot->dtype != DType::f32) {
            continue;
        }
        const int64_t B = qt->dims[0], Lq = qt->dims[1], D = qt->dims[2], Lk = kt->dims[2],
                      DV = vt->dims[2];
        if (kt->dims != std::vector<int64_t>{B, D, Lk} ||
            vt->dims != std::vector<int64_t>{B, Lk, DV} ||
            ot->dims != std::vector<int64_t>{B, Lq, DV} || Lk > kMaxKeys || D > kMaxHeadSize ||
            DV > kMaxHeadSize) {
            continue;
        }
        const StridedView q = trace_view(g, uses, b1.args[0], true);
        const auto k = permuted(trace_view(g, uses, b1.args[1], true), {0, 2, 1});
        const StridedView v = trace_view(g, uses, bmm2.args[1], false);
        if (!k) continue;
        // The bases stay as they are until the fused call (placed at bmm2) reads them.
        bool stable = true;
        for (int32_t base : {q.base, k->base, v.base}) {
            const Tensor* bt = tensor_at(g, base);
            stable = stable && bt && bt->dtype == DType::f32 && uses.write_count(base) <= 1;
        }
        if (!stable) continue;

        OpCall fused;
        fused.name = std::string(Fused::name);
        fused.debug_handle = bmm2.debug_handle;
        fused.args.resize(Fused::count, -1);
        fused.args[Fused::q] = q.base;
        fused.args[Fused::k] = k->base;
        fused.args[Fused::v] = v.base;
        fused.args[Fused::q_view] = append(g, view_list(q));
        fused.args[Fused::k_view] = append(g, view_list(*k));
        fused.args[Fused::v_view] = append(g, view_list(v));
        fused.args[Fused::sizes] = append(g, IntList{{B, Lq, Lk, D, DV}});
        fused.args[Fused::scale] = append(g, Double{q.scale * k->scale});
        fused.args[Fused::zero_masked_rows] = append(g, Bool{zero_masked_rows});
        fused.args[Fused::out] = bmm2.args[2];
        std::vector<size_t> group(m.calls.begin(), m.calls.end());
        edit.replace(group, std::move(fused));
    }
    const size_t replaced = edit.apply(g);
    if (replaced) {
        // The copies, selects and scalings that cut q, k and v out of their projection.
        drop_unread_calls(g, [&](const OpCall& c) {
            return is_contiguous_reshape(g, c) || c.name == "aten.permute_copy.default" ||
                   c.name == "aten.select_copy.int" || c.name == "aten.mul.Scalar";
        });
    }
    return replaced;
}

}  // namespace wgx::graph
