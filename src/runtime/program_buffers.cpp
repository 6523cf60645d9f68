#include "runtime/program_buffers.h"

#include <fmt/format.h>

#include "graph/graph.h"
#include "graph/graph_check.h"
#include "graph/memory_plan.h"
#include "graph/schema/in_place.h"

namespace wgx::runtime {

ProgramBuffers::ProgramBuffers(ContextState& ctx, const Program& program)
    : ctx_(ctx), graph_(program.graph()), own_(program.graph().values.size()) {
    allocate_pools();
    state_ = schema::state_values(graph_);
}

void ProgramBuffers::fail(const std::string& message) const {
    throw LoadError(fmt::format("{}: {}", graph_.origin, message));
}

// One GPU buffer per pool, as large as the furthest end of a member. The members of an alias
// group (a tensor, its reshapes and its contiguous chunks, graph.h) share one pool id, so
// binding each tensor to its pool's buffer at its alias offset (0 for all but chunks; always a
// multiple of 256 bytes, which every device accepts) with its own shape makes them views of the
// same bytes; a member without a pool would silently get a buffer of its own, hence the check.
void ProgramBuffers::allocate_pools() {
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

void ProgramBuffers::upload_constant(int32_t id) {
    const auto& t = std::get<graph::Tensor>(graph_.values[id]);
    const auto& c = graph_.constants[t.constant_id];
    Tensor whole = ctx_.make_tensor(own_[id], 0, t.dtype, Shape(t.dims.begin(), t.dims.end()));
    try {
        whole.set_bytes(std::as_bytes(c.bytes));
    } catch (const InvalidArgument& e) {
        fail(fmt::format("constant {} (value {}, {}): {}", t.constant_id, id, c.key, e.what()));
    }
}

Tensor ProgramBuffers::tensor(int32_t id, const std::vector<int64_t>& dims) {
    const auto& t = std::get<graph::Tensor>(graph_.values[id]);
    const Shape shape(dims.begin(), dims.end());
    if (t.constant_id < 0 && t.mem_obj_id >= 0) {
        const uint64_t offset = graph::alias_offset(graph_, id) * device_size(t.dtype);
        return ctx_.make_tensor(pools_.at(t.mem_obj_id), offset, t.dtype, shape);
    }
    if (!own_[id]) {
        const uint64_t bytes = graph::host_nbytes(t) / host_size(t.dtype) * device_size(t.dtype);
        own_[id] =
            ctx_.allocate(bytes, t.constant_id >= 0 ? fmt::format("constant {}", t.constant_id)
                                                    : fmt::format("value {}", id));
        if (t.constant_id >= 0) upload_constant(id);
    }
    return ctx_.make_tensor(own_[id], 0, t.dtype, shape);
}

// State from the file starts as its constant's bytes; state the file gives no contents (a plain
// export's KV cache, a mutable buffer planned like any tensor) starts as zeros, as the module's
// buffers were when exported (new WebGPU buffers are zero-filled; a reset writes zeros again).
void ProgramBuffers::reset_state() {
    for (int32_t id : state_) {
        const auto& t = std::get<graph::Tensor>(graph_.values[id]);
        if (t.constant_id >= 0) {
            if (own_[id]) upload_constant(id);
        } else {
            Tensor whole = tensor(id, t.dims);
            const std::vector<std::byte> zeros(whole.host_bytes(), std::byte{0});
            whole.set_bytes(zeros);
        }
    }
}

}  // namespace wgx::runtime
