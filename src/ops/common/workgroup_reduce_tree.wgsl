// Workgroup reductions without subgroup operations (the fallback of workgroup_reduce.h): every
// invocation stores its value, then log2(WG) halving steps in workgroup memory, one barrier
// each. Call from workgroup-uniform control flow. Needs `override WG: u32` (a power of two).
struct ReduceIds {
    @builtin(local_invocation_index) lid: u32,
}

var<workgroup> reduce_part: array<f32, WG>;

// The sum of every invocation's `v`, in all of them.
fn workgroup_sum(v: f32, ids: ReduceIds) -> f32 {
    reduce_part[ids.lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (ids.lid < s) {
            reduce_part[ids.lid] += reduce_part[ids.lid + s];
        }
        workgroupBarrier();
    }
    let total = reduce_part[0];
    workgroupBarrier();  // everyone has read reduce_part[0] before it is reused
    return total;
}

// The maximum of every invocation's `v`, in all of them.
fn workgroup_max(v: f32, ids: ReduceIds) -> f32 {
    reduce_part[ids.lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (ids.lid < s) {
            reduce_part[ids.lid] = max(reduce_part[ids.lid], reduce_part[ids.lid + s]);
        }
        workgroupBarrier();
    }
    let total = reduce_part[0];
    workgroupBarrier();
    return total;
}
