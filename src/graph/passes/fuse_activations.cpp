#include "graph/passes/fuse_activations.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "graph/passes/graph_uses.h"
#include "graph/schema/fused_ops.h"

namespace wgx::graph {
namespace {

// A decomposed hardsigmoid (or hardswish) found in the chain: its calls, input and output.
struct Found {
    std::vector<size_t> calls;
    int32_t x = -1, out = -1;
    bool hardswish = false;  // x * clamp(x + 3, 0, 6) / 6: multiplied before the division
};

class Matcher {
  public:
    Matcher(const Graph& g, const Uses& uses, const ChainEdit& edit)
        : g_(g), uses_(uses), edit_(edit) {}

    // The call that alone reads `v` (written once, not a graph output), if it is named `name`
    // and not yet rewritten.
    std::optional<size_t> sole_reader(int32_t v, std::string_view name) const {
        if (!uses_.private_to_one_reader(v)) return std::nullopt;
        const size_t i = uses_.reader.at(v);
        if (edit_.taken(i) || g_.chain[i].name != name) return std::nullopt;
        return i;
    }

    // For a binary call reading `v`: its other operand (v op other or other op v), when the
    // output keeps v's shape and dtype. Add's alpha must be absent or 1.
    std::optional<int32_t> other_operand(const OpCall& op, int32_t v) const {
        const auto& a = op.args;
        const bool add = op.name == "aten.add.Tensor";
        if (a.size() != 3 && !(add && a.size() == 4)) return std::nullopt;
        if (add && a.size() == 4 && !is_null(g_, a[2])) {
            auto alpha = number_at(g_, a[2]);
            if (!alpha || *alpha != 1.0) return std::nullopt;
        }
        if ((a[0] == v) == (a[1] == v)) return std::nullopt;
        if (!same_as(a.back(), v)) return std::nullopt;
        return a[0] == v ? a[1] : a[0];
    }

    // mul(y, g) or mul(g, y) multiplying the activation `g` into another float32 tensor y
    // whose shape the product keeps (the gate broadcasts into y), y written at most once.
    bool gate_mul(const OpCall& mul, int32_t g) const {
        if (mul.args.size() != 3 || (mul.args[0] == g) == (mul.args[1] == g)) return false;
        const int32_t y = mul.args[0] == g ? mul.args[1] : mul.args[0];
        return same_as(mul.args.back(), y) && uses_.write_count(y) <= 1;
    }

    // A float32 tensor of the same dims as `ref`.
    bool same_as(int32_t id, int32_t ref) const {
        const Tensor* t = tensor_at(g_, id);
        const Tensor* r = tensor_at(g_, ref);
        return t && r && t->dtype == DType::f32 && r->dtype == DType::f32 && t->dims == r->dims;
    }

    bool is_scalar(int32_t id, double want) const {
        auto v = constant_scalar(g_, uses_, id);
        return v && std::abs(*v - want) <= 1e-6 * std::abs(want);
    }

    // A hardsigmoid whose first call (x + 3) is `add`.
    std::optional<Found> hardsigmoid(size_t add) const {
        const OpCall& op = g_.chain[add];
        if (op.name != "aten.add.Tensor" || op.args.size() < 3) return std::nullopt;
        int32_t x = -1;
        if (is_scalar(op.args[1], 3.0)) {
            x = op.args[0];
        } else if (is_scalar(op.args[0], 3.0)) {
            x = op.args[1];
        }
        if (x < 0 || !tensor_at(g_, x) || uses_.write_count(x) > 1 || !other_operand(op, x)) {
            return std::nullopt;
        }
        std::vector<size_t> calls{add};
        int32_t v = op.args.back();
        // Clamps until both bounds are set: [0, 6] in one or two calls.
        std::optional<double> lo, hi;
        while (!(lo && hi)) {
            if (!uses_.private_to_one_reader(v)) return std::nullopt;
            const size_t i = uses_.reader.at(v);
            if (edit_.taken(i)) return std::nullopt;
            auto b = clamp_bounds(g_, g_.chain[i]);
            if (!b || g_.chain[i].args[0] != v || !same_as(g_.chain[i].args.back(), v)) {
                return std::nullopt;
            }
            if (b->lo) lo = std::max(lo.value_or(*b->lo), *b->lo);
            if (b->hi) hi = std::min(hi.value_or(*b->hi), *b->hi);
            calls.push_back(i);
            v = g_.chain[i].args.back();
            if (calls.size() > 3) return std::nullopt;
        }
        if (*lo != 0.0 || *hi != 6.0) return std::nullopt;
        // Then / 6 (a hardsigmoid), or x * that / 6 (a hardswish as PyTorch decomposes it).
        if (!uses_.private_to_one_reader(v)) return std::nullopt;
        const size_t i = uses_.reader.at(v);
        if (edit_.taken(i)) return std::nullopt;
        if (auto h = divided_by_six(i, v)) {
            calls.push_back(i);
            return Found{calls, x, *h, false};
        }
        if (g_.chain[i].name != "aten.mul.Tensor" || other_operand(g_.chain[i], v) != x) {
            return std::nullopt;
        }
        const int32_t w = g_.chain[i].args.back();
        calls.push_back(i);
        if (!uses_.private_to_one_reader(w)) return std::nullopt;
        const size_t k = uses_.reader.at(w);
        if (edit_.taken(k)) return std::nullopt;
        auto out = divided_by_six(k, w);
        if (!out) return std::nullopt;
        calls.push_back(k);
        return Found{calls, x, *out, true};
    }

