// softmax / log_softmax along one dim. Row r (every index but the dim) starts at
// (r / inner) * count * inner + r % inner and steps by `inner`. Numerically stable: the row max
// is subtracted before exponentiating (arguments <= 0, so exp cannot overflow).
// The C++ side prepends common/workgroup_reduce's prelude: `alias T` (the stored element type,
// f32 or f16; arithmetic is f32 and each output is rounded once to T) and workgroup_max /
// workgroup_sum (subgroup operations or a tree in workgroup memory).
//
// PER_THREAD: one invocation per row walks it three times (short rows, or a dim that is not
// last: neighbouring invocations then read neighbouring addresses). Otherwise one workgroup per
// row: max and sum are workgroup reductions (any power-of-two WG).
struct Params {
    rows: u32,
    count: u32,  // size of the softmax dim
    inner: u32,  // product of the dims after it (its stride)
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> out: array<T>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 256;
override LOG: bool = false;
override PER_THREAD: bool = false;

fn row_base(r: u32) -> u32 {
    return (r / params.inner) * params.count * params.inner + r % params.inner;
}

fn ld(i: u32) -> f32 {
    return f32(x[i]);
}

fn result(v: f32, m: f32, sum: f32) -> T {
    if (LOG) {
        return T((v - m) - log(sum));
    }
    return T(exp(v - m) / sum);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        ids: ReduceIds) {
    let step = params.inner;
    if (PER_THREAD) {
        let r = gid.x + gid.y * nwg.x * WG;
        if (r < params.rows) {
            let base = row_base(r);
            var m = ld(base);
            for (var k = 1u; k < params.count; k++) {
                m = max(m, ld(base + k * step));
            }
            var sum = 0.0;
            for (var k = 0u; k < params.count; k++) {
                sum += exp(ld(base + k * step) - m);
            }
            for (var k = 0u; k < params.count; k++) {
                let i = base + k * step;
                out[i] = result(ld(i), m, sum);
            }
        }
        return;
    }

    let r = wid.x + wid.y * nwg.x;  // uniform across the workgroup
    if (r >= params.rows) {
        return;
    }
    let base = row_base(r);
    let lid = ids.lid;
    var m = ld(base);
    for (var k = lid; k < params.count; k += WG) {
        m = max(m, ld(base + k * step));
    }
    m = workgroup_max(m, ids);
    var sum = 0.0;
    for (var k = lid; k < params.count; k += WG) {
        sum += exp(ld(base + k * step) - m);
    }
    sum = workgroup_sum(sum, ids);
    for (var k = lid; k < params.count; k += WG) {
        let i = base + k * step;
        out[i] = result(ld(i), m, sum);
    }
}
