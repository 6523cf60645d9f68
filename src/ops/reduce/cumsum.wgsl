// Inclusive prefix sum along one dim: one invocation per (outer, inner) line, walking its n
// elements in order and accumulating in T. The op prepends `alias S` (the element as stored)
// and `alias T` (as summed: f32 for float32 and float16, i32 for int32 / int64).
struct Params {
    outer: u32,
    n: u32,
    inner: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<S>;
@group(0) @binding(1) var<storage, read_write> out: array<S>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let line = gid.x + gid.y * nwg.x * WG;
    if (line >= params.outer * params.inner) {
        return;
    }
    let base = (line / params.inner) * params.n * params.inner + line % params.inner;
    var acc = T(0);
    for (var k = 0u; k < params.n; k++) {
        let at = base + k * params.inner;
        acc += T(x[at]);
        out[at] = S(acc);
    }
}
