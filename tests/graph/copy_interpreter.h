// A small CPU interpreter for the copy passes' tests (alias_reshapes_test, copy_aliases_test,
// compose_permutes_test): it runs a Graph on 64-bit words. Copies and reshapes (view, squeeze,
// unsqueeze, alias, clone) move words in order, permute_copy, select_copy.int and expand_copy
// gather them as the ops do, and every other op writes, for each output word k, a hash of the
// op's debug handle and word k (mod size) of each tensor it reads (items of value lists
// included; a value list of outputs gets one such tensor per item), so any misplaced word
// changes the outputs.
// split_with_sizes_copy, split_copy and slice_copy gather their piece as the ops do.
// Run `pooled`, every tensor lives in its memory pool's words (at its alias offset, 0 for most,
// as the executor binds pools; alias group members share them), otherwise each value has its
// own.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/passes/alias_reshapes.h"
#include "graph_compare.h"
#include "wgx/error.h"

namespace wgx::test {

using Words = std::vector<uint64_t>;

// Appends values and calls to a Graph.
struct GraphBuilder {
    graph::Graph g;
    int32_t add(graph::Value v) {
        g.values.push_back(std::move(v));
        return int32_t(g.values.size() - 1);
    }
    int32_t tensor(std::vector<int64_t> dims, DType dtype = DType::f32) {
        return add(graph::Tensor{dtype, std::move(dims), -1, -1, false, ""});
    }
    void call(std::string name, std::vector<int32_t> args) {
        g.chain.push_back({std::move(name), std::move(args), uint32_t(g.chain.size())});
    }
    const std::vector<int64_t>& dims(int32_t id) const {
        return std::get<graph::Tensor>(g.values[size_t(id)]).dims;
    }
    // A hashing op (see above) under a real op's name.
    void relu(int32_t in, int32_t out) { call("aten.relu.default", {in, out}); }
    void add_op(int32_t a, int32_t b, int32_t out) { call("aten.add.Tensor", {a, b, out}); }
    void view(int32_t in, int32_t out) {
        call("aten.view_copy.default", {in, add(graph::IntList{dims(out)}), out});
    }
    void permute(int32_t in, std::vector<int64_t> perm, int32_t out) {
        call("aten.permute_copy.default", {in, add(graph::IntList{std::move(perm)}), out});
    }
    void select(int32_t in, int64_t dim, int64_t index, int32_t out) {
        call("aten.select_copy.int", {in, add(graph::Int{dim}), add(graph::Int{index}), out});
    }
    void clone(int32_t in, int32_t out) {
        call("aten.clone.default", {in, add(graph::Null{}), out});
    }
};

inline std::vector<std::string> call_names(const graph::Graph& g) {
    std::vector<std::string> out;
    for (const auto& op : g.chain) out.push_back(op.name);
    return out;
}

inline int32_t pool_of(const graph::Graph& g, int32_t id) {
    return std::get<graph::Tensor>(g.values[size_t(id)]).mem_obj_id;
}

inline uint64_t numel_of(const graph::Graph& g, int32_t id) {
    uint64_t n = 1;
    for (int64_t d : std::get<graph::Tensor>(g.values[size_t(id)]).dims) n *= uint64_t(d);
    return n;
}

namespace detail {

inline std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
    std::vector<int64_t> s(dims.size(), 1);
    for (size_t d = dims.size(); d-- > 1;) s[d - 1] = s[d] * dims[d];
    return s;
}

// Gathers out[i] = in[offset + sum_d idx_d * in_strides[d]] over `out_dims`.
inline Words gather(const Words& in, const std::vector<int64_t>& out_dims,
                    const std::vector<int64_t>& in_strides, int64_t offset) {
    int64_t n = 1;
    for (int64_t d : out_dims) n *= d;
    Words out(static_cast<size_t>(n));
    std::vector<int64_t> idx(out_dims.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
        int64_t src = offset;
        for (size_t d = 0; d < idx.size(); ++d) src += idx[d] * in_strides[d];
        out[size_t(i)] = in.at(size_t(src));
        for (size_t d = idx.size(); d-- > 0;) {
            if (++idx[d] < out_dims[d]) break;
            idx[d] = 0;
        }
    }
    return out;
}

inline int64_t wrap(int64_t d, size_t rank) { return d < 0 ? d + int64_t(rank) : d; }

}  // namespace detail

