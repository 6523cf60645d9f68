#include "graph/lower.h"

#include "graph/schema/in_place.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "graph/graph_check.h"
#include "graph/pte/kernel_names.h"
#include "graph/pte/plan_values.h"
#include "graph/util/budget.h"
#include "graph/util/text.h"
#include "graph/vkgraph/vkgraph_reader.h"

namespace wgx::graph {

namespace fb = executorch_flatbuffer;

namespace {

// The delegate id of payloads that carry a VkGraph (shared by the Vulkan and WebGPU backends).
constexpr std::string_view kVulkanBackend = "VulkanBackend";

std::string shape_text(const Tensor& tensor) {
    return cat(dtype_name(tensor.dtype), " ", list_text(tensor.dims));
}

class PlanLowering {
  public:
    PlanLowering(const PteFile& file, const fb::ExecutionPlan& plan, const NamedDataSources& named)
        : file_(file),
          plan_(plan),
          named_(named),
          method_(plan.name() ? plan.name()->str() : std::string()),
          budget_(file.name(), file.bytes_size()) {}

    Graph run() {
        const fb::Chain* chain = single_chain();
        const auto* instructions = chain ? chain->instructions() : nullptr;
        convert_plan_values(file_, plan_, named_, dynamic_ints(instructions), budget_, graph_);
        plan_value_count_ = static_cast<int32_t>(graph_.values.size());
        next_pool_id_ = 0;

        graph_.input_ids = plan_ids(plan_.inputs(), "method input");
        if (instructions) {
            for (uint32_t index = 0; index < instructions->size(); ++index) {
                lower_instruction(*instructions->Get(index), index);
            }
        }
        graph_.output_ids = plan_ids(plan_.outputs(), "method output");
        for (int32_t& id : graph_.output_ids) id = resolve(id);
        insert_view_copies();

        graph_.storage = file_.storage();
        graph_.origin = cat(file_.name(), ": method ", method_);
        check_graph(graph_, cat(file_.name(), " (method '", method_, "')"));
        return std::move(graph_);
    }

  private:
    [[noreturn]] void error(const std::string& what) const {
        fail(file_.name(), cat("method '", method_, "': ", what));
    }

    const fb::Chain* single_chain() const {
        const auto* chains = plan_.chains();
        if (!chains || chains->size() == 0) return nullptr;
        if (chains->size() != 1) {
            error(cat("has ", chains->size(), " chains; only single-chain methods are supported"));
        }
        return chains->Get(0);
    }

    // Int values that change at run time: the output (last arg) of a kernel call, and Int
    // method inputs. Everything else of type Int is a constant.
    std::set<int32_t> dynamic_ints(
        const flatbuffers::Vector<flatbuffers::Offset<fb::Instruction>>* instructions) const {
        std::set<int32_t> ids;
        if (instructions) {
            for (const fb::Instruction* instruction : *instructions) {
                const fb::KernelCall* call = instruction->instr_args_as_KernelCall();
                if (call && call->args() && call->args()->size() > 0) {
                    ids.insert(call->args()->Get(call->args()->size() - 1));
                }
            }
        }
        if (plan_.inputs()) ids.insert(plan_.inputs()->begin(), plan_.inputs()->end());
        return ids;
    }

    std::vector<int32_t> plan_ids(const flatbuffers::Vector<int32_t>* ids, const char* what) {
        std::vector<int32_t> result;
        if (!ids) return result;
        budget_.charge(ids->size(), what);
        for (uint32_t i = 0; i < ids->size(); ++i) {
            result.push_back(plan_id(ids->Get(i), cat(what, " ", i)));
        }
        return result;
    }

    int32_t plan_id(int64_t id, const std::string& what) const {
        if (id < 0 || id >= plan_value_count_) {
            error(cat(what, " refers to value ", id, " but the plan has ", plan_value_count_,
                      " values"));
        }
        return static_cast<int32_t>(id);
    }

    int32_t resolve(int32_t id) const {
        auto it = moved_.find(id);
        return it == moved_.end() ? id : it->second;
    }

