// Writes value [B, S, row] into cache [B, C, row] at positions start .. start + S - 1 (row =
// heads * head size, contiguous); one invocation per value element. The other positions are
// left as they are: the cache is state that later runs read. With PAIRS 2, a second value and
// cache of the same shapes in the same dispatch.
// The C++ side prepends `alias T` (the element type as stored).
struct Params {
    total: u32,    // elements of value
    seq: u32,      // S
    context: u32,  // C
    row: u32,      // elements per position
    start: u32,    // first position written
    start_slot: u32,  // live integer slot of start, or 0xffffffff
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> value: array<T>;
@group(0) @binding(1) var<storage, read_write> cache: array<T>;
@group(0) @binding(2) var<uniform> params: Params;
@group(0) @binding(3) var<storage, read> live_ints: array<i32>;
// write_second(at, t): with PAIRS 2 the C++ side fills this line with a second pair (value2 and
// cache2, of the first pair's shapes: a layer's keys and values) and its write; invocations
// total .. 2 total - 1 take it. Otherwise an empty function, never called.
//@SECOND_PAIR

// The first position: the live integer at start_slot when there is one (wgx::LiveInt: an LLM's
// cache position, changing every step without recording again), else `start`. Kept inside the
// cache whatever the value (the host checks it before each run).
fn first_position() -> u32 {
    var p = params.start;
    if (params.start_slot != 0xffffffffu) {
        p = u32(max(live_ints[params.start_slot], 0));
    }
    return min(p, params.context - params.seq);
}

override WG: u32 = 128;
override PAIRS: u32 = 1u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = gid.x + gid.y * nwg.x * WG;
    if (g >= PAIRS * params.total) {
        return;
    }
    let second = g >= params.total;
    let t = select(g, g - params.total, second);
    let r = t % params.row;
    let bs = t / params.row;
    let s = bs % params.seq;
    let b = bs / params.seq;
    let at = (b * params.context + first_position() + s) * params.row + r;
    if (second) {
        write_second(at, t);
    } else {
        cache[at] = value[t];
    }
}