// Output `out` (a tensor id; `which` counts the outputs of ops with several) of `call`.
inline Words run_call(const graph::Graph& g, const graph::OpCall& call,
                      const std::vector<Words>& tensor_ins, int32_t out, uint64_t which) {
    using namespace graph;
    const auto& out_dims = std::get<Tensor>(g.values[size_t(out)]).dims;
    const auto& name = call.name;
    if (name == "aten.permute_copy.default") {
        const auto& in_dims = std::get<Tensor>(g.values[size_t(call.args[0])]).dims;
        const auto in_strides = detail::strides_of(in_dims);
        std::vector<int64_t> strides;
        for (int64_t d : std::get<IntList>(g.values[size_t(call.args[1])]).items) {
            strides.push_back(in_strides[size_t(detail::wrap(d, in_dims.size()))]);
        }
        return detail::gather(tensor_ins[0], out_dims, strides, 0);
    }
    if (name == "aten.select_copy.int") {
        const auto& in_dims = std::get<Tensor>(g.values[size_t(call.args[0])]).dims;
        const auto in_strides = detail::strides_of(in_dims);
        const auto dim = size_t(
            detail::wrap(std::get<Int>(g.values[size_t(call.args[1])]).value, in_dims.size()));
        int64_t index = std::get<Int>(g.values[size_t(call.args[2])]).value;
        if (index < 0) index += in_dims[dim];
        std::vector<int64_t> strides;
        for (size_t d = 0; d < in_dims.size(); ++d) {
            if (d != dim) strides.push_back(in_strides[d]);
        }
        return detail::gather(tensor_ins[0], out_dims, strides, index * in_strides[dim]);
    }
    if (name == "aten.split_with_sizes_copy.default" || name == "aten.split_copy.Tensor" ||
        name == "aten.slice_copy.Tensor") {
        // Piece `out` of the input along dim: same strides, starting at its first index.
        const bool slice = name == "aten.slice_copy.Tensor";
        const auto& in_dims = std::get<Tensor>(g.values[size_t(call.args[0])]).dims;
        const auto in_strides = detail::strides_of(in_dims);
        const auto dim = size_t(detail::wrap(
            std::get<Int>(g.values[size_t(call.args[slice ? 1 : 2])]).value, in_dims.size()));
        int64_t start = 0;
        if (slice) {
            if (const auto* s = std::get_if<Int>(&g.values[size_t(call.args[2])])) {
                start = std::clamp<int64_t>(s->value < 0 ? s->value + in_dims[dim] : s->value, 0,
                                            in_dims[dim]);
            }
            std::vector<int64_t> strides = in_strides;
            strides[dim] *= std::get<Int>(g.values[size_t(call.args[4])]).value;
            return detail::gather(tensor_ins[0], out_dims, strides, start * in_strides[dim]);
        }
        // The pieces before `out` in the output list come first.
        for (int32_t item : std::get<ValueList>(g.values[size_t(call.args[3])]).items) {
            if (item == out) break;
            if (item >= 0) start += std::get<Tensor>(g.values[size_t(item)]).dims[dim];
        }
        return detail::gather(tensor_ins[0], out_dims, in_strides, start * in_strides[dim]);
    }
    if (name == "aten.expand_copy.default") {
        // Broadcast: a size-1 input dim (or a missing leading one) repeats with stride 0.
        const auto& in_dims = std::get<Tensor>(g.values[size_t(call.args[0])]).dims;
        const auto in_strides = detail::strides_of(in_dims);
        std::vector<int64_t> strides(out_dims.size(), 0);
        const size_t lead = out_dims.size() - in_dims.size();
        for (size_t d = 0; d < in_dims.size(); ++d) {
            strides[lead + d] = in_dims[d] == 1 ? 0 : in_strides[d];
        }
        return detail::gather(tensor_ins[0], out_dims, strides, 0);
    }
    uint64_t n = 1;
    for (int64_t d : out_dims) n *= uint64_t(d);
    const bool copies = name == "aten.view_copy.default" || name == "aten.squeeze_copy.dims" ||
                        name == "aten.unsqueeze_copy.default" ||
                        name == "aten.alias_copy.default" || name == "aten.clone.default" ||
                        name == "dim_order_ops._clone_dim_order.default";
    Words result(n);
    for (size_t k = 0; k < n; ++k) {
        if (copies) {
            result[k] = tensor_ins[0].at(k);
            continue;
        }
        uint64_t h = 1469598103934665603ull ^ (call.debug_handle * 7919ull + which);
        for (const Words& in : tensor_ins) h = (h ^ in[k % in.size()]) * 1099511628211ull;
        result[k] = h;
    }
    return result;
}

