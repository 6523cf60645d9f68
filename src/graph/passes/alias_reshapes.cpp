#include "graph/passes/alias_reshapes.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "graph/passes/contiguous_chunks.h"
#include "graph/passes/graph_uses.h"
#include "graph/passes/permutation.h"

namespace wgx::graph {
namespace {

// Calls whose output is their first argument's bytes in the same order under another shape,
// whatever their other arguments.
bool is_reshape_name(std::string_view name) {
    return name == "aten.view_copy.default" || name == "aten._unsafe_view.default" ||
           name == "aten.squeeze_copy.dims" || name == "aten.squeeze_copy.dim" ||
           name == "aten.squeeze_copy.default" || name == "aten.unsqueeze_copy.default" ||
           name == "aten.alias_copy.default" || name == "aten.alias.default";
}

const std::vector<int64_t>* dims_at(const Graph& g, int32_t id) {
    const Tensor* t = tensor_at(g, id);
    return t ? &t->dims : nullptr;
}

// permute_copy(self, dims) that moves only size-1 dims: e.g. [1, 26, 48] by [1, 0, 2].
bool permute_is_reshape(const Graph& g, const OpCall& call) {
    if (call.args.size() != 3) return false;
    const auto* in = dims_at(g, call.args[0]);
    const auto* out = dims_at(g, call.args[2]);
    if (!in || !out) return false;
    const auto perm = permutation_at(g, call.args[1], in->size());
    if (!perm || !keeps_element_order(*in, *perm)) return false;
    std::vector<int64_t> permuted;
    for (int64_t d : *perm) permuted.push_back((*in)[static_cast<size_t>(d)]);
    return permuted == *out;
}

// select_copy.int(self, dim, index) on a dim of size 1: the output is all of self.
bool select_is_reshape(const Graph& g, const OpCall& call) {
    if (call.args.size() != 4) return false;
    const auto* in = dims_at(g, call.args[0]);
    const auto* out = dims_at(g, call.args[3]);
    const auto* dim = std::get_if<Int>(&g.values[static_cast<size_t>(call.args[1])]);
    const auto* index = std::get_if<Int>(&g.values[static_cast<size_t>(call.args[2])]);
    if (!in || !out || !dim || !index) return false;
    const auto rank = static_cast<int64_t>(in->size());
    int64_t d = dim->value;
    if (d < -rank || d >= rank) return false;
    if (d < 0) d += rank;
    if ((*in)[static_cast<size_t>(d)] != 1 || (index->value != 0 && index->value != -1))
        return false;
    std::vector<int64_t> rest = *in;
    rest.erase(rest.begin() + d);
    return rest == *out;
}

// clone(self, memory_format?) and _clone_dim_order(self, non_blocking, dim_order?) that keep
// the shape and the contiguous layout: a copy of the bytes, which an alias can stand for as
// long as neither tensor is written again (can_alias checks that).
bool clone_is_reshape(const Graph& g, const OpCall& call) {
    const auto& args = call.args;
    if (args.size() < 2) return false;
    const auto* in = dims_at(g, args.front());
    const auto* out = dims_at(g, args.back());
    if (!in || !out || *in != *out) return false;
    if (call.name == "aten.clone.default") {
        if (args.size() > 3) return false;
        if (args.size() == 3 && !is_null(g, args[1])) {
            // Only torch.contiguous_format (0) and torch.preserve_format (1): other formats
            // would ask for another byte order.
            const auto* format = std::get_if<Int>(&g.values[static_cast<size_t>(args[1])]);
            if (!format || (format->value != 0 && format->value != 1)) return false;
        }
        return true;
    }
    if (args.size() > 4) return false;
    if (args.size() == 4 && !is_null(g, args[2])) {
        const auto* order = std::get_if<IntList>(&g.values[static_cast<size_t>(args[2])]);
        if (!order || order->items.size() != in->size()) return false;
        for (size_t i = 0; i < order->items.size(); ++i) {
            if (order->items[i] != static_cast<int64_t>(i)) return false;
        }
    }
    return true;
}

}  // namespace

// expand_copy(self, size, implicit) to self's own shape: a plain copy of the bytes.
bool expand_is_reshape(const Graph& g, const OpCall& call) {
    if (call.args.size() != 4) return false;
    const auto* in = dims_at(g, call.args[0]);
    const auto* out = dims_at(g, call.args[3]);
    return in && out && *in == *out;
}

bool is_contiguous_reshape(const Graph& g, const OpCall& call) {
    if (is_reshape_name(call.name)) return true;
    for (int32_t arg : call.args) {
        if (arg < 0 || static_cast<size_t>(arg) >= g.values.size()) return false;
    }
    if (call.name == "aten.permute_copy.default") return permute_is_reshape(g, call);
    if (call.name == "aten.select_copy.int") return select_is_reshape(g, call);
    if (call.name == "aten.clone.default" ||
        call.name == "dim_order_ops._clone_dim_order.default") {
        return clone_is_reshape(g, call);
    }
    if (call.name == "aten.expand_copy.default") return expand_is_reshape(g, call);
    return false;
}

namespace {

uint64_t numel(const Tensor& t) {
    uint64_t n = 1;
    for (int64_t d : t.dims) n *= static_cast<uint64_t>(d);
    return n;
}

constexpr size_t kNoRead = std::numeric_limits<size_t>::max();

// The first op reading each value (through value lists), kNoRead if none.
std::vector<size_t> first_reads(const Graph& g) {
    std::vector<size_t> first(g.values.size(), kNoRead);
    auto touch = [&](int32_t id, size_t op) {
        if (id >= 0 && static_cast<size_t>(id) < first.size()) {
            first[static_cast<size_t>(id)] = std::min(first[static_cast<size_t>(id)], op);
        }
    };
    for (size_t op = 0; op < g.chain.size(); ++op) {
        const auto& args = g.chain[op].args;
        for (size_t a = 0; a + 1 < args.size(); ++a) {
            touch(args[a], op);
            if (const auto* list =
                    std::get_if<ValueList>(&g.values[static_cast<size_t>(args[a])])) {
                for (int32_t item : list->items) touch(item, op);
            }
        }
    }
    return first;
}

// Union-find over value ids: values that share storage, each at an element position
// relative to its parent (so relative to its root once found).
class Storage {
  public:
    explicit Storage(size_t n) : parent_(n), delta_(n, 0) {
        std::iota(parent_.begin(), parent_.end(), 0);
    }
    // The root of `id` and where `id` starts relative to the root.
    std::pair<int32_t, int64_t> find(int32_t id) {
        int64_t at = 0;
        int32_t r = id;
        while (parent_[static_cast<size_t>(r)] != r) {
            at += delta_[static_cast<size_t>(r)];
            r = parent_[static_cast<size_t>(r)];
        }
        // Path compression: every node on the way points at the root with its total offset.
        int64_t left = at;
        while (parent_[static_cast<size_t>(id)] != r) {
            const int32_t next = parent_[static_cast<size_t>(id)];
            const int64_t step = delta_[static_cast<size_t>(id)];
            parent_[static_cast<size_t>(id)] = r;
            delta_[static_cast<size_t>(id)] = left;
            left -= step;
            id = next;
        }
        return {r, at};
    }
    int32_t root(int32_t id) { return find(id).first; }
    // `b` starts `offset` elements after `a`.
    void join(int32_t a, int32_t b, int64_t offset) {
        const auto [ra, at_a] = find(a);
        const auto [rb, at_b] = find(b);
        if (ra == rb) return;
        parent_[static_cast<size_t>(rb)] = ra;
        delta_[static_cast<size_t>(rb)] = at_a + offset - at_b;
    }