    std::vector<int32_t> call_args(const flatbuffers::Vector<int32_t>* args,
                                   const std::string& what) {
        std::vector<int32_t> result;
        if (!args) return result;
        budget_.charge(args->size(), "op arguments");
        for (uint32_t i = 0; i < args->size(); ++i) {
            result.push_back(resolve(plan_id(args->Get(i), cat(what, " argument ", i))));
        }
        return result;
    }

    void lower_instruction(const fb::Instruction& instruction, uint32_t index) {
        const std::string where = cat("instruction ", index);
        switch (instruction.instr_args_type()) {
            case fb::InstructionArguments::KernelCall:
                if (auto* call = instruction.instr_args_as_KernelCall()) {
                    return lower_kernel_call(*call, index);
                }
                break;
            case fb::InstructionArguments::DelegateCall:
                if (auto* call = instruction.instr_args_as_DelegateCall()) {
                    return lower_delegate_call(*call, index);
                }
                break;
            case fb::InstructionArguments::MoveCall:
                if (auto* call = instruction.instr_args_as_MoveCall()) {
                    const int32_t from =
                        resolve(plan_id(call->move_from(), where + " move source"));
                    moved_[plan_id(call->move_to(), where + " move destination")] = from;
                    return;
                }
                break;
            case fb::InstructionArguments::FreeCall:
                if (auto* call = instruction.instr_args_as_FreeCall()) {
                    plan_id(call->value_index(), where + " (free)");
                    return;
                }
                break;
            case fb::InstructionArguments::JumpFalseCall:
                error(cat(where, " is a JumpFalseCall: control flow is not supported"));
            default:
                error(cat(where, " has unknown instruction type ",
                          static_cast<int>(instruction.instr_args_type())));
        }
        error(cat(where, " (", fb::EnumNameInstructionArguments(instruction.instr_args_type()),
                  ") has no body"));
    }

    void lower_kernel_call(const fb::KernelCall& call, uint32_t index) {
        const auto* operators = plan_.operators();
        const int64_t operator_count = operators ? operators->size() : 0;
        if (call.op_index() < 0 || call.op_index() >= operator_count) {
            error(cat("instruction ", index, " calls operator ", call.op_index(),
                      " but the plan has ", operator_count, " operators"));
        }
        const fb::Operator* op = operators->Get(static_cast<uint32_t>(call.op_index()));
        if (!op->name()) error(cat("operator ", call.op_index(), " has no name"));
        const std::string kernel = op->name()->str();
        const std::string overload = op->overload() ? op->overload()->str() : std::string();
        const FunctionalOp functional = functional_op(kernel, overload);
        budget_.charge(functional.name.size(), "op names");

        const std::string what = cat("instruction ", index, " (", kernel, ".", overload, ")");
        OpCall out;
        out.name = functional.name;
        out.debug_handle = index;
        out.args = call_args(call.args(), what);
        const bool packed = drop_return_slot(out.args);

        if (functional.null_count > 0) {
            if (out.args.size() < static_cast<size_t>(functional.null_position)) {
                error(cat(what, " has ", out.args.size(), " args, expected at least ",
                          functional.null_position));
            }
            out.args.insert(out.args.begin() + functional.null_position,
                            static_cast<size_t>(functional.null_count), null_value());
        }
        if (functional.output_count > 1 && !packed) {
            // No return list to reuse: pack the trailing out args into one.
            const auto outputs = static_cast<size_t>(functional.output_count);
            if (out.args.size() < outputs) {
                error(cat(what, " has ", out.args.size(), " args, expected at least ", outputs,
                          " outputs"));
            }
            ValueList list;
            list.items.assign(out.args.end() - static_cast<std::ptrdiff_t>(outputs),
                              out.args.end());
            out.args.resize(out.args.size() - outputs);
            out.args.push_back(add_value(std::move(list)));
        }
        graph_.chain.push_back(std::move(out));
    }