inline std::vector<Words> simulate(const graph::Graph& g, const std::vector<Words>& inputs,
                                   bool pooled) {
    std::map<int32_t, Words> pools, own;
    // Where `id` starts in its storage: its alias offset when pooled.
    auto start = [&](int32_t id) { return pooled ? long(graph::alias_offset(g, id)) : 0L; };
    auto storage = [&](int32_t id) -> Words& {
        Words& w = pooled ? pools[pool_of(g, id)] : own[id];
        if (w.size() < size_t(start(id)) + numel_of(g, id)) {
            w.resize(size_t(start(id)) + numel_of(g, id), 0xdead);
        }
        return w;
    };
    auto read = [&](int32_t id) {
        Words& w = storage(id);
        return Words(w.begin() + start(id), w.begin() + start(id) + long(numel_of(g, id)));
    };
    for (size_t i = 0; i < g.input_ids.size(); ++i) {
        Words& w = storage(g.input_ids[i]);
        std::copy(inputs[i].begin(), inputs[i].end(), w.begin() + start(g.input_ids[i]));
    }
    for (const auto& call : g.chain) {
        std::vector<Words> ins;
        for (size_t a = 0; a + 1 < call.args.size(); ++a) {
            graph::for_each_arg_value(g, call.args[a], [&](int32_t id) {
                if (std::holds_alternative<graph::Tensor>(g.values[size_t(id)]))
                    ins.push_back(read(id));
            });
        }
        uint64_t which = 0;
        graph::for_each_arg_value(g, call.args.back(), [&](int32_t out) {
            const Words result = run_call(g, call, ins, out, which++);
            Words& w = storage(out);
            std::copy(result.begin(), result.end(), w.begin() + start(out));
        });
    }
    std::vector<Words> outs;
    for (int32_t id : g.output_ids) outs.push_back(read(id));
    return outs;
}

inline std::vector<Words> some_inputs(const graph::Graph& g, uint64_t seed) {
    std::vector<Words> ins;
    for (int32_t id : g.input_ids) {
        Words w(numel_of(g, id));
        for (auto& x : w) x = seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        ins.push_back(w);
    }
    return ins;
}

// The graph before the passes (a buffer per value) and after passes + planner (pooled) agree.
inline void expect_same_results(const graph::Graph& before, const graph::Graph& after) {
    const auto ins = some_inputs(before, 42);
    EXPECT_EQ(simulate(before, ins, false), simulate(after, ins, true));
}

// alias_reshapes, then the planner, with the checks every result must pass (the graph checks
// before and after planning, pools of live values disjoint). Returns the calls aliased.
inline size_t alias_and_plan(graph::Graph& g) {
    const size_t n = graph::alias_reshapes(g);
    graph::check_graph(g, "test");
    graph::assign_memory_pools(g);
    graph::check_graph(g, "test");
    expect_pools_disjoint(g);
    return n;
}

// The end of a random graph: 1 to 3 of the last four values written become graph outputs
// (none that is a graph input).
inline void add_random_outputs(graph::Graph& g, const std::vector<int32_t>& written,
                               std::mt19937& rng) {
    for (int i = 0, n = 1 + int(rng() % 3); i < n; ++i) {
        const int32_t id =
            written[written.size() - 1 - rng() % std::min<size_t>(written.size(), 4)];
        if (std::find(g.output_ids.begin(), g.output_ids.end(), id) == g.output_ids.end() &&
            std::find(g.input_ids.begin(), g.input_ids.end(), id) == g.input_ids.end()) {
            g.output_ids.push_back(id);
        }
    }
}

// One random-graph trial: half the time `g` first gets a memory plan, as a file carries one;
// then `passes` runs (the passes under test, the planner and their checks) and the results
// must equal those of `g` as it was. Returns what `passes` returns.
template <typename Passes>
size_t passes_keep_results(graph::Graph& g, std::mt19937& rng, Passes passes) {
    const graph::Graph before = g;
    if (rng() % 2) graph::assign_memory_pools(g);  // as a file's own plan
    const size_t n = passes(g);
    expect_same_results(before, g);
    return n;
}

// `g` fails graph_check with a message containing `words`, and the memory planner refuses it
// too (the alias rules both enforce).
inline void expect_rejected(const graph::Graph& g, const std::string& words) {
    try {
        graph::check_graph(g, "test");
        ADD_FAILURE() << "accepted; expected: " << words;
    } catch (const LoadError& e) {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
    graph::Graph copy = g;
    EXPECT_THROW(graph::assign_memory_pools(copy), LoadError);
}

}  // namespace wgx::test
