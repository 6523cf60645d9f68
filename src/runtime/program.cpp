// Program: load, check, plan memory, and make sure every op has an implementation.
#include "wgx/program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "graph/graph.h"
#include "graph/graph_check.h"
#include "graph/graph_summary.h"
#include "graph/load.h"
#include "graph/memory_plan.h"
#include "graph/passes/alias_reshapes.h"
#include "graph/passes/fold_prepack.h"
#include "graph/passes/fuse_all.h"
#include "graph/passes/run_in_float16.h"
#include "graph/run_sizes.h"
#include "graph/schema/size_rules.h"
#include "ops/registry.h"

namespace wgx {

struct Program::State {
    graph::Graph graph;
    std::vector<TensorInfo> inputs, outputs;
    std::vector<const Op*> extra_ops;
    bool float16 = false;
};

namespace {

TensorInfo info_of(const graph::Graph& g, int32_t id) {
    const auto& t = std::get<graph::Tensor>(g.values[id]);
    return TensorInfo{t.name, t.dtype, Shape(t.dims.begin(), t.dims.end()), t.dynamic_bound};
}

const Op* lookup(std::string_view name, const std::vector<const Op*>& extra) {
    for (const Op* op : extra) {
        if (op->name() == name) return op;
        for (std::string_view alias : op->aliases()) {
            if (alias == name) return op;
        }
    }
    return ops::find(name);
}

}  // namespace

Program Program::from_graph(graph::Graph graph, const ProgramOptions& options) {
    graph::check_graph(graph, graph.origin);
    graph::mark_dynamic_values(graph);
    graph::fold_prepack(graph);
    if (options.fuse) graph::run_fusion_passes(graph);
    auto state = std::make_shared<State>();
    state->extra_ops = options.extra_ops;
    if (options.float16) {
        state->float16 = true;
        graph::run_in_float16(graph, [&](std::string_view name) {
            const Op* op = lookup(name, state->extra_ops);
            return op != nullptr && op->accepts_float16();
        });
    }
    if (options.fuse) graph::alias_reshapes(graph);  // last: the other passes know no alias groups
    graph::plan_memory_pools(graph);

    // Every op must exist before anything touches the GPU: list all that are missing at once.
    std::vector<graph::OpCount> missing;
    for (const auto& count : graph::count_ops(graph)) {
        if (!graph::is_host_op(count.name) && !lookup(count.name, state->extra_ops)) {
            missing.push_back(count);
        }
    }
    if (!missing.empty()) {
        size_t calls = 0;
        for (const auto& m : missing) calls += m.count;
        throw LoadError(fmt::format("{}: {} op name(s) in {} call(s) are not supported: {}",
                                    graph.origin, missing.size(), calls,
                                    graph::op_counts_text(missing)));
    }
    for (int32_t id : graph.input_ids) {
        if (!std::holds_alternative<graph::Tensor>(graph.values[id])) {
            throw LoadError(fmt::format("{}: input value {} is not a tensor ({}).", graph.origin,
                                        id, graph::value_kind_name(graph.values[id])));
        }
        state->inputs.push_back(info_of(graph, id));
    }
    for (int32_t id : graph.output_ids) {
        if (!std::holds_alternative<graph::Tensor>(graph.values[id])) {
            throw LoadError(fmt::format("{}: output value {} is not a tensor ({}).", graph.origin,
                                        id, graph::value_kind_name(graph.values[id])));
        }
        state->outputs.push_back(info_of(graph, id));
    }
    state->graph = std::move(graph);
    Program p;
    p.state_ = std::move(state);
    return p;
}

Program Program::load(const std::filesystem::path& path, const ProgramOptions& options) {
    graph::LoadOptions load_options;
    load_options.method = options.method;
    load_options.ptd = options.data_file;
    return from_graph(graph::load_graph(path, load_options), options);
}

std::vector<std::string> Program::methods(const std::filesystem::path& path) {
    return graph::method_names(path);
}

std::vector<ConstantMethod> Program::constant_methods(const std::filesystem::path& path) {
    std::vector<ConstantMethod> out;
    for (const std::string& name : graph::method_names(path)) {
        graph::LoadOptions options;
        options.method = name;
        const graph::Graph g = graph::load_graph(path, options);
        if (!g.chain.empty() || !g.input_ids.empty()) continue;
        ConstantMethod m{name, {}};
        bool constant = true;
        for (int32_t id : g.output_ids) {
            const graph::Value& v = g.values[static_cast<size_t>(id)];
            if (const auto* x = std::get_if<graph::Int>(&v)) {
                m.values.emplace_back(x->value);
            } else if (const auto* x = std::get_if<graph::Double>(&v)) {
                m.values.emplace_back(x->value);
            } else if (const auto* x = std::get_if<graph::Bool>(&v)) {
                m.values.emplace_back(x->value);
            } else if (const auto* x = std::get_if<graph::String>(&v)) {
                m.values.emplace_back(x->value);
            } else if (const auto* x = std::get_if<graph::IntList>(&v)) {
                for (int64_t item : x->items) m.values.emplace_back(item);
            } else {
                constant = false;
            }
        }
        if (constant) out.push_back(std::move(m));
    }
    return out;
}

std::string constant_values_text(const std::vector<ConstantMethod::Value>& values) {
    std::vector<std::string> items;
    for (const auto& v : values) {
        std::visit(
            [&](const auto& x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, bool>) {
                    items.push_back(x ? "true" : "false");
                } else if constexpr (std::is_same_v<T, std::string>) {
                    items.push_back("\"" + x + "\"");
                } else {
                    items.push_back(fmt::format("{}", x));
                }
            },
            v);
    }
    if (items.size() == 1) return items[0];
    return fmt::format("[{}]", fmt::join(items, ", "));
}

const std::vector<TensorInfo>& Program::inputs() const { return state_->inputs; }
const std::vector<TensorInfo>& Program::outputs() const { return state_->outputs; }
const std::string& Program::origin() const { return state_->graph.origin; }
const graph::Graph& Program::graph() const { return state_->graph; }

std::vector<OpCount> Program::op_counts() const {
    std::vector<OpCount> out;
    for (const auto& c : graph::count_ops(state_->graph)) out.push_back({c.name, c.count});
    return out;
}

bool Program::float16() const { return state_->float16; }

const Op* Program::find_op(std::string_view name) const { return lookup(name, state_->extra_ops); }

}  // namespace wgx
