// uint8 HWC RGB image -> float32 NCHW planes, (x / 255 - mean[c]) / std[c].
// The image is packed four bytes per u32 word, as every uint8 tensor is.
struct Params {
    height: u32,
    width: u32,
    _pad0: u32,
    _pad1: u32,
    mean: vec4<f32>,
    inv_std: vec4<f32>,
}

@group(0) @binding(0) var<storage, read> image: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 64;

fn byte_at(i: u32) -> f32 {
    return f32((image[i / 4u] >> (8u * (i % 4u))) & 0xffu);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let pixel = gid.x + gid.y * nwg.x * WG;
    let plane = params.height * params.width;
    if (pixel >= plane) {
        return;
    }
    for (var c = 0u; c < 3u; c++) {
        let v = byte_at(pixel * 3u + c) / 255.0;
        out[c * plane + pixel] = (v - params.mean[c]) * params.inv_std[c];
    }
}
