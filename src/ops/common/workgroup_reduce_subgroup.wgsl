// Workgroup reductions with subgroup operations (needs the device's `subgroups` feature, see
// workgroup_reduce.h): each subgroup reduces in registers, its first invocation puts the result
// in slot `subgroup_id`, and after one barrier every invocation combines the `num_subgroups`
// slots in the same order (so all see the same value). Correct for any subgroup size and for
// subgroups that are not full: nothing assumes how invocations are grouped. Two barriers per
// reduction instead of log2(WG) + 2. Call from workgroup-uniform control flow. Needs
// `override WG: u32` (a subgroup has at least one invocation, so WG slots always suffice).
struct ReduceIds {
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) lane: u32,
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
    var total = reduce_part[0];
    for (var i = 1u; i < ids.subgroups; i++) {
        total += reduce_part[i];
    }
    workgroupBarrier();  // everyone has read the slots before they are reused
    return total;
}

// The maximum of every invocation's `v`, in all of them.
fn workgroup_max(v: f32, ids: ReduceIds) -> f32 {
    let partial = subgroupMax(v);
    if (ids.lane == 0u) {
        reduce_part[ids.subgroup] = partial;
    }
    workgroupBarrier();
    var total = reduce_part[0];
    for (var i = 1u; i < ids.subgroups; i++) {
        total = max(total, reduce_part[i]);
    }
    workgroupBarrier();
    return total;
}
