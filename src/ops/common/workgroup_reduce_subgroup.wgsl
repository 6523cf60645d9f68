// Workgroup reductions with subgroup operations (needs the device's `subgroups` feature, see
// workgroup_reduce.h): each subgroup reduces in registers and its first invocation puts the
// result in slot `subgroup_id`; after one barrier every subgroup combines the `num_subgroups`
// slots by itself (lane L takes slots L, L + subgroup_size, ...; then one more subgroup
// reduction), so no second round through workgroup memory is needed. Two barriers per
// reduction instead of log2(WG) + 2, and at most ceil(num_subgroups / subgroup_size) slot reads
// per invocation. Correct for any subgroup size and for subgroups that are not full: nothing
// assumes how invocations are grouped. Every subgroup reads the slots in the same lane
// assignment wherever the subgroups of a workgroup have one size (all of them but a partial
// last one), so every invocation gets the same sum. Call from workgroup-uniform control flow.
// Needs `override WG: u32` (a subgroup has at least one invocation, so WG slots suffice).
struct ReduceIds {
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) lanes: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
}

var<workgroup> reduce_part: array<f32, WG>;

// The sum of every invocation's `v`, in all of them.
fn workgroup_sum(v: f32, ids: ReduceIds) -> f32 {
    let partial = subgroupAdd(v);
    if (ids.lane == 0u) {
        reduce_part[ids.subgroup] = partial;
    }
    workgroupBarrier();
    var mine = 0.0;
    for (var i = ids.lane; i < ids.subgroups; i += ids.lanes) {
        mine += reduce_part[i];
    }
    let total = subgroupAdd(mine);
    workgroupBarrier();  // every subgroup has read the slots before they are reused
    return total;
}

// The maximum of every invocation's `v`, in all of them.
fn workgroup_max(v: f32, ids: ReduceIds) -> f32 {
    let partial = subgroupMax(v);
    if (ids.lane == 0u) {
        reduce_part[ids.subgroup] = partial;
    }
    workgroupBarrier();
    var mine = reduce_part[0];  // a real value: lanes without slots must not add a fake one
    for (var i = ids.lane; i < ids.subgroups; i += ids.lanes) {
        mine = max(mine, reduce_part[i]);
    }
    let total = subgroupMax(mine);
    workgroupBarrier();
    return total;
}
