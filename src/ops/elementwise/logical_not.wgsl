// logical_not of a bool tensor: one byte per element, four per word; one word per invocation.
struct Params {
    words: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 256;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = gid.x + gid.y * nwg.x * WG;
    if (w >= params.words) {
        return;
    }
    let v = x[w];
    var r = 0u;
    for (var k = 0u; k < 4u; k++) {
        if (((v >> (8u * k)) & 0xffu) == 0u) {
            r |= 1u << (8u * k);
        }
    }
    out[w] = r;  // bytes past the last element are padding nobody reads
}
