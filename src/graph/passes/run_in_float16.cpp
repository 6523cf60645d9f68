#include "graph/passes/run_in_float16.h"

#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "base/half.h"
#include "graph/passes/graph_uses.h"
#include "graph/schema/in_place.h"

namespace wgx::graph {
namespace {

constexpr const char* kConvert = "aten._to_copy.default";

bool has_elements(const Tensor& t) {
    for (int64_t d : t.dims) {
        if (d == 0) return false;
    }
    return true;
}

// The float32 tensors the pass deals with (zero-size ones are never bound, so they stay).
bool is_float32(const Graph& g, int32_t id) {
    const Tensor* t = tensor_at(g, id);
    return t && t->dtype == DType::f32 && has_elements(*t);
}

class Float16Rewrite {
  public:
    Float16Rewrite(Graph& g, const std::function<bool(std::string_view)>& accepts)
        : g_(g), uses_(count_uses(g)) {
        for (const auto& call : g.chain) half_op_.push_back(accepts(call.name));
        for (size_t id = 0; id < g.values.size(); ++id) {
            original_float32_.push_back(is_float32(g, static_cast<int32_t>(id)));
        }
    }

    Float16Stats run() {
        agree_on_states();
        choose_homes();
        retype();
        rebuild_chain();
        return stats_;
    }

  private:
    // A state (a tensor some op writes in place: a KV cache, a recurrent state) must be written
    // in its own buffer, never in a converted copy, so all the ops writing it in place run in
    // its type: float16 when every one of them takes float16, else all of them in float32 (an
    // op writing two states, like sdpa_with_kv_cache, ties them together, hence the loop).
    void agree_on_states() {
        for (bool changed = true; changed;) {
            changed = false;
            std::set<int32_t> float32_states;
            for_each_in_place_write([&](size_t i, int32_t id) {
                if (!half_op_[i]) float32_states.insert(id);
            });
            for_each_in_place_write([&](size_t i, int32_t id) {
                if (half_op_[i] && float32_states.count(id)) {
                    half_op_[i] = false;
                    changed = true;
                }
            });
        }
    }

    template <typename F>
    void for_each_in_place_write(F&& f) const {
        for (size_t i = 0; i < g_.chain.size(); ++i) {
            const auto& call = g_.chain[i];
            for (size_t a : schema::in_place_args(call.name)) {
                if (a < call.args.size()) {
                    for_each_arg_value(g_, call.args[a], [&](int32_t id) { f(i, id); });
                }
            }
        }
    }

    // Which values live in float16 ("home"): a computed value when every op writing it takes
    // float16, a constant when every op reading it does (converting it per run would cost a
    // dispatch; keeping it float32 costs nothing). The caller's inputs and outputs stay
    // float32. So each value is converted at most once per type, where a float16 region of
    // the chain meets a float32 one.
    void choose_homes() {
        std::set<int32_t> keep(g_.input_ids.begin(), g_.input_ids.end());
        keep.insert(g_.output_ids.begin(), g_.output_ids.end());
        std::set<int32_t> written;
        for (size_t i = 0; i < g_.chain.size(); ++i) {
            const auto& args = g_.chain[i].args;
            for (size_t a = 0; a < args.size(); ++a) {
                bool output = a + 1 == args.size();
                for_each_arg_value(g_, args[a], [&](int32_t id) {
                    const Tensor* t = tensor_at(g_, id);
                    if (!t) return;
                    if (output) written.insert(id);
                    bool constant = t->constant_id >= 0;
                    if (!half_op_[i] && (output || constant)) keep.insert(id);
                });
            }
        }
        // A state's writers (agree_on_states) decide its home like an output's.
        for_each_in_place_write([&](size_t i, int32_t id) {
            written.insert(id);
            if (!half_op_[i]) keep.insert(id);
        });
        for (size_t id = 0; id < g_.values.size(); ++id) {
            auto v = static_cast<int32_t>(id);
            const Tensor* t = tensor_at(g_, v);
            if (!is_float32(g_, v) || keep.count(v)) continue;
            if (t->constant_id >= 0 || written.count(v)) home16_.insert(v);
        }
    }

    // Float16 values get the new dtype; float16 constants get converted bytes, kept alive by
    // one new storage block.
    void retype() {
        auto block = std::make_shared<std::vector<uint8_t>>();
        std::vector<std::pair<int32_t, size_t>> converted;  // value id, offset in block
        for (int32_t id : home16_) {
            auto& t = std::get<Tensor>(g_.values[static_cast<size_t>(id)]);
            t.dtype = DType::f16;
            ++stats_.tensors;
            if (t.constant_id < 0) continue;
            const Constant& c = g_.constants[static_cast<size_t>(t.constant_id)];
            size_t offset = block->size();
            size_t count = c.bytes.size() / 4;
            block->resize(offset + count * 2);
            for (size_t k = 0; k < count; ++k) {
                float f;
                std::memcpy(&f, c.bytes.data() + k * 4, 4);
                uint16_t h = float_to_half(f);
                std::memcpy(block->data() + offset + k * 2, &h, 2);
            }
            converted.emplace_back(id, offset);
            ++stats_.constants;
        }
        // Spans into the block are taken once it has its final size.
        for (auto [id, offset] : converted) {
            auto& t = std::get<Tensor>(g_.values[static_cast<size_t>(id)]);
            const Constant& old = g_.constants[static_cast<size_t>(t.constant_id)];
            size_t count = old.bytes.size() / 4;
            Constant c{std::span<const uint8_t>(block->data() + offset, count * 2),
                       old.key + " (float16)"};
            t.constant_id = static_cast<int32_t>(g_.constants.size());
            g_.constants.push_back(std::move(c));
        }
        if (!converted.empty()) g_.storage.push_back(std::move(block));
    }

