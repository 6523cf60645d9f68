// any over one dim: input viewed as [outer, R, inner], output [outer, inner] as bool (one byte
// per element, four per word). Each invocation writes one output word. The input is bool
// (bytes), a float (-0.0 counts as zero) or a 32-bit integer.
struct Params {
    outer: u32,
    reduced: u32,
    inner: u32,
    numel_out: u32,
}

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 256;
// 0: bytes (bool, int8, uint8), 1: float32, 2: int32.
override KIND: u32 = 0u;

fn nonzero(i: u32) -> bool {
    if (KIND == 0u) {
        return ((x[i / 4u] >> (8u * (i % 4u))) & 0xffu) != 0u;
    }
    if (KIND == 1u) {
        return (x[i] & 0x7fffffffu) != 0u;
    }
    return x[i] != 0u;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let word = gid.x + gid.y * nwg.x * WG;
    let first = word * 4u;
    if (first >= params.numel_out) {
        return;
    }
    var packed = 0u;
    for (var k = 0u; k < 4u; k++) {
        let o = first + k;
        if (o >= params.numel_out) {
            break;
        }
        let o_outer = o / params.inner;
        let o_inner = o % params.inner;
        var found = false;
        for (var r = 0u; r < params.reduced && !found; r++) {
            found = nonzero((o_outer * params.reduced + r) * params.inner + o_inner);
        }
        if (found) {
            packed |= 1u << (8u * k);
        }
    }
    out[word] = packed;
}
