#include "graph/passes/fuse_rms_norm.h"

#include <optional>
#include <string_view>
#include <vector>

#include "graph/passes/graph_uses.h"

namespace wgx::graph {
namespace {

class Matcher {
  public:
    Matcher(const Graph& g, const Uses& uses, const ChainEdit& edit)
        : g_(g), uses_(uses), edit_(edit) {}

    // The call that alone reads `v`, when it is named `name` and not yet rewritten.
    std::optional<size_t> sole_reader(int32_t v, std::string_view name) const {
        if (!uses_.private_to_one_reader(v)) return std::nullopt;
        const size_t i = uses_.reader.at(v);
        if (edit_.taken(i) || g_.chain[i].name != name) return std::nullopt;
        return i;
    }

    // For mul(a, b) -> out reading `v`: the other operand.
    static std::optional<int32_t> other(const OpCall& mul, int32_t v) {
        if (mul.args.size() != 3 || (mul.args[0] == v) == (mul.args[1] == v)) return std::nullopt;
        return mul.args[0] == v ? mul.args[1] : mul.args[0];
    }

    // A float tensor of `dtype` with exactly these dims.
    bool tensor_is(int32_t id, DType dtype, const std::vector<int64_t>& dims) const {
        const Tensor* t = tensor_at(g_, id);
        return t && t->dtype == dtype && t->dims == dims;
    }

    // The calls of a norm starting at the square `sq`, with x, weight, eps and the output.
    struct Found {
        std::vector<size_t> calls;
        int32_t x = -1, weight = -1, out = -1;
        double eps = 0;
    };

    std::optional<Found> norm(size_t sq) const {
        const OpCall& op = g_.chain[sq];
        if (op.name != "aten.mul.Tensor" || op.args.size() != 3 || op.args[0] != op.args[1]) {
            return std::nullopt;
        }
        const int32_t x = op.args[0];
        const Tensor* xt = tensor_at(g_, x);
        if (!xt || xt->dims.empty() || (xt->dtype != DType::f32 && xt->dtype != DType::f16) ||
            uses_.write_count(x) > 1 || !tensor_is(op.args[2], xt->dtype, xt->dims)) {
            return std::nullopt;
        }
        std::vector<int64_t> reduced = xt->dims;
        reduced.back() = 1;
        Found f;
        f.x = x;
        f.calls.push_back(sq);
        // mean over the last dim, kept: mean.dim(x2, [-1] or [rank - 1], true, dtype none).
        const auto mean = sole_reader(op.args[2], "aten.mean.dim");
        if (!mean) return std::nullopt;
        const OpCall& m = g_.chain[*mean];
        if (m.args.size() != 5 || !last_dim_only(m.args[1], xt->dims.size()) ||
            !is_true(m.args[2]) || !is_null(g_, m.args[3]) ||
            !tensor_is(m.args[4], xt->dtype, reduced)) {
            return std::nullopt;
        }
        f.calls.push_back(*mean);
        // + eps (add.Tensor with no alpha or alpha 1).
        const auto add = sole_reader(m.args[4], "aten.add.Tensor");
        if (!add) return std::nullopt;
        const OpCall& a = g_.chain[*add];
        if (a.args.size() < 3 || a.args.size() > 4 || a.args[0] != m.args[4]) return std::nullopt;
        if (a.args.size() == 4 && !is_null(g_, a.args[2])) {
            const auto alpha = number_at(g_, a.args[2]);
            if (!alpha || *alpha != 1.0) return std::nullopt;
        }
        // A constant tensor in plain programs, a number in some delegates.
        auto eps = constant_scalar(g_, uses_, a.args[1]);
        if (!eps) eps = number_at(g_, a.args[1]);
        if (!eps || *eps < 0 || !tensor_is(a.args.back(), xt->dtype, reduced)) return std::nullopt;
        f.eps = *eps;
        f.calls.push_back(*add);
        // rsqrt, then x times it.
        const auto rsqrt = sole_reader(a.args.back(), "aten.rsqrt.default");
        if (!rsqrt || g_.chain[*rsqrt].args.size() != 2) return std::nullopt;
        const int32_t r = g_.chain[*rsqrt].args[1];
        if (!tensor_is(r, xt->dtype, reduced)) return std::nullopt;
        f.calls.push_back(*rsqrt);
        const auto scaled = sole_reader(r, "aten.mul.Tensor");
        if (!scaled || other(g_.chain[*scaled], r) != x) return std::nullopt;
        const int32_t n = g_.chain[*scaled].args[2];
        if (!tensor_is(n, xt->dtype, xt->dims)) return std::nullopt;
        f.calls.push_back(*scaled);
        // times the weight [D].
        const auto weighted = sole_reader(n, "aten.mul.Tensor");
        if (!weighted) return std::nullopt;
        const auto w = other(g_.chain[*weighted], n);
        if (!w || !tensor_is(*w, xt->dtype, {xt->dims.back()}) || uses_.write_count(*w) > 0 ||
            !tensor_is(g_.chain[*weighted].args[2], xt->dtype, xt->dims)) {
            return std::nullopt;
        }
        f.calls.push_back(*weighted);
        f.weight = *w;
        f.out = g_.chain[*weighted].args[2];
        return f;
    }

  private:
    bool last_dim_only(int32_t id, size_t rank) const {
        const auto* list = std::get_if<IntList>(&g_.values.at(static_cast<size_t>(id)));
        return list && list->items.size() == 1 &&
               (list->items[0] == -1 || list->items[0] == static_cast<int64_t>(rank) - 1);
    }
    bool is_true(int32_t id) const {
        const auto* b = std::get_if<Bool>(&g_.values.at(static_cast<size_t>(id)));
        return b && b->value;
    }

    const Graph& g_;
    const Uses& uses_;
    const ChainEdit& edit_;
};

}  // namespace

size_t fuse_rms_norm(Graph& g) {
    const Uses uses = count_uses(g);
    ChainEdit edit(g);
    const Matcher m(g, uses, edit);
    for (size_t i = 0; i < g.chain.size(); ++i) {
        if (edit.taken(i)) continue;
        if (auto f = m.norm(i)) {
            const int32_t eps = append_number(g, f->eps);
            edit.replace(f->calls, OpCall{"et_vk.rms_norm.default",
                                          {f->x, f->weight, eps, f->out},
                                          g.chain[i].debug_handle});
        }
    }
    const size_t n = edit.apply(g);
    if (n > 0) drop_unread_copies(g);
    return n;
}

}  // namespace wgx::graph
