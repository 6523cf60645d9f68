// Lowering one method of a .pte into the engine's single Graph.
//
// The plan's EValues keep their ids. Its chain is walked in order:
//   - DelegateCall (VulkanBackend): the payload's VkGraph is inlined. Its values are appended
//     with new ids, except its input and output values, which are bound to the plan EValues
//     named by the call's args (inputs first, then outputs, in VkGraph input_ids/output_ids
//     order) after checking that kind, shape and dtype agree. Its ops are appended with remapped
//     args, its constants appended, its memory pool ids shifted past every id used so far.
//   - KernelCall: one OpCall named after the functional form of the out-variant kernel
//     (kernel_names.h), args as in the VkGraph convention (functional args, output last; several
//     outputs as one ValueList). ExecuTorch's trailing return slot (the out tensor repeated, or
//     a TensorList of the outs) is folded into that convention.
//   - MoveCall: later references to the destination read the source (straight-line code).
//   - FreeCall: ignored; lifetimes come from the chain (memory_plan.h).
//   - JumpFalseCall: rejected; control flow is not supported.
// Plan tensors that ExecuTorch memory-planned keep mem_obj_id -1: the engine plans its own
// memory (assign_memory_pools).
#pragma once

#include <string_view>

#include "graph/graph.h"
#include "graph/pte/named_data.h"
#include "graph/pte/pte_file.h"

namespace wgx::graph {

// `external` is the named data of a .ptd file (or null) and `external_bytes` the buffer it
// points into, which the Graph then keeps alive.
Graph lower_method(const PteFile& file, std::string_view method,
                   const NamedDataMap* external = nullptr, SharedBytes external_bytes = nullptr);

}  // namespace wgx::graph