    // ExecuTorch appends the kernel's return value after the schema args (out args included):
    // the out tensor again for one output, a TensorList of the out tensors for several. The
    // VkGraph convention has outputs last exactly once, as one list when there are several, so
    // the duplicate goes, and for several outputs the list replaces the individual out args.
    // Returns true when the outputs are now one list.
    bool drop_return_slot(std::vector<int32_t>& args) const {
        if (args.size() >= 2 && args[args.size() - 1] == args[args.size() - 2]) {
            args.pop_back();
            return false;
        }
        if (args.empty()) return false;
        // A kernel whose out argument is a list (split) returns an equal list as a separate value.
        if (args.size() >= 2) {
            const auto* last =
                std::get_if<ValueList>(&graph_.values[static_cast<size_t>(args.back())]);
            const auto* prev =
                std::get_if<ValueList>(&graph_.values[static_cast<size_t>(args[args.size() - 2])]);
            if (last && prev && !last->items.empty() && last->items == prev->items) {
                args.pop_back();
                return true;
            }
        }
        // Out args are always last, so a trailing None can only be the return slot of a kernel
        // that returns nothing (its outputs are out args, e.g. a list of tensors).
        if (args.size() >= 2 && std::holds_alternative<Null>(graph_.values[args.back()])) {
            args.pop_back();
            return false;
        }
        const auto* list = std::get_if<ValueList>(&graph_.values[static_cast<size_t>(args.back())]);
        if (!list || list->items.empty() || list->items.size() >= args.size()) return false;
        const auto first = args.end() - 1 - static_cast<std::ptrdiff_t>(list->items.size());
        if (!std::equal(list->items.begin(), list->items.end(), first)) return false;
        args.erase(first, args.end() - 1);
        return true;
    }

    // Plain programs express views by aliasing: the view's tensor is written by no instruction
    // and shares its planned memory (memory id and offset) with its source. The Graph has no
    // aliasing, so each such tensor becomes an explicit aten.view_copy.default from the source,
    // placed just before its first reader.
    void insert_view_copies() {
        using Location = std::pair<uint32_t, uint64_t>;
        std::map<int32_t, Location> location;
        const auto* values = plan_.values();
        for (int32_t id = 0; values && id < plan_value_count_; ++id) {
            const fb::EValue* value = values->Get(static_cast<uint32_t>(id));
            const fb::Tensor* tensor = value ? value->val_as_Tensor() : nullptr;
            if (!tensor || !tensor->allocation_info() || tensor->data_buffer_idx() != 0) continue;
            const fb::AllocationDetails* a = tensor->allocation_info();
            location[id] = {a->memory_id(), uint64_t{a->memory_offset_low()} |
                                                (uint64_t{a->memory_offset_high()} << 32)};
        }
        if (location.empty()) return;

        std::set<int32_t> written(graph_.input_ids.begin(), graph_.input_ids.end());
        std::map<Location, int32_t> latest;  // the last tensor written at each location
        // Zero-size tensors (e.g. batch norm's unused save_mean) may share a location with a
        // real one; they hold no bytes and must not hide the tensor stored there.
        auto mark_written = [&](int32_t id) {
            written.insert(id);
            const auto* t = std::get_if<Tensor>(&graph_.values[static_cast<size_t>(id)]);
            if (t && host_nbytes(*t) == 0) return;
            if (auto it = location.find(id); it != location.end()) latest[it->second] = id;
        };
        for (int32_t id : graph_.input_ids) mark_written(id);
        std::vector<OpCall> chain;
        auto ensure_written = [&](int32_t id) {
            const auto* tensor = std::get_if<Tensor>(&graph_.values[static_cast<size_t>(id)]);
            if (!tensor || tensor->constant_id >= 0 || written.count(id)) return;
            auto loc = location.find(id);
            if (loc == location.end()) return;
            if (host_nbytes(*tensor) == 0) return;
            // A tensor read before anything wrote it must be a view of the tensor stored at its
            // location; running on with unwritten memory would give silently wrong results.
            auto source = latest.find(loc->second);
            if (source == latest.end()) {
                error(cat("value ", id,
                          " is read before any instruction writes it (no tensor at its "
                          "memory location ",
                          loc->second.first, "+", loc->second.second, ")"));
            }
            const auto& from = std::get<Tensor>(graph_.values[static_cast<size_t>(source->second)]);
            if (host_nbytes(from) != host_nbytes(*tensor) || from.dtype != tensor->dtype) {
                error(cat("value ", id, " is read before any instruction writes it, and value ",
                          source->second,
                          " last written at its memory location differs in size "
                          "or dtype, so it is not a view of it"));
            }
            OpCall copy;
            copy.name = "aten.view_copy.default";
            copy.args = {source->second, add_value(IntList{tensor->dims}), id};
            chain.push_back(std::move(copy));
            mark_written(id);
        };
        auto for_each_tensor = [&](int32_t id, auto&& fn) {
            if (id < 0) return;
            if (const auto* list =
                    std::get_if<ValueList>(&graph_.values[static_cast<size_t>(id)])) {
                for (int32_t item : list->items) {
                    if (item >= 0) fn(item);
                }
            } else {
                fn(id);
            }
        };
        // A tensor some op writes in place (a KV cache, a recurrent state copied back at the
        // end) is state: what it holds comes from earlier runs, not from an earlier
        // instruction, so it counts as written from the start, even where it is read before
        // the op that writes it (schema/in_place.h).
        for (int32_t id : schema::state_values(graph_)) for_each_tensor(id, mark_written);
        for (OpCall& op : graph_.chain) {
            for (size_t a = 0; a + 1 < op.args.size(); ++a)
                for_each_tensor(op.args[a], ensure_written);
            const int32_t output = op.args.empty() ? -1 : op.args.back();
            chain.push_back(std::move(op));
            for_each_tensor(output, mark_written);
        }
        for (int32_t id : graph_.output_ids) ensure_written(id);
        graph_.chain = std::move(chain);
    }

