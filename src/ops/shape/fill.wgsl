// Fills a tensor with one 32-bit pattern per word (the value's bits, repeated for 8- and 16-bit
// types), one word per invocation.
struct Params {
    words: u32,
    pattern: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> params: Params;

override WG: u32 = 256;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = gid.x + gid.y * nwg.x * WG;
    if (w < params.words) {
        out[w] = params.pattern;
    }
}
