// Memory ceiling: dst = src, one vec4 (16 bytes) per invocation, so every load and store is
// 128 bits wide and neighbouring invocations touch neighbouring addresses.
struct Params {
    count: u32,  // vec4 elements
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.x + gid.y * groups.x * WG;
    if (i < params.count) {
        dst[i] = src[i];
    }
}
