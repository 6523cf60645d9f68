// Writes value [B, S, row] into cache [B, C, row] at positions start .. start + S - 1 (row =
// heads * head size, contiguous); one invocation per value element. The other positions are
// left as they are: the cache is state that later runs read.
// The C++ side prepends `alias T` (the element type as stored).
struct Params {
    total: u32,    // elements of value
    seq: u32,      // S
    context: u32,  // C
    row: u32,      // elements per position
    start: u32,    // first position written
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> value: array<T>;
@group(0) @binding(1) var<storage, read_write> cache: array<T>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 128;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.total) {
        return;
    }
    let r = t % params.row;
    let bs = t / params.row;
    let s = bs % params.seq;
    let b = bs / params.seq;
    cache[(b * params.context + params.start + s) * params.row + r] = value[t];
}