    // The output of call i when it is v / 6 or v * (1 / 6) of v's shape.
    std::optional<int32_t> divided_by_six(size_t i, int32_t v) const {
        const OpCall& op = g_.chain[i];
        if (op.args.size() != 3 || op.args[0] != v || !same_as(op.args.back(), v))
            return std::nullopt;
        const bool div = op.name == "aten.div.Tensor" && is_scalar(op.args[1], 6.0);
        const bool mul = op.name == "aten.mul.Tensor" && is_scalar(op.args[1], 1.0 / 6.0);
        if (!div && !mul) return std::nullopt;
        return op.args.back();
    }

  private:
    const Graph& g_;
    const Uses& uses_;
    const ChainEdit& edit_;
};

// self * act(gate): wgx.mul_sigmoid or wgx.mul_hardsigmoid (one schema).
template <typename Gated>
OpCall gated(int32_t self, int32_t gate, int32_t out, uint32_t debug_handle) {
    OpCall call{std::string(Gated::name), std::vector<int32_t>(Gated::count, -1), debug_handle};
    call.args[Gated::self] = self;
    call.args[Gated::gate] = gate;
    call.args[Gated::out] = out;
    return call;
}

OpCall unary(std::string name, int32_t x, int32_t out, uint32_t debug_handle) {
    return OpCall{std::move(name), {x, out}, debug_handle};
}

}  // namespace

size_t fuse_activations(Graph& g) {
    const Uses uses = count_uses(g);
    ChainEdit edit(g);
    Matcher m(g, uses, edit);
    for (size_t i = 0; i < g.chain.size(); ++i) {
        if (edit.taken(i)) continue;
        const OpCall& op = g.chain[i];
        // silu: sigmoid(x), then x * that; a gate: y * sigmoid(x) for another y.
        if (op.name == "aten.sigmoid.default" && op.args.size() == 2 &&
            m.same_as(op.args[1], op.args[0]) && uses.write_count(op.args[0]) <= 1) {
            const int32_t x = op.args[0], s = op.args[1];
            if (auto j = m.sole_reader(s, "aten.mul.Tensor")) {
                const OpCall& mul = g.chain[*j];
                const int32_t y = mul.args[0] == s ? mul.args[1] : mul.args[0];
                if (y == x && m.other_operand(mul, s) == x) {
                    edit.replace({i, *j},
                                 unary("aten.silu.default", x, mul.args.back(), op.debug_handle));
                } else if (m.gate_mul(mul, s)) {
                    edit.replace({i, *j},
                                 gated<schema::MulSigmoid>(y, x, mul.args.back(), op.debug_handle));
                }
            }
            continue;
        }
        // hardsigmoid, and hardswish when x times it follows.
        if (auto hs = m.hardsigmoid(i)) {
            std::string name =
                hs->hardswish ? "aten.hardswish.default" : "aten.hardsigmoid.default";
            int32_t out = hs->out;
            auto j = hs->hardswish ? std::nullopt : m.sole_reader(hs->out, "aten.mul.Tensor");
            if (j && m.other_operand(g.chain[*j], hs->out) == hs->x) {
                hs->calls.push_back(*j);
                name = "aten.hardswish.default";
                out = g.chain[*j].args.back();
            } else if (j && m.gate_mul(g.chain[*j], hs->out)) {
                // A gate: y * hardsigmoid(x) for another y.
                const OpCall& mul = g.chain[*j];
                const int32_t y = mul.args[0] == hs->out ? mul.args[1] : mul.args[0];
                hs->calls.push_back(*j);
                edit.replace(hs->calls, gated<schema::MulHardsigmoid>(y, hs->x, mul.args.back(),
                                                                      op.debug_handle));
                continue;
            }
            edit.replace(hs->calls, unary(name, hs->x, out, op.debug_handle));
        }
    }
    const size_t n = edit.apply(g);
    if (n > 0) drop_unread_copies(g);
    return n;
}

}  // namespace wgx::graph