    int32_t new_tensor(int32_t like, DType dtype) {
        Tensor t = std::get<Tensor>(g_.values[static_cast<size_t>(like)]);
        t.dtype = dtype;
        t.constant_id = -1;
        t.mem_obj_id = -1;
        t.name.clear();
        g_.values.emplace_back(std::move(t));
        return static_cast<int32_t>(g_.values.size() - 1);
    }

    OpCall convert(int32_t from, int32_t to, uint32_t debug_handle) {
        ++stats_.conversions;
        return OpCall{kConvert, {from, to}, debug_handle};
    }

    // `id` as read by a call that wants `want16`: the value itself or a converted copy, made
    // before the call (once, when the value is written at most once).
    int32_t read_as(int32_t id, bool want16, uint32_t debug, std::vector<OpCall>& before) {
        if (!needs_conversion(id, want16)) return id;
        auto& cache = want16 ? as16_ : as32_;
        // (A state's conversions are dropped after each write in place: rebuild_chain.)
        bool cacheable = uses_.write_count(id) <= 1;
        if (cacheable) {
            if (auto it = cache.find(id); it != cache.end()) return it->second;
        }
        int32_t copy = new_tensor(id, want16 ? DType::f16 : DType::f32);
        before.push_back(convert(id, copy, debug));
        if (cacheable) cache[id] = copy;
        return copy;
    }

    // `id` as written by such a call: itself, or a new value converted into it after the call.
    int32_t write_as(int32_t id, bool want16, uint32_t debug, std::vector<OpCall>& after) {
        if (!needs_conversion(id, want16)) return id;
        int32_t tmp = new_tensor(id, want16 ? DType::f16 : DType::f32);
        after.push_back(convert(tmp, id, debug));
        return tmp;
    }

    // A float32 value of the file whose home differs from what the call wants.
    bool needs_conversion(int32_t id, bool want16) const {
        bool float32 = id >= 0 && static_cast<size_t>(id) < original_float32_.size() &&
                       original_float32_[static_cast<size_t>(id)];
        return float32 && (home16_.count(id) > 0) != want16;
    }

    // The argument with its tensors replaced; a list gets a new list value when any item
    // changes (lists may be shared between calls).
    template <typename F>
    int32_t map_arg(int32_t arg, F&& f) {
        if (arg < 0 || static_cast<size_t>(arg) >= g_.values.size()) return arg;
        const auto* list = std::get_if<ValueList>(&g_.values[static_cast<size_t>(arg)]);
        if (!list) return f(arg);
        ValueList mapped = *list;
        bool changed = false;
        for (int32_t& item : mapped.items) {
            int32_t m = f(item);
            changed |= m != item;
            item = m;
        }
        if (!changed) return arg;
        g_.values.emplace_back(std::move(mapped));
        return static_cast<int32_t>(g_.values.size() - 1);
    }

    void rebuild_chain() {
        std::vector<OpCall> chain;
        chain.reserve(g_.chain.size());
        for (size_t i = 0; i < g_.chain.size(); ++i) {
            OpCall call = g_.chain[i];
            bool want16 = half_op_[i];
            std::vector<OpCall> before, after;
            for (size_t a = 0; a < call.args.size(); ++a) {
                bool output = a + 1 == call.args.size();
                call.args[a] = map_arg(call.args[a], [&](int32_t id) {
                    return output ? write_as(id, want16, call.debug_handle, after)
                                  : read_as(id, want16, call.debug_handle, before);
                });
            }
            for (auto& c : before) chain.push_back(std::move(c));
            // A state this call writes in place has new contents: later readers convert again
            // (count_uses sees no such write).
            for (size_t a : schema::in_place_args(call.name)) {
                if (a >= call.args.size()) continue;
                for_each_arg_value(g_, call.args[a], [&](int32_t id) {
                    as16_.erase(id);
                    as32_.erase(id);
                });
            }
            chain.push_back(std::move(call));
            for (auto& c : after) chain.push_back(std::move(c));
        }
        g_.chain = std::move(chain);
    }

    Graph& g_;
    Uses uses_;
    std::vector<bool> half_op_;
    std::set<int32_t> home16_;
    std::vector<bool> original_float32_;  // before retyping; new values are never converted
    std::map<int32_t, int32_t> as16_, as32_;
    Float16Stats stats_;
};

}  // namespace

Float16Stats run_in_float16(Graph& graph,
                            const std::function<bool(std::string_view)>& accepts_float16) {
    return Float16Rewrite(graph, accepts_float16).run();
}

}  // namespace wgx::graph
