// Parameters and bindings shared by the resize kernels (prepended, after `alias T`).
// Mirrors ResizeParams in resize.h. One thread per output element.
struct Params {
    planes: u32, H_in: u32, W_in: u32, H_out: u32,
    W_out: u32, total: u32,
    scale_h: f32, scale_w: f32,
    align_corners: u32,
    _pad0: u32, _pad1: u32, _pad2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> out: array<T>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 128;

fn thread_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}
