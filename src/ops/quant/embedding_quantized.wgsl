// Row gather from a quantized embedding table (embedding_quantized.cpp names the forms):
//   out[n, d] = (value(indices[n], d) - offset - zero_point[row, g]) * scale[row, g],
//   g = d / group
// BITS 4: two values a byte, D / 2 bytes a row, offset 8 (a nibble holds value + 8); the even
// column of a pair in the low nibble when LOW_FIRST, else in the high one. BITS 8: one byte a
// value, signed (int8) when SIGNED, else unsigned; offset 0. One invocation per output element;
// an index outside [0, V) gives a row of zeros.
struct Params {
    total: u32,   // elements of out: N * D
    dim: u32,     // D
    rows: u32,    // V
    groups: u32,  // scales per row
    group: u32,   // D / groups
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> weight: array<u32>;   // [V, D * BITS / 8] bytes
@group(0) @binding(1) var<storage, read> scales: array<f32>;   // [V, groups]
@group(0) @binding(2) var<storage, read> zero_points: array<f32>;  // [V, groups] when HAS_ZP
@group(0) @binding(3) var<storage, read> indices: array<i32>;  // int64 is stored as int32
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<uniform> params: Params;

override WG: u32 = 128;
override BITS: u32 = 4u;
override LOW_FIRST: bool = true;
override SIGNED: bool = false;
override HAS_ZP: bool = false;

fn byte_at(i: u32) -> u32 {
    return extractBits(weight[i / 4u], (i % 4u) * 8u, 8u);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.total) {
        return;
    }
    let n = t / params.dim;
    let d = t - n * params.dim;
    let row = indices[n];
    if (u32(row) >= params.rows) {  // a negative index compares as a huge u32
        out[t] = 0.0;
        return;
    }
    var value: f32;
    if (BITS == 4u) {
        let byte = byte_at(u32(row) * (params.dim / 2u) + d / 2u);
        let low = LOW_FIRST == (d % 2u == 0u);
        value = f32(select(byte >> 4u, byte & 15u, low)) - 8.0;
    } else {
        let byte = byte_at(u32(row) * params.dim + d);
        value = select(f32(byte), f32(extractBits(i32(byte), 0u, 8u)), SIGNED);
    }
    let g = u32(row) * params.groups + d / params.group;
    if (HAS_ZP) {
        value -= zero_points[g];
    }
    out[t] = value * scales[g];
}
