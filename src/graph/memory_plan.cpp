#include "graph/memory_plan.h"

#include "graph/schema/in_place.h"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <set>

#include "graph/graph_check.h"

namespace wgx::graph {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct Lifetime {
    int64_t first = kNever;  // op index of the first use
    int64_t last = -1;       // op index of the last use
};

// First and last op using each value. A value list's members live as long as the list is used
// (e.g. cat's inputs); lists are expanded once, after the scan, so the cost stays linear even
// when many ops share one long list.
std::vector<Lifetime> lifetimes(const Graph& graph) {
    std::vector<Lifetime> result(graph.values.size());
    auto touch = [&](int32_t id, int64_t op) {
        if (id < 0 || static_cast<size_t>(id) >= result.size()) return;
        Lifetime& life = result[static_cast<size_t>(id)];
        life.first = std::min(life.first, op);
        life.last = std::max(life.last, op);
    };
    for (size_t op = 0; op < graph.chain.size(); ++op) {
        for (int32_t arg : graph.chain[op].args) touch(arg, static_cast<int64_t>(op));
    }
    for (size_t id = 0; id < graph.values.size(); ++id) {
        const auto* list = std::get_if<ValueList>(&graph.values[id]);
        if (!list || result[id].first == kNever) continue;
        const Lifetime span = result[id];
        for (int32_t item : list->items) {
            touch(item, span.first);
            touch(item, span.last);
        }
    }
    return result;
}

uint64_t device_nbytes(const Tensor& tensor) {
    uint64_t numel = 1;
    for (int64_t dim : tensor.dims) numel *= static_cast<uint64_t>(dim);
    return numel * device_size(tensor.dtype);
}

struct Pool {
    int32_t id = 0;
    uint64_t size = 0;        // bytes of the largest member
    int64_t busy_until = -1;  // last use of the latest member
};

// Renumbers existing pool ids densely from 0, keeping which tensors share a pool.
void compact_pool_ids(Graph& graph) {
    std::map<int32_t, int32_t> renumbered;
    for (Value& value : graph.values) {
        auto* tensor = std::get_if<Tensor>(&value);
        if (!tensor || tensor->mem_obj_id < 0) continue;
        auto [it, inserted] =
            renumbered.emplace(tensor->mem_obj_id, static_cast<int32_t>(renumbered.size()));
        tensor->mem_obj_id = it->second;
    }
}

int32_t next_free_pool_id(const Graph& graph) {
    int32_t next_id = 0;
    for (const Value& value : graph.values) {
        if (const auto* tensor = std::get_if<Tensor>(&value)) {
            next_id = std::max(next_id, tensor->mem_obj_id + 1);
        }
    }
    return next_id;
}

}  // namespace

