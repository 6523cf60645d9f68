#include "program/passes/fuse_conv_epilogue.h"

#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace wgx::program {
namespace {

constexpr std::string_view kConv = "aten.convolution.default";
constexpr std::string_view kAdd = "aten.add.Tensor";
constexpr std::string_view kFused = "wgx.conv_add_clamp.default";
constexpr size_t kConvArgs = 10;  // input, weight, bias, stride, padding, dilation, transposed,
                                  // output_padding, groups, out

// Who reads and writes each value, counted over the chain (an op's last argument is its
// output, or a list of outputs; every other argument, and the items of lists among them, are
// read).
struct Uses {
    std::map<int32_t, int> reads, writes;
    std::map<int32_t, size_t> reader;  // the (last) op reading the value
    std::set<int32_t> graph_outputs;
};

Uses count_uses(const Graph& g) {
    Uses u;
    u.graph_outputs.insert(g.output_ids.begin(), g.output_ids.end());
    auto each = [&](int32_t id, auto&& f) {
        if (id < 0 || static_cast<size_t>(id) >= g.values.size()) return;
        if (const auto* list = std::get_if<ValueList>(&g.values[static_cast<size_t>(id)])) {
            for (int32_t item : list->items) {
                if (item >= 0) f(item);
            }
        } else {
            f(id);
        }
    };
    for (size_t i = 0; i < g.chain.size(); ++i) {
        const auto& args = g.chain[i].args;
        if (args.empty()) continue;
        for (size_t a = 0; a + 1 < args.size(); ++a) {
            each(args[a], [&](int32_t id) {
                u.reads[id]++;
                u.reader[id] = i;
            });
        }
        each(args.back(), [&](int32_t id) { u.writes[id]++; });
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

bool is_null(const Graph& g, int32_t id) {
    return id < 0 || (static_cast<size_t>(id) < g.values.size() &&
                      std::holds_alternative<Null>(g.values[static_cast<size_t>(id)]));
}

// A value only `reader` reads and one op writes, and that is not a graph output: it can vanish
// when its producer and reader merge.
bool private_to_one_reader(const Uses& u, int32_t id) {
    auto r = u.reads.find(id);
    auto w = u.writes.find(id);
    return r != u.reads.end() && r->second == 1 && w != u.writes.end() && w->second == 1 &&
           !u.graph_outputs.count(id);
}

int written_times(const Uses& u, int32_t id) {
    auto w = u.writes.find(id);
    return w == u.writes.end() ? 0 : w->second;
}

// The clamp bounds an activation call applies to its input, or nullopt when the call is not
// one of them. A bound that is absent is a Null value id (to be appended).
struct Bounds {
    std::optional<double> lo, hi;
};
std::optional<Bounds> activation_bounds(const Graph& g, const OpCall& op) {
    if (op.name == "aten.relu.default" && op.args.size() == 2) return Bounds{0.0, std::nullopt};
    if (op.name == "aten.hardtanh.default" && op.args.size() == 4) {
        auto lo = number_at(g, op.args[1]), hi = number_at(g, op.args[2]);
        if (lo && hi) return Bounds{lo, hi};
    }
    if (op.name == "aten.clamp.default" && op.args.size() == 4) {
        Bounds b;
        if (!is_null(g, op.args[1])) {
            if (!(b.lo = number_at(g, op.args[1]))) return std::nullopt;
        }
        if (!is_null(g, op.args[2])) {
            if (!(b.hi = number_at(g, op.args[2]))) return std::nullopt;
        }
        return b;
    }
    return std::nullopt;
}

int32_t append_bound(Graph& g, std::optional<double> v) {
    if (v) {
        g.values.emplace_back(Double{*v});
    } else {
        g.values.emplace_back(Null{});
    }
    return static_cast<int32_t>(g.values.size() - 1);
}

}  // namespace

size_t fuse_conv_epilogue(Graph& g) {
    const Uses uses = count_uses(g);
    std::vector<bool> removed(g.chain.size(), false);
    std::map<size_t, OpCall> replacement;  // chain index -> the fused call placed there
    std::set<int32_t> lengthened;           // tensors whose lifetime the moves extend

    for (size_t i = 0; i < g.chain.size(); ++i) {
        const OpCall& conv = g.chain[i];
        if (conv.name != kConv || conv.args.size() != kConvArgs || removed[i]) continue;
        const int32_t t = conv.args.back();
        const Tensor* tt = tensor_at(g, t);
        if (!tt || tt->dtype != DType::f32 || !private_to_one_reader(uses, t)) continue;
        // Ungrouped and not transposed: the convolutions that take the GEMM's epilogue.
        const auto* transposed = std::get_if<Bool>(&g.values[static_cast<size_t>(conv.args[6])]);
        auto groups = number_at(g, conv.args[8]);
        if (!transposed || transposed->value || !groups || *groups != 1) continue;
        // The convolution will run later: none of what it reads may be written twice.
        bool inputs_stable = true;
        for (size_t a = 0; a < 3; ++a) {
            if (tensor_at(g, conv.args[a]) && written_times(uses, conv.args[a]) > 1) {
                inputs_stable = false;
            }
        }
        if (!inputs_stable) continue;

        const size_t j = uses.reader.at(t);
        const OpCall& add = g.chain[j];
        if (removed[j] || replacement.count(j) || add.name != kAdd ||
            (add.args.size() != 3 && add.args.size() != 4)) {
            continue;
        }
        if (add.args.size() == 4 && !is_null(g, add.args[2])) {
            auto alpha = number_at(g, add.args[2]);
            if (!alpha || *alpha != 1.0) continue;
        }
        if ((add.args[0] == t) == (add.args[1] == t)) continue;  // t + t, or t not an operand
        const int32_t r = add.args[0] == t ? add.args[1] : add.args[0];
        const Tensor* rt = tensor_at(g, r);
        const int32_t u = add.args.back();
        const Tensor* ut = tensor_at(g, u);
        if (!rt || rt->dtype != DType::f32 || rt->dims != tt->dims || written_times(uses, r) > 1 ||
            !ut || ut->dims != tt->dims || ut->dtype != DType::f32) {
            continue;
        }

        // The activation after the add, when only it reads the sum.
        size_t last = j;
        int32_t out = u;
        Bounds bounds;
        if (private_to_one_reader(uses, u)) {
            const size_t k = uses.reader.at(u);
            if (!removed[k] && !replacement.count(k)) {
                if (auto b = activation_bounds(g, g.chain[k]); b && g.chain[k].args[0] == u) {
                    const Tensor* yt = tensor_at(g, g.chain[k].args.back());
                    if (yt && yt->dims == ut->dims && yt->dtype == DType::f32) {
                        last = k;
                        out = g.chain[k].args.back();
                        bounds = *b;
                    }
                }
            }
        }

        OpCall fused;
        fused.name = std::string(kFused);
        fused.debug_handle = conv.debug_handle;
        fused.args.assign(conv.args.begin(), conv.args.begin() + 9);
        fused.args.push_back(r);
        fused.args.push_back(append_bound(g, bounds.lo));
        fused.args.push_back(append_bound(g, bounds.hi));
        fused.args.push_back(out);
        for (size_t a = 0; a < 3; ++a) lengthened.insert(fused.args[a]);
        lengthened.insert(r);
        removed[i] = true;
        if (last != j) removed[j] = true;
        replacement[last] = std::move(fused);
    }
    if (replacement.empty()) return 0;

    std::vector<OpCall> chain;
    chain.reserve(g.chain.size());
    for (size_t i = 0; i < g.chain.size(); ++i) {
        if (auto it = replacement.find(i); it != replacement.end()) {
            chain.push_back(std::move(it->second));
        } else if (!removed[i]) {
            chain.push_back(std::move(g.chain[i]));
        }
    }
    g.chain = std::move(chain);
    for (int32_t id : lengthened) {
        if (auto* tensor = std::get_if<Tensor>(&g.values[static_cast<size_t>(id)]);
            tensor && tensor->constant_id < 0) {
            tensor->mem_obj_id = -1;
        }
    }
    return replacement.size();
}

}  // namespace wgx::program
