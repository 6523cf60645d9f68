// softmax / log_softmax along one dim. Row r (every index but the dim) starts at
// (r / inner) * count * inner + r % inner and steps by `inner`. Numerically stable: the row max
// is subtracted before exponentiating (arguments <= 0, so exp cannot overflow).
//
// PER_THREAD: one invocation per row walks it three times (short rows, or a dim that is not
// last: neighbouring invocations then read neighbouring addresses). Otherwise one workgroup per
// row: max and sum are tree reductions in workgroup memory (any power-of-two WG, no subgroup
// operations).
struct Params {
    rows: u32,
    count: u32,  // size of the softmax dim
    inner: u32,  // product of the dims after it (its stride)
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 256;
override LOG: bool = false;
override PER_THREAD: bool = false;

var<workgroup> part: array<f32, WG>;

fn row_base(r: u32) -> u32 {
    return (r / params.inner) * params.count * params.inner + r % params.inner;
}

fn result(v: f32, m: f32, sum: f32) -> f32 {
    if (LOG) {
        return (v - m) - log(sum);
    }
    return exp(v - m) / sum;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let step = params.inner;
    if (PER_THREAD) {
        let r = gid.x + gid.y * nwg.x * WG;
        if (r < params.rows) {
            let base = row_base(r);
            var m = x[base];
            for (var k = 1u; k < params.count; k++) {
                m = max(m, x[base + k * step]);
            }
            var sum = 0.0;
            for (var k = 0u; k < params.count; k++) {
                sum += exp(x[base + k * step] - m);
            }
            for (var k = 0u; k < params.count; k++) {
                let i = base + k * step;
                out[i] = result(x[i], m, sum);
            }
        }
        return;
    }

    let r = wid.x + wid.y * nwg.x;  // uniform across the workgroup
    if (r >= params.rows) {
        return;
    }
    let base = row_base(r);
    var m = x[base];
    for (var k = lid.x; k < params.count; k += WG) {
        m = max(m, x[base + k * step]);
    }
    part[lid.x] = m;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid.x < s) {
            part[lid.x] = max(part[lid.x], part[lid.x + s]);
        }
        workgroupBarrier();
    }
    m = part[0];
    workgroupBarrier();  // everyone has read part[0] before it is reused

    var sum = 0.0;
    for (var k = lid.x; k < params.count; k += WG) {
        sum += exp(x[base + k * step] - m);
    }
    part[lid.x] = sum;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid.x < s) {
            part[lid.x] += part[lid.x + s];
        }
        workgroupBarrier();
    }
    sum = part[0];
    for (var k = lid.x; k < params.count; k += WG) {
        let i = base + k * step;
        out[i] = result(x[i], m, sum);
    }
}
