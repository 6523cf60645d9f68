// The engine's own memory plan: which tensors may share one GPU buffer ("pool", the graph's
// mem_obj_id; every member starts at offset 0 and the pool is as large as its largest member,
// except alias group members with an offset (Graph::alias_offsets), which start there).
#pragma once

#include <cstdint>
#include <map>

#include "graph/graph.h"

namespace wgx::graph {

// Gives every non-constant tensor that has no pool yet a pool id:
//   - graph inputs and outputs each get a pool of their own (they are written and read by the
//     caller around the run, so they must not share);
//   - other tensors are placed greedily in first-use order into a pool whose members' lifetimes
//     (first to last use in the chain, inclusive) do not overlap theirs, preferring the pool
//     whose size is closest to theirs; otherwise a new pool is opened.
//   - the members of an alias group (Graph::alias_groups: one storage under several shapes,
//     some members perhaps at an offset into it) get one pool together, placed as one tensor
//     as large as the bytes they span, alive from the first use of any member to
//     the last use of any member, so no other tensor takes the pool while a member lives;
// Existing ids (from VkGraph memory planning) are kept; new ids start above the largest one,
// so new pools never merge with planned ones. (Only if a file chose ids so high that new ones
// would pass kMaxPoolId are the existing ids renumbered densely, same sharing.) Inclusive
// lifetimes mean an op's inputs and outputs never share a buffer, as WebGPU requires within
// one dispatch; within an alias group, check_alias_groups (run here first, a LoadError when it
// fails) guarantees that no op reads one member while writing another. Expects a checked graph
// (check_graph); the result still passes check_graph.
void assign_memory_pools(Graph& graph);

// Where tensor `id` ends in its pool's buffer, in GPU bytes: its alias offset plus its size.
uint64_t device_end(const Graph& graph, int32_t id);

// Bytes of each pool as the executor allocates it (the largest device_end of its members).
std::map<int32_t, uint64_t> pool_sizes(const Graph& graph);
uint64_t pool_bytes(const Graph& graph);

// Plans the pools twice, keeping the file's pool ids (assign_memory_pools) and planning every
// tensor afresh, and keeps whichever needs fewer bytes. The file's plan (VkGraph) was made for
// the file's own ops; after fusion, reshape aliases and float16 conversions its lifetimes no
// longer match, yet on some graphs it is still the tighter one, as the planner here is greedy
// (docs/PERFORMANCE.md#memory-plan-the-smaller-of-two).
void plan_memory_pools(Graph& graph);

}  // namespace wgx::graph
