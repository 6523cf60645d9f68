// Turns a Program into recorded GPU work in a Context: one buffer per memory pool, constants
// uploaded once, every op prepared, inputs copied in and outputs copied out.
#include <fmt/format.h>

#include <map>

#include "core/context_state.h"
#include "graph/graph.h"
#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "wgx/context.h"

namespace wgx {
namespace {

std::string describe_tensor(DType dtype, const Shape& shape) {
    return fmt::format("{} {}", dtype_name(dtype), shape_string(shape));
}

// Everything one recording of a program needs, built once.
class ProgramRecorder {
  public:
    ProgramRecorder(ContextState& ctx, const Program& program)
        : ctx_(ctx), program_(program), graph_(program.graph()) {}

    void record(std::span<const Tensor> io) {
        check_io(io);
        const DeviceInfo& device = ctx_.device().info();
        if (program_.float16() && !device.features.shader_f16) {
            throw InvalidArgument(fmt::format(
                "{}: the program was loaded to run in float16, but adapter {} lacks shader-f16.",
                graph_.origin, device.adapter.name));
        }
        allocate_pools();
        tensors_.resize(graph_.values.size());
        for (size_t i = 0; i < graph_.input_ids.size(); ++i) {
            ctx_.recording().add_copy(io[i], tensor(graph_.input_ids[i]));
        }
        for (size_t i = 0; i < graph_.chain.size(); ++i) record_op(i);
        for (size_t i = 0; i < graph_.output_ids.size(); ++i) {
            ctx_.recording().add_copy(tensor(graph_.output_ids[i]),
                                      io[graph_.input_ids.size() + i]);
        }
    }

  private:
    [[noreturn]] void fail(const std::string& message) const {
        throw LoadError(fmt::format("{}: {}", graph_.origin, message));
    }

    void check_io(std::span<const Tensor> io) const {
        const auto& ins = program_.inputs();
        const auto& outs = program_.outputs();
        if (io.size() != ins.size() + outs.size()) {
            throw InvalidArgument(fmt::format(
                "{}: expected {} tensors ({} inputs then {} outputs), got {}.", graph_.origin,
                ins.size() + outs.size(), ins.size(), outs.size(), io.size()));
        }
        for (size_t i = 0; i < io.size(); ++i) {
            bool is_input = i < ins.size();
            const TensorInfo& want = is_input ? ins[i] : outs[i - ins.size()];
            std::string which =
                is_input ? fmt::format("input {}", i) : fmt::format("output {}", i - ins.size());
            const Tensor& got = io[i];
            if (!got.defined()) {
                throw InvalidArgument(
                    fmt::format("{}: {} is an empty tensor.", graph_.origin, which));
            }
            if (got.impl().ctx.get() != &ctx_) {
                throw InvalidArgument(
                    fmt::format("{}: {} belongs to another context.", graph_.origin, which));
            }
            bool beyond_bound = false;
            if (want.dynamic_bound && got.shape().size() == want.shape.size()) {
                for (size_t d = 0; d < want.shape.size(); ++d) {
                    beyond_bound |= got.shape()[d] > want.shape[d];
                }
            }
            if (beyond_bound) {
                throw InvalidArgument(fmt::format(
                    "{}: {} has shape {}, beyond the upper bound {} the program was exported with.",
                    graph_.origin, which, shape_string(got.shape()), shape_string(want.shape)));
            }
            if (got.dtype() != want.dtype || got.shape() != want.shape) {
                throw InvalidArgument(fmt::format(
                    "{}: {} is {}, the program expects {}{}.", graph_.origin, which,
                    describe_tensor(got.dtype(), got.shape()),
                    describe_tensor(want.dtype, want.shape),
                    want.dynamic_bound ? " (dynamic dims run at their upper bound)" : ""));
            }
        }
    }

    // One GPU buffer per pool, as large as the furthest end of a member. The members of an
    // alias group (a tensor, its reshapes and its contiguous chunks, graph.h) share one pool
    // id, so binding each tensor to its pool's buffer at its alias offset (0 for all but
    // chunks; always a multiple of 256 bytes, which every device accepts) with its own shape
    // makes them views of the same bytes; a member without a pool would silently get a buffer
    // of its own, hence the check.
    void allocate_pools() {
        for (size_t g = 0; g < graph_.alias_groups.size(); ++g) {
            for (int32_t id : graph_.alias_groups[g]) {
                if (std::get<graph::Tensor>(graph_.values[id]).mem_obj_id < 0) {
                    fail(fmt::format("alias group {}: value {} has no memory pool.", g, id));
                }
            }
        }
        std::map<int32_t, uint64_t> sizes;
        for (const auto& v : graph_.values) {
            const auto* t = std::get_if<graph::Tensor>(&v);
            if (t == nullptr || t->constant_id >= 0 || t->mem_obj_id < 0) continue;
            const uint64_t bytes =
                graph::device_end(graph_, static_cast<int32_t>(&v - graph_.values.data()));
            uint64_t& s = sizes[t->mem_obj_id];
            s = std::max(s, (bytes + 3) / 4 * 4);
        }
        for (const auto& [id, bytes] : sizes) {
            pools_[id] = ctx_.allocate(bytes, fmt::format("pool {}", id));
        }
    }

