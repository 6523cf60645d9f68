// aten.cat of up to four inputs in one dispatch, moving 32-bit words as bits: 32-bit element
// types, or narrower ones packed whole words to a row (the op file counts rows and inner in words).
// out is viewed as [outer, total, inner] around the cat dim; this dispatch writes its rows
// [row_base, row_base + rows), which input j fills from its row offsets[j] (relative to
// row_base) for sizes[j] rows. One invocation per element written, inner fastest, so reads
// and writes coalesce. Unused input slots are bound to input 0 and never read.
struct Params {
    numel: u32,     // elements written: outer * rows * inner
    inner: u32,
    total: u32,     // out's size along the cat dim
    row_base: u32,
    rows: u32,
    count: u32,     // inputs in this dispatch, 1..4
    _pad0: u32,
    _pad1: u32,
    offsets: vec4<u32>,
    sizes: vec4<u32>,
}

@group(0) @binding(0) var<storage, read> in0: array<u32>;
@group(0) @binding(1) var<storage, read> in1: array<u32>;
@group(0) @binding(2) var<storage, read> in2: array<u32>;
@group(0) @binding(3) var<storage, read> in3: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@group(0) @binding(5) var<uniform> params: Params;

override WG: u32 = 256;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.numel) {
        return;
    }
    let i = t % params.inner;
    let r = (t / params.inner) % params.rows;
    let o = t / (params.inner * params.rows);
    // The input holding row r: the last whose offset is <= r.
    var j = 0u;
    for (var k = 1u; k < params.count; k++) {
        if (r >= params.offsets[k]) {
            j = k;
        }
    }
    let at = (o * params.sizes[j] + (r - params.offsets[j])) * params.inner + i;
    var v = 0u;
    switch j {
        case 0u: { v = in0[at]; }
        case 1u: { v = in1[at]; }
        case 2u: { v = in2[at]; }
        default: { v = in3[at]; }
    }
    out[(o * params.total + params.row_base + r) * params.inner + i] = v;
}