    int32_t add_value(Value value) {
        graph_.values.push_back(std::move(value));
        return static_cast<int32_t>(graph_.values.size() - 1);
    }

    int32_t null_value() {
        if (null_id_ < 0) null_id_ = add_value(Null{});
        return null_id_;
    }

    void lower_delegate_call(const fb::DelegateCall& call, uint32_t index) {
        const auto* delegates = plan_.delegates();
        const int64_t delegate_count = delegates ? delegates->size() : 0;
        if (call.delegate_index() < 0 || call.delegate_index() >= delegate_count) {
            error(cat("instruction ", index, " calls delegate ", call.delegate_index(),
                      " but the plan has ", delegate_count, " delegates"));
        }
        const fb::BackendDelegate* delegate =
            delegates->Get(static_cast<uint32_t>(call.delegate_index()));
        const std::string where = cat("method '", method_, "' delegate ", call.delegate_index(),
                                      " (instruction ", index, ")");
        const std::string id = delegate->id() ? delegate->id()->str() : std::string();
        if (id != kVulkanBackend) {
            fail(file_.name(), cat(where, " is for backend '", id, "'; only '", kVulkanBackend,
                                   "' payloads (VkGraph) can run on wgx"));
        }
        const std::vector<int32_t> args = call_args(call.args(), where);
        const auto payload = file_.delegate_payload(*delegate, where);
        // Calling one large delegate many times would re-read it each time: charge its size.
        budget_.charge(payload.size() / 4, "delegate payloads");
        Graph sub = read_vkgraph(payload, named_, file_.name(), where);
        uint64_t size = sub.values.size();
        for (const OpCall& op : sub.chain) size += op.args.size() + 1;
        budget_.charge(size, "inlined delegate values");
        inline_subgraph(std::move(sub), args, where);
    }

