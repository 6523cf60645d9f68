// out[i] = start + i * step, one element per invocation, written as 32-bit words: int32 (int64
// is stored as int32) or float32.
struct Params {
    numel: u32,
    start_f: f32,
    step_f: f32,
    _pad0: u32,
    start_i: i32,
    step_i: i32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> params: Params;

override WG: u32 = 256;
override INT: bool = false;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= params.numel) {
        return;
    }
    if (INT) {
        out[i] = bitcast<u32>(params.start_i + i32(i) * params.step_i);
    } else {
        out[i] = bitcast<u32>(params.start_f + f32(i) * params.step_f);
    }
}