  private:
    std::vector<int32_t> parent_;
    std::vector<int64_t> delta_;
};

class Finder {
  public:
    explicit Finder(const Graph& g) : g_(g), uses_(count_uses(g)), first_read_(first_reads(g)) {
        boundary_.insert(g.input_ids.begin(), g.input_ids.end());
        boundary_.insert(g.output_ids.begin(), g.output_ids.end());
    }

    // Whether call `i` (a contiguous reshape) may become an alias; see the header's rules.
    bool can_alias(size_t i) const {
        const auto& args = g_.chain[i].args;
        if (args.size() < 2) return false;
        const int32_t self = args.front(), out = args.back();
        const Tensor* in = tensor_at(g_, self);
        const Tensor* res = tensor_at(g_, out);
        if (!in || !res || self == out) return false;
        if (in->constant_id >= 0 || res->constant_id >= 0) return false;
        if (boundary_.count(self) || boundary_.count(out)) return false;
        if (in->dtype != res->dtype || in->dynamic_bound || res->dynamic_bound) return false;
        if (numel(*in) == 0 || numel(*in) != numel(*res)) return false;
        if (uses_.write_count(self) != 1 || uses_.writer.at(self) >= i) return false;
        if (uses_.write_count(out) != 1) return false;  // its one writer is call i
        const size_t read = first_read_[static_cast<size_t>(out)];
        return read == kNoRead || read > i;
    }