    const Tensor& tensor(int32_t id) {
        if (tensors_[id].defined()) return tensors_[id];
        const auto& t = std::get<graph::Tensor>(graph_.values[id]);
        Shape shape(t.dims.begin(), t.dims.end());
        if (t.constant_id >= 0) {
            const auto& c = graph_.constants[t.constant_id];
            auto buffer =
                ctx_.allocate(graph::host_nbytes(t) / host_size(t.dtype) * device_size(t.dtype),
                              fmt::format("constant {}", t.constant_id));
            tensors_[id] = ctx_.make_tensor(std::move(buffer), 0, t.dtype, shape);
            try {
                tensors_[id].set_bytes(std::as_bytes(c.bytes));
            } catch (const InvalidArgument& e) {
                fail(fmt::format("constant {} (value {}, {}): {}", t.constant_id, id, c.key,
                                 e.what()));
            }
        } else if (t.mem_obj_id >= 0) {
            const uint64_t offset = graph::alias_offset(graph_, id) * device_size(t.dtype);
            tensors_[id] = ctx_.make_tensor(pools_.at(t.mem_obj_id), offset, t.dtype, shape);
        } else {
            uint64_t bytes = graph::host_nbytes(t) / host_size(t.dtype) * device_size(t.dtype);
            tensors_[id] = ctx_.make_tensor(ctx_.allocate(bytes, fmt::format("value {}", id)), 0,
                                            t.dtype, shape);
        }
        return tensors_[id];
    }

    Arg arg(int32_t id) {
        if (id < 0) return Arg();
        const graph::Value& v = graph_.values[id];
        if (const auto* t = std::get_if<graph::Tensor>(&v)) {
            // A tensor with no elements (e.g. batch norm's unused statistics) is passed as
            // absent: nothing reads or writes it.
            for (int64_t d : t->dims) {
                if (d == 0) return Arg();
            }
            return tensor(id);
        }
        if (const auto* x = std::get_if<graph::Int>(&v)) return x->value;
        if (const auto* x = std::get_if<graph::SymInt>(&v)) return x->value;
        if (const auto* x = std::get_if<graph::Double>(&v)) return x->value;
        if (const auto* x = std::get_if<graph::Bool>(&v)) return x->value;
        if (const auto* x = std::get_if<graph::String>(&v)) return x->value;
        if (const auto* x = std::get_if<graph::IntList>(&v)) return x->items;
        if (const auto* x = std::get_if<graph::DoubleList>(&v)) return x->items;
        if (const auto* x = std::get_if<graph::BoolList>(&v)) return x->items;
        if (const auto* x = std::get_if<graph::ValueList>(&v)) return list_arg(id, *x);
        return Arg();  // Null
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
            for (int32_t item : list.items) {
                const auto& v = graph_.values[item];
                ints.push_back(std::holds_alternative<graph::Int>(v)
                                   ? std::get<graph::Int>(v).value
                                   : std::get<graph::SymInt>(v).value);
            }
            return ints;
        }
        fail(fmt::format("value list {} mixes tensors and scalars.", id));
    }

    void record_op(size_t index) {
        const graph::OpCall& call = graph_.chain[index];
        const Op* op = program_.find_op(call.name);
        if (op == nullptr) fail(fmt::format("op {} ({}) has no implementation.", index, call.name));
        std::vector<Arg> args;
        args.reserve(call.args.size());
        for (int32_t id : call.args) args.push_back(arg(id));
        Recorder recorder(ctx_.recording());
        ctx_.recording().set_scope(fmt::format("#{} {}", index, call.name));
        struct ClearScope {
            RecordingState& r;
            ~ClearScope() { r.set_scope({}); }
        } clear_scope{ctx_.recording()};
        BuiltinOpScope builtin(ctx_.recording(), op->builtin());
        try {
            op->record(recorder, Args(call.name, args));
        } catch (const InvalidArgument& e) {
            fail(fmt::format("op {} ({}): {}", index, call.name, e.what()));
        } catch (const GpuError& e) {
            throw GpuError(
                fmt::format("{}: op {} ({}): {}", graph_.origin, index, call.name, e.what()));
        }
    }

    ContextState& ctx_;
    const Program& program_;
    const graph::Graph& graph_;
    std::map<int32_t, std::shared_ptr<BufferRef>> pools_;
    std::vector<Tensor> tensors_;
};

}  // namespace

Context& Context::record(const Program& program, std::span<const Tensor> io) {
    state_->ensure_usable();
    size_t before = state_->recording().size();
    try {
        ProgramRecorder(*state_, program).record(io);
    } catch (...) {
        state_->recording().truncate(before);
        throw;
    }
    return *this;
}

Context& Context::record(const Program& program, std::initializer_list<Tensor> io) {
    return record(program, std::span<const Tensor>(io.begin(), io.end()));
}

}  // namespace wgx
