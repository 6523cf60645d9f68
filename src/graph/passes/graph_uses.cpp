#include "graph/passes/graph_uses.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

namespace wgx::graph {

int Uses::read_count(int32_t id) const {
    auto it = reads.find(id);
    return it == reads.end() ? 0 : it->second;
}

int Uses::write_count(int32_t id) const {
    auto it = writes.find(id);
    return it == writes.end() ? 0 : it->second;
}

bool Uses::private_to_one_reader(int32_t id) const {
    return read_count(id) == 1 && write_count(id) == 1 && !graph_outputs.count(id);
}

Uses count_uses(const Graph& g) {
    Uses u;
    u.graph_outputs.insert(g.output_ids.begin(), g.output_ids.end());
    for (size_t i = 0; i < g.chain.size(); ++i) {
        const auto& args = g.chain[i].args;
        if (args.empty()) continue;
        for (size_t a = 0; a + 1 < args.size(); ++a) {
            for_each_arg_value(g, args[a], [&](int32_t id) {
                u.reads[id]++;
                u.reader[id] = i;
            });
        }
        for_each_arg_value(g, args.back(), [&](int32_t id) {
            u.writes[id]++;
            u.writer[id] = i;
        });
    }
    return u;
}

const Tensor* tensor_at(const Graph& g, int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= g.values.size()) return nullptr;
    return std::get_if<Tensor>(&g.values[static_cast<size_t>(id)]);
}

std::optional<double> number_at(const Graph& g, int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= g.values.size()) return std::nullopt;
    const Value& v = g.values[static_cast<size_t>(id)];
    if (const auto* i = std::get_if<Int>(&v)) return static_cast<double>(i->value);
    if (const auto* d = std::get_if<Double>(&v)) return d->value;
    return std::nullopt;
}

bool same_tensor_type(const Graph& g, int32_t a, int32_t b) {
    const Tensor* ta = tensor_at(g, a);
    const Tensor* tb = tensor_at(g, b);
    return ta && tb && ta->dtype == tb->dtype && ta->dims == tb->dims;
}

bool is_null(const Graph& g, int32_t id) {
    return id < 0 || (static_cast<size_t>(id) < g.values.size() &&
                      std::holds_alternative<Null>(g.values[static_cast<size_t>(id)]));
}

namespace {

template <typename T>
double load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
}

// The input of the copy that writes `id` (its only writer), if it is one.
std::optional<int32_t> copied_from(const Graph& g, const Uses& uses, int32_t id) {
    auto w = uses.writer.find(id);
    if (w == uses.writer.end() || uses.write_count(id) != 1) return std::nullopt;
    const OpCall& op = g.chain[w->second];
    const std::string_view name = op.name;
    const bool copy = name == "aten.clone.default" ||
                      name == "dim_order_ops._to_dim_order_copy.default" ||
                      name == "aten._to_copy.default";
    if (!copy || op.args.empty()) return std::nullopt;
    return op.args[0];
}

}  // namespace

int64_t element_count(const std::vector<int64_t>& dims) {
    for (int64_t d : dims) {
        if (d == 0) return 0;
    }
    int64_t n = 1;
    for (int64_t d : dims) {
        if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;
    }
    return n;
}

std::optional<double> constant_scalar(const Graph& g, const Uses& uses, int32_t id) {
    // A few copies at most: exporters wrap a scalar in one or two.
    for (int hops = 0; hops < 4; ++hops) {
        const Tensor* t = tensor_at(g, id);
        if (!t) return std::nullopt;
        if (element_count(t->dims) != 1) return std::nullopt;
        if (t->constant_id >= 0) {
            if (static_cast<size_t>(t->constant_id) >= g.constants.size()) return std::nullopt;
            const auto& bytes = g.constants[static_cast<size_t>(t->constant_id)].bytes;
            const uint8_t* p = bytes.data();
            switch (t->dtype) {
                case DType::f32:
                    return bytes.size() >= 4 ? std::optional(load<float>(p)) : std::nullopt;
                case DType::f64:
                    return bytes.size() >= 8 ? std::optional(load<double>(p)) : std::nullopt;
                case DType::i32:
                    return bytes.size() >= 4 ? std::optional(load<int32_t>(p)) : std::nullopt;
                case DType::i64:
                    return bytes.size() >= 8 ? std::optional(load<int64_t>(p)) : std::nullopt;
                default: return std::nullopt;
            }
        }
        auto from = copied_from(g, uses, id);
        if (!from) return std::nullopt;
        id = *from;
    }
    return std::nullopt;
}

