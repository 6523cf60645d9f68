// Parameters and bindings shared by the pool kernels (prepended, after `alias T`).
// Mirrors PoolParams in pool2d.h. One thread per output element; planes are [H, W] slices.
struct Params {
    planes: u32, H_in: u32, W_in: u32, H_out: u32,
    W_out: u32, kH: u32, kW: u32, stride_h: u32,
    stride_w: u32, pad_h: u32, pad_w: u32, dil_h: u32,
    dil_w: u32, total: u32, flags: u32, divisor: i32,
}

const COUNT_PAD = 1u;
const HAS_DIVISOR = 2u;

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> out: array<T>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 128;

// The flat thread index of a grid folded by Recorder::grid_1d.
fn thread_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}