void assign_memory_pools(Graph& graph) {
    // A checked graph has at most kMaxValues values and pool ids up to kMaxPoolId. New ids go
    // above the existing ones; when that could pass kMaxPoolId (ids that a file chose high),
    // the existing ids are made dense first, which keeps every new id within the limit.
    int32_t next_id = next_free_pool_id(graph);
    if (static_cast<uint64_t>(next_id) + graph.values.size() > static_cast<uint64_t>(kMaxPoolId)) {
        compact_pool_ids(graph);
        next_id = next_free_pool_id(graph);
    }
    // The planner's own check of alias groups (their members share one buffer, so the rules
    // that keep that buffer safe must hold before it is placed): see check_alias_groups.
    check_alias_groups(graph, graph.origin);
    std::set<int32_t> boundary(graph.input_ids.begin(), graph.input_ids.end());
    boundary.insert(graph.output_ids.begin(), graph.output_ids.end());
    // State (a KV cache an op writes in place) lives across runs: a pool of its own.
    for (int32_t id : schema::state_values(graph)) boundary.insert(id);
    std::vector<Lifetime> lives = lifetimes(graph);

    // An alias group is one storage seen under several shapes: it is placed as one unit, its
    // first member standing for all, alive from the first use of any member to the last use of
    // any member. (Checking members one by one would let another tensor take the pool between
    // the producer's write and a later read of a view, overwriting the data.) Members have the
    // bytes the group spans (its members at their offsets, all within its largest member at
    // offset 0: checked), and either all share a pool already or none has one.
    std::vector<bool> stands_in(graph.values.size(), false);
    std::map<int32_t, uint64_t> group_bytes;  // by first member
    for (const auto& group : graph.alias_groups) {
        if (group.empty()) continue;
        Lifetime merged;
        uint64_t end = 0;
        for (int32_t id : group) {
            const Lifetime& life = lives[static_cast<size_t>(id)];
            merged.first = std::min(merged.first, life.first);
            merged.last = std::max(merged.last, life.last);
            end = std::max(end, device_end(graph, id));
        }
        lives[static_cast<size_t>(group.front())] = merged;
        group_bytes[group.front()] = end;
        for (size_t i = 1; i < group.size(); ++i) stands_in[static_cast<size_t>(group[i])] = true;
    }

    std::vector<int32_t> candidates;
    for (size_t id = 0; id < graph.values.size(); ++id) {
        auto* tensor = std::get_if<Tensor>(&graph.values[id]);
        if (!tensor || tensor->constant_id >= 0 || tensor->mem_obj_id >= 0) continue;
        if (stands_in[id]) continue;  // placed with its group's first member
        if (boundary.count(static_cast<int32_t>(id))) {
            tensor->mem_obj_id = next_id++;
        } else {
            candidates.push_back(static_cast<int32_t>(id));
        }
    }
    // In first-use order; unused tensors (no lifetime) come last and fit any pool.
    std::stable_sort(candidates.begin(), candidates.end(), [&](int32_t a, int32_t b) {
        return lives[static_cast<size_t>(a)].first < lives[static_cast<size_t>(b)].first;
    });

    // Pools whose members are all dead are "free", indexed by size for best fit; the others
    // wait in a queue ordered by when their last member dies.
    std::vector<Pool> pools;
    std::multimap<uint64_t, size_t> free_by_size;
    using Busy = std::pair<int64_t, size_t>;
    std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;

    for (int32_t id : candidates) {
        auto& tensor = std::get<Tensor>(graph.values[static_cast<size_t>(id)]);
        const Lifetime life = lives[static_cast<size_t>(id)];
        while (!busy.empty() && busy.top().first < life.first) {
            free_by_size.emplace(pools[busy.top().second].size, busy.top().second);
            busy.pop();
        }
        const auto spans = group_bytes.find(id);
        const uint64_t size = spans != group_bytes.end() ? spans->second : device_nbytes(tensor);
        size_t index = 0;
        // The smallest free pool that already fits, else the largest (least growth).
        auto fit = free_by_size.lower_bound(size);
        if (fit == free_by_size.end() && !free_by_size.empty()) fit = std::prev(free_by_size.end());
        if (fit != free_by_size.end()) {
            index = fit->second;
            free_by_size.erase(fit);
        } else {
            index = pools.size();
            pools.push_back({next_id++, 0, -1});
        }
        Pool& pool = pools[index];
        pool.size = std::max(pool.size, size);
        tensor.mem_obj_id = pool.id;
        if (life.first == kNever) {
            free_by_size.emplace(pool.size, index);  // never used: the pool stays free
        } else {
            pool.busy_until = life.last;
            busy.emplace(pool.busy_until, index);
        }
    }
    for (const auto& group : graph.alias_groups) {
        if (group.empty()) continue;
        const int32_t pool =
            std::get<Tensor>(graph.values[static_cast<size_t>(group.front())]).mem_obj_id;
        for (int32_t id : group)
            std::get<Tensor>(graph.values[static_cast<size_t>(id)]).mem_obj_id = pool;
    }
}

std::map<int32_t, uint64_t> pool_sizes(const Graph& graph) {
    std::map<int32_t, uint64_t> pools;
    for (const auto& v : graph.values) {
        const auto* t = std::get_if<Tensor>(&v);
        if (!t || t->constant_id >= 0 || t->mem_obj_id < 0) continue;
        const uint64_t bytes = device_end(graph, static_cast<int32_t>(&v - graph.values.data()));
        pools[t->mem_obj_id] = std::max(pools[t->mem_obj_id], bytes);
    }
    return pools;
}

uint64_t device_end(const Graph& graph, int32_t id) {
    const auto& t = std::get<Tensor>(graph.values[static_cast<size_t>(id)]);
    return (alias_offset(graph, id) + host_nbytes(t) / host_size(t.dtype)) * device_size(t.dtype);
}

uint64_t pool_bytes(const Graph& graph) {
    uint64_t total = 0;
    for (const auto& [id, bytes] : pool_sizes(graph)) total += bytes;
    return total;
}

void plan_memory_pools(Graph& graph) {
    Graph fresh = graph;
    for (auto& v : fresh.values) {
        if (auto* t = std::get_if<Tensor>(&v)) t->mem_obj_id = -1;
    }
    assign_memory_pools(fresh);
    assign_memory_pools(graph);
    if (pool_bytes(fresh) < pool_bytes(graph)) graph = std::move(fresh);
}

}  // namespace wgx::graph