schema::Activation epilogue_activation(const OpCall& op) {
    if (op.args.size() != 2) return schema::Activation::none;
    if (op.name == "aten.silu.default") return schema::Activation::silu;
    if (op.name == "aten.hardswish.default") return schema::Activation::hardswish;
    return schema::Activation::none;
}

std::optional<ClampBounds> clamp_bounds(const Graph& g, const OpCall& op) {
    if (op.name == "aten.relu.default" && op.args.size() == 2) {
        return ClampBounds{0.0, std::nullopt};
    }
    if (op.name == "aten.hardtanh.default" && op.args.size() == 4) {
        auto lo = number_at(g, op.args[1]), hi = number_at(g, op.args[2]);
        if (lo && hi) return ClampBounds{lo, hi};
    }
    if (op.name == "aten.clamp.default" && op.args.size() == 4) {
        ClampBounds b;
        if (!is_null(g, op.args[1]) && !(b.lo = number_at(g, op.args[1]))) return std::nullopt;
        if (!is_null(g, op.args[2]) && !(b.hi = number_at(g, op.args[2]))) return std::nullopt;
        return b;
    }
    return std::nullopt;
}

int32_t append_number(Graph& g, std::optional<double> v) {
    if (v) {
        g.values.emplace_back(Double{*v});
    } else {
        g.values.emplace_back(Null{});
    }
    return static_cast<int32_t>(g.values.size() - 1);
}

void ChainEdit::replace(const std::vector<size_t>& calls, OpCall fused) {
    size_t last = 0;
    for (size_t i : calls) {
        taken_[i] = true;
        last = std::max(last, i);
    }
    placed_[last] = std::move(fused);
}

size_t ChainEdit::apply(Graph& g) {
    if (placed_.empty()) return 0;
    std::vector<OpCall> chain;
    chain.reserve(g.chain.size());
    std::set<int32_t> read_later;
    for (size_t i = 0; i < g.chain.size(); ++i) {
        if (auto it = placed_.find(i); it != placed_.end()) {
            for (size_t a = 0; a + 1 < it->second.args.size(); ++a) {
                for_each_arg_value(g, it->second.args[a],
                                   [&](int32_t id) { read_later.insert(id); });
            }
            chain.push_back(std::move(it->second));
        } else if (!taken_[i]) {
            chain.push_back(std::move(g.chain[i]));
        }
    }
    g.chain = std::move(chain);
    for (int32_t id : read_later) {
        if (id < 0 || static_cast<size_t>(id) >= g.values.size()) continue;
        if (auto* t = std::get_if<Tensor>(&g.values[static_cast<size_t>(id)]);
            t && t->constant_id < 0) {
            t->mem_obj_id = -1;
        }
    }
    const size_t n = placed_.size();
    placed_.clear();
    taken_.assign(g.chain.size(), false);
    return n;
}

size_t drop_unread_calls(Graph& g, const std::function<bool(const OpCall&)>& removable) {
    size_t dropped = 0;
    for (bool again = true; again;) {
        again = false;
        const Uses uses = count_uses(g);
        std::vector<OpCall> kept;
        for (OpCall& op : g.chain) {
            if (!op.args.empty() && tensor_at(g, op.args.back()) &&
                uses.read_count(op.args.back()) == 0 && !uses.graph_outputs.count(op.args.back()) &&
                removable(op)) {
                ++dropped;
                again = true;
                continue;
            }
            kept.push_back(std::move(op));
        }
        g.chain = std::move(kept);
    }
    return dropped;
}

size_t drop_unread_copies(Graph& g) {
    return drop_unread_calls(g, [](const OpCall& op) {
        return op.name == "aten.clone.default" ||
               op.name == "dim_order_ops._to_dim_order_copy.default";
    });
}

}  // namespace wgx::graph
