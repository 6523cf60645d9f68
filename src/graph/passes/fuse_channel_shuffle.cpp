#include "graph/passes/fuse_channel_shuffle.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/passes/alias_reshapes.h"
#include "graph/passes/graph_uses.h"
#include "graph/schema/fused_ops.h"

namespace wgx::graph {
namespace {

using Fused = schema::ChannelShuffle;

std::optional<std::vector<int64_t>> int_list_at(const Graph& g, int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= g.values.size()) return std::nullopt;
    if (const auto* l = std::get_if<IntList>(&g.values[static_cast<size_t>(id)])) return l->items;
    return std::nullopt;
}

// `dim` wrapped into [0, rank), or nullopt when out of range.
std::optional<int64_t> wrap(int64_t dim, size_t rank) {
    const auto r = static_cast<int64_t>(rank);
    if (dim < -r || dim >= r) return std::nullopt;
    return dim < 0 ? dim + r : dim;
}

// An integer argument (an Int, or a Double holding a whole number); `fallback` when absent.
std::optional<int64_t> integer_at(const Graph& g, int32_t id, std::optional<int64_t> fallback) {
    if (is_null(g, id)) return fallback;
    auto v = number_at(g, id);
    if (!v || *v != static_cast<double>(static_cast<int64_t>(*v))) return std::nullopt;
    return static_cast<int64_t>(*v);
}

// A clone that keeps the shape and the contiguous layout (alias_reshapes' rule): the bytes as
// they are.
bool is_clone(const Graph& g, const OpCall& op) {
    return (op.name == "aten.clone.default" ||
            op.name == "dim_order_ops._clone_dim_order.default") &&
           is_contiguous_reshape(g, op);
}

bool is_view(const OpCall& op) {
    return (op.name == "aten.view_copy.default" || op.name == "aten._unsafe_view.default") &&
           op.args.size() == 3;
}

// Walks one cat's pattern; the calls it covers and the fused call, or nullopt.
class Matcher {
  public:
    Matcher(Graph& g, const Uses& uses, const ChainEdit& edit) : g_(g), uses_(uses), edit_(edit) {}

    std::optional<std::pair<std::vector<size_t>, OpCall>> match(size_t i) {
        calls_ = {i};
        const OpCall& cat = g_.chain[i];
        if (cat.name != "aten.cat.default" || (cat.args.size() != 2 && cat.args.size() != 3)) {
            return std::nullopt;
        }
        const int32_t list = cat.args[0];
        const auto* items = std::get_if<ValueList>(&g_.values[static_cast<size_t>(list)]);
        const Tensor* x = tensor_at(g_, cat.args.back());
        if (!items || items->items.empty() || !x || x->dims.empty() || x->dynamic_bound) {
            return std::nullopt;
        }
        dims_ = x->dims;
        dtype_ = x->dtype;
        auto dim = integer_at(g_, cat.args.size() == 3 ? cat.args[1] : -1, 0);
        if (!dim || !(dim = wrap(*dim, x->dims.size()))) return std::nullopt;
        const size_t d = static_cast<size_t>(*dim);
        // The fused call reads the inputs later than the cat did: none may be written again.
        int64_t channels = 0;
        for (int32_t item : items->items) {
            const Tensor* t = tensor_at(g_, item);
            if (!t || t->dtype != x->dtype || t->dynamic_bound ||
                t->dims.size() != x->dims.size() || uses_.write_count(item) > 1) {
                return std::nullopt;
            }
            for (size_t k = 0; k < t->dims.size(); ++k) {
                if (k != d && t->dims[k] != x->dims[k]) return std::nullopt;
            }
            channels += t->dims[d];
        }
        if (channels != x->dims[d]) return std::nullopt;

        int32_t cur = cat.args.back();
        const OpCall* op = skip_clones(cur, next(cur));
        // [.., g, C / g, ..]: dim d split in two.
        if (!op || !is_view(*op)) return std::nullopt;
        const Tensor* v = tensor_at(g_, op->args.back());
        if (!v || v->dtype != x->dtype || v->dynamic_bound ||
            v->dims.size() != x->dims.size() + 1) {
            return std::nullopt;
        }
        for (size_t k = 0; k < x->dims.size(); ++k) {
            if (k != d && v->dims[k < d ? k : k + 1] != x->dims[k]) return std::nullopt;
        }
        const int64_t groups = v->dims[d];
        if (groups < 1 || groups * v->dims[d + 1] != channels) return std::nullopt;
        std::vector<int64_t> swapped = v->dims;
        std::swap(swapped[d], swapped[d + 1]);
        op = skip_clones(cur, take(cur, *op));

        // The permute swapping those two dims, the others in place.
        if (!op || op->name != "aten.permute_copy.default" || op->args.size() != 3 ||
            !same_tensor(op->args.back(), swapped)) {
            return std::nullopt;
        }
        auto perm = int_list_at(g_, op->args[1]);
        if (!perm || perm->size() != v->dims.size()) return std::nullopt;
        for (size_t k = 0; k < perm->size(); ++k) {
            auto p = wrap((*perm)[k], perm->size());
            const size_t want = k == d ? d + 1 : k == d + 1 ? d : k;
            if (!p || static_cast<size_t>(*p) != want) return std::nullopt;
        }
        op = skip_clones(cur, take(cur, *op));

        // Back to the shape of the concatenation.
        if (!op || !is_view(*op) || !same_tensor(op->args.back(), x->dims)) return std::nullopt;
        op = skip_clones(cur, take(cur, *op));

        // Without a split (the last block of a ShuffleNet stage) the shuffled tensor goes on
        // whole. Values are appended only now: the pointers above into g_.values die here.
        std::optional<std::vector<int64_t>> sizes =
            op ? split_sizes(*op, d, channels) : std::nullopt;
        int32_t out = cur;
        if (sizes && split_outputs_fit(op->args.back(), *sizes, d)) {
            calls_.push_back(uses_.reader.at(cur));
            out = op->args.back();
        } else {
            sizes.reset();
        }
        OpCall fused;
        fused.name = std::string(Fused::name);
        fused.debug_handle = cat.debug_handle;
        fused.args.resize(Fused::count, -1);
        fused.args[Fused::tensors] = list;
        fused.args[Fused::dim] = append(Int{static_cast<int64_t>(d)});
        fused.args[Fused::groups] = append(Int{groups});
        fused.args[Fused::split_sizes] = sizes ? append(IntList{*sizes}) : append(Null{});
        fused.args[Fused::out] = out;
        return std::make_pair(calls_, std::move(fused));
    }