    // Whether call `i`, which cuts its input into `chunks` (contiguous_chunks), may become
    // aliases at offsets: the reshape rules for the input and for every output, and each
    // offset a multiple of kAliasOffsetAlignment in GPU bytes (graph.h: then every device
    // accepts the binding, so the executor needs no fallback). All outputs or none: a call
    // left in the chain writes all of them.
    bool can_alias_chunks(size_t i, const std::vector<Chunk>& chunks) const {
        const int32_t self = g_.chain[i].args.front();
        const Tensor* in = tensor_at(g_, self);
        if (!in || chunks.empty()) return false;
        if (in->constant_id >= 0 || boundary_.count(self) || in->dynamic_bound) return false;
        if (uses_.write_count(self) != 1 || uses_.writer.at(self) >= i) return false;
        for (const Chunk& chunk : chunks) {
            const Tensor* res = tensor_at(g_, chunk.id);
            if (!res || chunk.id == self || res->constant_id >= 0 || boundary_.count(chunk.id)) {
                return false;
            }
            if (res->dtype != in->dtype || res->dynamic_bound || numel(*res) == 0) return false;
            if (chunk.offset * device_size(in->dtype) % kAliasOffsetAlignment != 0) return false;
            if (uses_.write_count(chunk.id) != 1) return false;  // its one writer is call i
            const size_t read = first_read_[static_cast<size_t>(chunk.id)];
            if (read != kNoRead && read <= i) return false;
        }
        return true;
    }

  private:
    const Graph& g_;
    Uses uses_;
    std::vector<size_t> first_read_;
    std::set<int32_t> boundary_;
};

}  // namespace

size_t alias_reshapes(Graph& g) {
    // Per removed call, its outputs and where each starts in its input (0 for reshapes).
    std::vector<std::optional<std::vector<Chunk>>> removed(g.chain.size());
    size_t count = 0;
    {
        const Finder finder(g);
        for (size_t i = 0; i < g.chain.size(); ++i) {
            const OpCall& call = g.chain[i];
            if (is_contiguous_reshape(g, call) && finder.can_alias(i)) {
                removed[i] = std::vector<Chunk>{{call.args.back(), 0}};
            } else if (auto chunks = contiguous_chunks(g, call);
                       chunks && finder.can_alias_chunks(i, *chunks)) {
                removed[i] = std::move(chunks);
            }
            if (removed[i]) ++count;
        }
    }
    if (count == 0) return 0;

    // Groups from an earlier run stay joined with the new ones, at their offsets.
    Storage storage(g.values.size());
    for (const auto& group : g.alias_groups) {
        for (int32_t id : group) {
            storage.join(group.front(), id,
                         static_cast<int64_t>(alias_offset(g, id)) -
                             static_cast<int64_t>(alias_offset(g, group.front())));
        }
    }
    std::vector<OpCall> kept;
    kept.reserve(g.chain.size() - count);
    for (size_t i = 0; i < g.chain.size(); ++i) {
        if (removed[i]) {
            for (const Chunk& chunk : *removed[i]) {
                storage.join(g.chain[i].args.front(), chunk.id, static_cast<int64_t>(chunk.offset));
            }
        } else {
            kept.push_back(std::move(g.chain[i]));
        }
    }
    g.chain = std::move(kept);

    std::set<int32_t> members;
    for (const auto& group : g.alias_groups) members.insert(group.begin(), group.end());
    // Every value joined to another one is a member; collect them by root, in id order.
    std::map<int32_t, std::vector<int32_t>> by_root;
    for (size_t id = 0; id < g.values.size(); ++id) {
        const int32_t v = static_cast<int32_t>(id);
        const int32_t r = storage.root(v);
        if (r != v || members.count(v)) by_root[r];
    }
    for (size_t id = 0; id < g.values.size(); ++id) {
        const int32_t v = static_cast<int32_t>(id);
        auto it = by_root.find(storage.root(v));
        if (it != by_root.end()) it->second.push_back(v);
    }
    g.alias_groups.clear();
    g.alias_offsets.clear();
    for (auto& [root, group] : by_root) {
        // Offsets count from the group's start: the member that begins first (the tensor the
        // others view; every join puts a view inside its input, so that member spans them).
        int64_t start = std::numeric_limits<int64_t>::max();
        for (int32_t id : group) start = std::min(start, storage.find(id).second);
        // That member comes first (graph_check: a group's first member is its storage); of
        // several at the start (reshapes of it, a first chunk), the one with most elements.
        auto holds = [&](int32_t id) -> uint64_t {
            if (storage.find(id).second != start) return 0;
            return numel(std::get<Tensor>(g.values[static_cast<size_t>(id)]));
        };
        const auto first = std::max_element(
            group.begin(), group.end(), [&](int32_t a, int32_t b) { return holds(a) < holds(b); });
        std::rotate(group.begin(), first, first + 1);
        for (int32_t id : group) {
            const int64_t at = storage.find(id).second - start;
            if (at != 0) g.alias_offsets[id] = static_cast<uint64_t>(at);
            // The file's pools assumed one buffer per tensor: the group is placed anew, as a unit.
            std::get<Tensor>(g.values[static_cast<size_t>(id)]).mem_obj_id = -1;
        }
        g.alias_groups.push_back(std::move(group));
    }
    return count;
}

}  // namespace wgx::graph
