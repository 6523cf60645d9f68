// Elementwise unary op. The op's C++ file prepends `alias S = <element as stored>;`,
// `alias T = <element as computed>;` (f32 for float16) and `fn apply(x: T) -> T`, which may
// read the op's scalars params.p0 and params.p1.
struct Params {
    numel: u32,
    p0: f32,
    p1: f32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<S>;
@group(0) @binding(1) var<storage, read_write> out: array<S>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 256;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= params.numel) {
        return;
    }
    out[i] = S(apply(T(x[i])));
}