    void inline_subgraph(Graph sub, const std::vector<int32_t>& args, const std::string& where) {
        const size_t expected = sub.input_ids.size() + sub.output_ids.size();
        if (args.size() != expected) {
            fail(file_.name(),
                 cat(where, " passes ", args.size(), " args but its VkGraph has ",
                     sub.input_ids.size(), " inputs and ", sub.output_ids.size(), " outputs"));
        }
        // Bind the VkGraph's inputs and outputs to the plan values given by the call. A VkGraph
        // value that is both an input and an output (the exporter removed an identity op) is
        // bound to the input; the output gets an explicit copy after the delegate's ops.
        std::map<int32_t, int32_t> bound;
        std::vector<std::pair<int32_t, int32_t>> output_copies;  // plan value from -> to
        // A float32 plan tensor that the VkGraph holds in float16 (--vulkan-force-fp16): the
        // delegate converts at its boundary, so the VkGraph value stays its own tensor with a
        // conversion before (input) or after (output) the delegate's ops.
        // Likewise a VkGraph tensor that is the plan tensor with size-1 dims added or removed
        // (the exporter fused a view_copy at the delegate's edge into a linear layer, whose
        // output keeps the input's rank): a squeeze or unsqueeze at the boundary (`reshape`).
        struct Conversion {
            bool is_input;
            int32_t sub_id, plan_id;
            std::optional<OpCall> reshape;  // with from / to filled in below
        };
        std::vector<Conversion> conversions;
        // A VkGraph output that is one of its constants (the exporter hands a prepacked scalar
        // back to the ops outside, as Swin's attention-mask code does): the constant keeps its
        // own value and is copied into the plan value after the delegate's ops.
        std::vector<std::pair<int32_t, int32_t>> constant_outputs;  // VkGraph value -> plan
        for (size_t i = 0; i < expected; ++i) {
            const bool is_input = i < sub.input_ids.size();
            const size_t position = is_input ? i : i - sub.input_ids.size();
            const int32_t sub_id = is_input ? sub.input_ids[position] : sub.output_ids[position];
            const std::string what = cat(where, (is_input ? " input " : " output "), position,
                                         " (VkGraph value ", sub_id, ", plan value ", args[i], ")");
            if (!is_input && sub_id >= 0 && static_cast<size_t>(sub_id) < sub.values.size()) {
                const auto* t = std::get_if<Tensor>(&sub.values[static_cast<size_t>(sub_id)]);
                if (t && t->constant_id >= 0) {
                    bind(sub.values[static_cast<size_t>(sub_id)], args[i], what);
                    constant_outputs.emplace_back(sub_id, args[i]);
                    continue;
                }
            }
            if (sub_id >= 0 && static_cast<size_t>(sub_id) < sub.values.size() &&
                !bound.count(sub_id) &&
                converts_at_boundary(sub.values[static_cast<size_t>(sub_id)], args[i])) {
                conversions.push_back({is_input, sub_id, args[i], std::nullopt});
                continue;
            }
            if (sub_id >= 0 && static_cast<size_t>(sub_id) < sub.values.size() &&
                !bound.count(sub_id)) {
                const Value& inner = sub.values[static_cast<size_t>(sub_id)];
                if (auto op = reshape_at_boundary(inner, args[i], is_input)) {
                    conversions.push_back({is_input, sub_id, args[i], std::move(op)});
                    continue;
                }
            }
            auto [it, inserted] = bound.emplace(sub_id, args[i]);
            if (!inserted && it->second != args[i] && !is_input &&
                std::holds_alternative<Tensor>(sub.values[static_cast<size_t>(sub_id)])) {
                bind(sub.values[static_cast<size_t>(sub_id)], args[i], what);
                output_copies.emplace_back(it->second, args[i]);
                continue;
            }
            if (!inserted && it->second != args[i]) {
                fail(file_.name(),
                     cat(what, ": the VkGraph value is already bound to plan value ", it->second,
                         "; aliased delegate inputs/outputs are not supported"));
            }
            bind(sub.values[static_cast<size_t>(sub_id)], args[i], what);
        }

        if (graph_.values.size() + sub.values.size() > kMaxValues) {
            fail(file_.name(), cat(where, ": the graph would exceed ", kMaxValues, " values"));
        }
        // New ids for every other value; shift constant and pool ids past the ones in use.
        std::vector<int32_t> remap(sub.values.size(), -1);
        int32_t next_id = static_cast<int32_t>(graph_.values.size());
        for (size_t id = 0; id < sub.values.size(); ++id) {
            auto it = bound.find(static_cast<int32_t>(id));
            remap[id] = it != bound.end() ? it->second : next_id++;
        }
        const auto constant_base = static_cast<int32_t>(graph_.constants.size());
        const int32_t pool_base = next_pool_id_;
        for (size_t id = 0; id < sub.values.size(); ++id) {
            if (bound.count(static_cast<int32_t>(id))) continue;
            Value value = std::move(sub.values[id]);
            if (auto* tensor = std::get_if<Tensor>(&value)) {
                if (tensor->constant_id >= 0) tensor->constant_id += constant_base;
                if (tensor->mem_obj_id >= 0) {
                    // Both terms are at most kMaxPoolId (checked graphs), so no overflow.
                    const int64_t pool = int64_t{tensor->mem_obj_id} + pool_base;
                    if (pool > kMaxPoolId) {
                        fail(file_.name(), cat(where, ": memory pool ids exceed ", kMaxPoolId,
                                               " after renumbering"));
                    }
                    tensor->mem_obj_id = static_cast<int32_t>(pool);
                    next_pool_id_ = std::max(next_pool_id_, tensor->mem_obj_id + 1);
                }
            } else if (auto* list = std::get_if<ValueList>(&value)) {
                for (int32_t& item : list->items) {
                    if (item >= 0) item = remap[static_cast<size_t>(item)];
                }
            }
            graph_.values.push_back(std::move(value));
        }
        for (Constant& constant : sub.constants) graph_.constants.push_back(std::move(constant));
        for (const Conversion& c : conversions) {
            if (c.is_input) graph_.chain.push_back(boundary_op(c, c.plan_id, remap[c.sub_id]));
        }
        for (OpCall& op : sub.chain) {
            for (int32_t& arg : op.args) arg = remap[static_cast<size_t>(arg)];
            graph_.chain.push_back(std::move(op));
        }
        for (const Conversion& c : conversions) {
            if (!c.is_input) graph_.chain.push_back(boundary_op(c, remap[c.sub_id], c.plan_id));
        }
        for (const auto& [sub_id, plan_id] : constant_outputs) {
            output_copies.emplace_back(remap[static_cast<size_t>(sub_id)], plan_id);
        }
        for (const auto& [from, to] : output_copies) {
            const auto& dims = std::get<Tensor>(graph_.values[static_cast<size_t>(to)]).dims;
            OpCall copy;
            copy.name = "aten.view_copy.default";
            copy.args = {from, add_value(IntList{dims}), to};
            graph_.chain.push_back(std::move(copy));
        }
    }

