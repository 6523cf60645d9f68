// The engine's own memory plan: which tensors may share one GPU buffer ("pool", the graph's
// mem_obj_id; every member starts at offset 0 and the pool is as large as its largest member).
#pragma once

#include "program/graph.h"

namespace wgx::program {

// Gives every non-constant tensor that has no pool yet a pool id:
//   - graph inputs and outputs each get a pool of their own (they are written and read by the
//     caller around the run, so they must not share);
//   - other tensors are placed greedily in first-use order into a pool whose members' lifetimes
//     (first to last use in the chain, inclusive) do not overlap theirs, preferring the pool
//     whose size is closest to theirs; otherwise a new pool is opened.
//   - the members of an alias group (Graph::alias_groups: one storage under several shapes)
//     get one pool together, placed as one tensor alive from the first use of any member to
//     the last use of any member, so no other tensor takes the pool while a member lives;
// Existing ids (from VkGraph memory planning) are kept; new ids start above the largest one,
// so new pools never merge with planned ones. (Only if a file chose ids so high that new ones
// would pass kMaxPoolId are the existing ids renumbered densely, same sharing.) Inclusive
// lifetimes mean an op's inputs and outputs never share a buffer, as WebGPU requires within
// one dispatch; within an alias group, check_alias_groups (run here first, a LoadError when it
// fails) guarantees that no op reads one member while writing another. Expects a checked graph
// (check_graph); the result still passes check_graph.
void assign_memory_pools(Graph& graph);

}  // namespace wgx::program