  private:
    // The call that alone reads `id` (written once, no graph output), if not already taken.
    const OpCall* next(int32_t id) const {
        if (!uses_.private_to_one_reader(id)) return nullptr;
        const size_t j = uses_.reader.at(id);
        if (edit_.taken(j) || g_.chain[j].args.empty() || g_.chain[j].args[0] != id) return nullptr;
        return &g_.chain[j];
    }

    // Adds `op` (the reader of `cur`) to the pattern, moves `cur` to its output and returns the
    // call after it.
    const OpCall* take(int32_t& cur, const OpCall& op) {
        calls_.push_back(uses_.reader.at(cur));
        cur = op.args.back();
        return next(cur);
    }

    // Takes the copies (clone, contiguous) that follow `cur` into the pattern; the call after them.
    const OpCall* skip_clones(int32_t& cur, const OpCall* op) {
        while (op && is_clone(g_, *op)) {
            const Tensor* t = tensor_at(g_, cur);
            if (!t || !same_tensor(op->args.back(), t->dims)) break;
            op = take(cur, *op);
        }
        return op;
    }

    bool same_tensor(int32_t id, const std::vector<int64_t>& dims) const {
        const Tensor* t = tensor_at(g_, id);
        return t && t->dtype == dtype_ && !t->dynamic_bound && t->dims == dims;
    }

    // The pieces of a split of the shuffled tensor along `d`, or nullopt for any other call.
    std::optional<std::vector<int64_t>> split_sizes(const OpCall& op, size_t d,
                                                    int64_t channels) const {
        if (op.args.size() != 4) return std::nullopt;
        auto dim = integer_at(g_, op.args[2], 0);
        if (!dim || wrap(*dim, dims_.size()) != static_cast<int64_t>(d)) return std::nullopt;
        std::vector<int64_t> sizes;
        if (op.name == "aten.split_with_sizes_copy.default") {
            auto list = int_list_at(g_, op.args[1]);
            if (!list) return std::nullopt;
            int64_t total = 0;
            for (int64_t s : *list) {
                if (s < 0) return std::nullopt;
                total += s;
            }
            if (total != channels) return std::nullopt;
            sizes = *list;
        } else if (op.name == "aten.split_copy.Tensor") {
            auto size = integer_at(g_, op.args[1], std::nullopt);
            if (!size || *size < 1) return std::nullopt;
            for (int64_t at = 0; at < channels; at += *size) {
                sizes.push_back(std::min(*size, channels - at));
            }
        } else {
            return std::nullopt;
        }
        return sizes;
    }

    // The split's output list holds one tensor (or an absent entry) per piece, each of the
    // piece's shape.
    bool split_outputs_fit(int32_t id, const std::vector<int64_t>& sizes, size_t d) const {
        const auto* outs = std::get_if<ValueList>(&g_.values[static_cast<size_t>(id)]);
        if (!outs || outs->items.size() != sizes.size()) return false;
        for (size_t k = 0; k < sizes.size(); ++k) {
            if (outs->items[k] < 0) continue;
            std::vector<int64_t> dims = dims_;
            dims[d] = sizes[k];
            if (!same_tensor(outs->items[k], dims)) return false;
        }
        return true;
    }

    int32_t append(Value v) {
        g_.values.push_back(std::move(v));
        return static_cast<int32_t>(g_.values.size() - 1);
    }

    Graph& g_;
    const Uses& uses_;
    const ChainEdit& edit_;
    std::vector<int64_t> dims_;  // the concatenation's
    DType dtype_ = DType::f32;
    std::vector<size_t> calls_;
};

}  // namespace

size_t fuse_channel_shuffle(Graph& g) {
    const Uses uses = count_uses(g);
    ChainEdit edit(g);
    for (size_t i = 0; i < g.chain.size(); ++i) {
        if (edit.taken(i)) continue;
        Matcher m(g, uses, edit);
        if (auto found = m.match(i)) {
            edit.replace(found->first, std::move(found->second));
        }
    }
    return edit.apply(g);
}

}  // namespace wgx::graph