    // Whether a VkGraph input/output tensor is a float16 copy of a float32 plan tensor of the
    // same sizes (or the reverse), which the delegate converts at its boundary.
    bool converts_at_boundary(const Value& inner, int32_t plan_id) const {
        const auto* a = std::get_if<Tensor>(&inner);
        const auto* b = std::get_if<Tensor>(&graph_.values[static_cast<size_t>(plan_id)]);
        if (!a || !b || a->dims != b->dims || a->constant_id >= 0) return false;
        const bool float_pair = (a->dtype == DType::f16 && b->dtype == DType::f32) ||
                                (a->dtype == DType::f32 && b->dtype == DType::f16);
        return float_pair;
    }

    static OpCall boundary_conversion(int32_t from, int32_t to) {
        OpCall convert;
        convert.name = "aten._to_copy.default";
        convert.args = {from, to};
        return convert;
    }

    // The op that carries a boundary value from `from` to `to`: its conversion, or its reshape
    // (whose args hold -1 where from and to go).
    template <typename C>
    static OpCall boundary_op(const C& c, int32_t from, int32_t to) {
        if (!c.reshape) return boundary_conversion(from, to);
        OpCall op = *c.reshape;
        for (int32_t& a : op.args) a = a == kFromSlot ? from : a == kToSlot ? to : a;
        return op;
    }
    static constexpr int32_t kFromSlot = -1000, kToSlot = -1001;

