#include "runtime/record_program.h"

#include <fmt/format.h>

#include <algorithm>

#include "graph/graph.h"
#include "graph/schema/size_rules.h"

namespace wgx::runtime {
namespace {

class OpArgs {
  public:
    OpArgs(const graph::Graph& graph, RunTensors& tensors) : graph_(graph), tensors_(tensors) {}

    Arg arg(int32_t id) {
        if (id < 0) return Arg();
        const graph::Value& v = graph_.values[id];
        if (std::holds_alternative<graph::Tensor>(v)) {
            // A tensor with no elements (e.g. batch norm's unused statistics) is passed as
            // absent: nothing reads or writes it.
            for (int64_t d : tensors_.sizes().dims[id]) {
                if (d == 0) return Arg();
            }
            return tensors_[id];
        }
        if (std::holds_alternative<graph::Int>(v) || std::holds_alternative<graph::SymInt>(v)) {
            return tensors_.sizes().ints[id];
        }
        if (const auto* x = std::get_if<graph::Double>(&v)) return x->value;
        if (const auto* x = std::get_if<graph::Bool>(&v)) return x->value;
        if (const auto* x = std::get_if<graph::String>(&v)) return x->value;
        if (const auto* x = std::get_if<graph::IntList>(&v)) return x->items;
        if (const auto* x = std::get_if<graph::DoubleList>(&v)) return x->items;
        if (const auto* x = std::get_if<graph::BoolList>(&v)) return x->items;
        if (const auto* x = std::get_if<graph::ValueList>(&v)) return list_arg(id, *x);
        return Arg();  // Null
    }

  private:
    [[noreturn]] void fail(const std::string& message) const {
        throw LoadError(fmt::format("{}: {}", graph_.origin, message));
    }

    // A ValueList is a list of tensors (cat's inputs; -1 for an absent one) or of ints mixed
    // with SymInts.
    Arg list_arg(int32_t id, const graph::ValueList& list) {
        // An empty list says nothing about its kind; Args accepts it as either.
        if (list.items.empty()) return std::vector<int64_t>{};
        bool all_tensors = true, all_ints = true;
        for (int32_t item : list.items) {
            const graph::Value* v = item >= 0 ? &graph_.values[item] : nullptr;
            bool is_tensor = v == nullptr || std::holds_alternative<graph::Tensor>(*v);
            bool is_int = v != nullptr && (std::holds_alternative<graph::Int>(*v) ||
                                           std::holds_alternative<graph::SymInt>(*v));
            all_tensors &= is_tensor;
            all_ints &= is_int;
        }
        if (all_tensors) {
            Arg::TensorList tensors;
            for (int32_t item : list.items) {
                Arg a = arg(item);
                const auto* t = std::get_if<Tensor>(&a.value());
                tensors.push_back(t ? std::optional<Tensor>(*t) : std::nullopt);
            }
            return tensors;
        }
        if (all_ints) {
            std::vector<int64_t> ints;
            for (int32_t item : list.items) ints.push_back(tensors_.sizes().ints[item]);
            return ints;
        }
        fail(fmt::format("value list {} mixes tensors and scalars.", id));
    }

    const graph::Graph& graph_;
    RunTensors& tensors_;
};

}  // namespace

std::vector<uint32_t> record_ops(const Program& program, RunTensors& tensors,
                                 RecordingState& recording, bool live_symints) {
    const graph::Graph& graph = program.graph();
    OpArgs op_args(graph, tensors);
    std::vector<uint32_t> baked, slots;
    for (size_t index = 0; index < graph.chain.size(); ++index) {
        const graph::OpCall& call = graph.chain[index];
        if (graph::is_host_op(call.name)) continue;
        const Op* op = program.find_op(call.name);
        if (op == nullptr) {
            throw LoadError(fmt::format("{}: op {} ({}) has no implementation.", graph.origin,
                                        index, call.name));
        }
        std::vector<Arg> args;
        args.reserve(call.args.size());
        slots.assign(call.args.size(), LiveInt::kNone);
        for (size_t a = 0; a < call.args.size(); ++a) {
            const int32_t id = call.args[a];
            args.push_back(op_args.arg(id));
            if (live_symints && id >= 0 &&
                std::holds_alternative<graph::SymInt>(graph.values[id])) {
                slots[a] = static_cast<uint32_t>(id);
            } else if (live_symints && id >= 0) {
                // A list holding SymInts (a view's sizes) is read as plain values.
                if (const auto* list = std::get_if<graph::ValueList>(&graph.values[id])) {
                    for (int32_t item : list->items) {
                        if (item >= 0 &&
                            std::holds_alternative<graph::SymInt>(graph.values[item])) {
                            baked.push_back(static_cast<uint32_t>(item));
                        }
                    }
                }
            }
        }
        Recorder recorder(recording);
        recording.set_scope(fmt::format("#{} {}", index, call.name));
        struct EndOp {
            RecordingState& r;
            ~EndOp() {
                r.set_scope({});
                r.end_op();
            }
        } end_op{recording};
        BuiltinOpScope builtin(recording, op->builtin());
        try {
            op->record(recorder, Args(call.name, args, slots, &baked));
        } catch (const InvalidArgument& e) {
            throw LoadError(
                fmt::format("{}: op {} ({}): {}", graph.origin, index, call.name, e.what()));
        } catch (const GpuError& e) {
            throw GpuError(
                fmt::format("{}: op {} ({}): {}", graph.origin, index, call.name, e.what()));
        }
    }
    std::sort(baked.begin(), baked.end());
    baked.erase(std::unique(baked.begin(), baked.end()), baked.end());
    return baked;
}

}  // namespace wgx::runtime