    // The squeeze (from has more dims) or unsqueeze (one dim fewer) that turns the boundary
    // value's source tensor into its destination, when the two are the same dtype and the same
    // dims but for size-1 ones; nullopt otherwise. An input goes plan -> VkGraph, an output
    // VkGraph -> plan.
    std::optional<OpCall> reshape_at_boundary(const Value& inner, int32_t plan_id, bool is_input) {
        const auto* a = std::get_if<Tensor>(&inner);
        const auto* b = std::get_if<Tensor>(&graph_.values[static_cast<size_t>(plan_id)]);
        if (!a || !b || a->constant_id >= 0 || a->dims.size() == b->dims.size()) return {};
        if (a->dtype != b->dtype && a->dtype != storage_dtype(b->dtype)) return {};
        const Tensor& from = is_input ? *b : *a;
        const Tensor& to = is_input ? *a : *b;
        const bool squeeze = from.dims.size() > to.dims.size();
        const auto& longer = squeeze ? from.dims : to.dims;
        const auto& shorter = squeeze ? to.dims : from.dims;
        // The positions of `longer` that `shorter` lacks: size-1 dims, matched greedily.
        std::vector<int64_t> extra;
        size_t j = 0;
        for (size_t i = 0; i < longer.size(); ++i) {
            if (j < shorter.size() && longer[i] == shorter[j]) {
                ++j;
            } else if (longer[i] == 1) {
                extra.push_back(static_cast<int64_t>(i));
            } else {
                return {};
            }
        }
        if (j != shorter.size() || (!squeeze && extra.size() != 1)) return {};
        OpCall op;
        if (squeeze) {
            op.name = "aten.squeeze_copy.dims";
            op.args = {kFromSlot, add_value(IntList{extra}), kToSlot};
        } else {
            op.name = "aten.unsqueeze_copy.default";
            op.args = {kFromSlot, add_value(Int{extra[0]}), kToSlot};
        }
        return op;
    }

    // Checks that a VkGraph input/output value agrees with the plan value it stands for.
    void bind(const Value& inner, int32_t plan_id, const std::string& what) {
        Value& outer = graph_.values[static_cast<size_t>(plan_id)];
        if (const auto* inner_tensor = std::get_if<Tensor>(&inner)) {
            const auto* outer_tensor = std::get_if<Tensor>(&outer);
            if (!outer_tensor) {
                fail(file_.name(),
                     cat(what, ": the VkGraph value is a tensor but the plan value is ",
                         value_kind_name(outer)));
            }
            // Vulkan export narrows 64-bit types (downcast_64_bit), so an int64 plan tensor
            // may be int32 inside; the engine stores both the same way.
            const bool dtype_ok = inner_tensor->dtype == outer_tensor->dtype ||
                                  inner_tensor->dtype == storage_dtype(outer_tensor->dtype);
            if (!dtype_ok || inner_tensor->dims != outer_tensor->dims) {
                fail(file_.name(), cat(what, ": VkGraph tensor is ", shape_text(*inner_tensor),
                                       " but the plan tensor is ", shape_text(*outer_tensor)));
            }
            return;
        }
        const bool inner_int =
            std::holds_alternative<Int>(inner) || std::holds_alternative<SymInt>(inner);
        const bool outer_int =
            std::holds_alternative<Int>(outer) || std::holds_alternative<SymInt>(outer);
        if (inner_int && outer_int) {
            // The delegate reads it as a live scalar: keep that meaning.
            if (const auto* plain = std::get_if<Int>(&outer);
                plain && std::holds_alternative<SymInt>(inner)) {
                outer = SymInt{plain->value};
            }
            return;
        }
        if (inner.index() != outer.index()) {
            fail(file_.name(), cat(what, ": the VkGraph value is ", value_kind_name(inner),
                                   " but the plan value is ", value_kind_name(outer)));
        }
    }

    const PteFile& file_;
    const fb::ExecutionPlan& plan_;
    const NamedDataSources& named_;
    std::string method_;
    Budget budget_;
    Graph graph_;
    int32_t plan_value_count_ = 0;
    int32_t next_pool_id_ = 0;
    int32_t null_id_ = -1;
    std::map<int32_t, int32_t> moved_;
};

}  // namespace

Graph lower_method(const PteFile& file, std::string_view method, const NamedDataMap* external,
                   SharedBytes external_bytes) {
    NamedDataSources named{&file.named_data(), external};
    Graph graph = PlanLowering(file, file.plan(method), named).run();
    if (external_bytes) graph.storage.push_back(std::move(external_bytes));
    return graph;
}

}  // namespace wgx::graph
