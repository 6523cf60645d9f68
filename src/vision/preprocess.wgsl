// vision.preprocess: uint8 RGB photo [h, w, 3] -> float32 [1, 3, H, W]. One thread per output
// pixel. The photo fills the placed_w x placed_h rectangle at (off_x, off_y) (all of the output
// for stretch); the rest is the normalised letterbox fill.
//
// Bilinear, half-pixel centres, no antialias: src = (dst + 0.5) * in / placed - 0.5, clamped to
// [0, in - 1]. The tap index and weight come from integer arithmetic on
// (2 * dst + 1) * in - placed over 2 * placed, so they are exact for every size (a float32
// product would drift by up to in * 2^-24 pixels on large photos).
struct Params {
    in_w: u32,
    in_h: u32,
    out_w: u32,
    out_h: u32,
    placed_w: u32,
    placed_h: u32,
    off_x: u32,
    off_y: u32,
    scale: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
    mean: vec4<f32>,
    deviation: vec4<f32>,
    fill: vec4<f32>,
}

@group(0) @binding(0) var<storage, read> image: array<u32>;  // 4 bytes per word
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 128;

struct Taps {
    i0: u32,
    i1: u32,
    w1: f32,
}

fn taps(dst: u32, n_in: u32, n_out: u32) -> Taps {
    let num = i32((2u * dst + 1u) * n_in) - i32(n_out);
    if (num <= 0) {
        return Taps(0u, 0u, 0.0);
    }
    let den = 2u * n_out;
    let i0 = u32(num) / den;
    if (i0 >= n_in - 1u) {
        return Taps(n_in - 1u, n_in - 1u, 0.0);
    }
    return Taps(i0, i0 + 1u, f32(u32(num) % den) / f32(den));
}

fn byte_at(i: u32) -> f32 {
    return f32((image[i / 4u] >> (8u * (i % 4u))) & 0xffu);
}

fn texel(x: u32, y: u32, c: u32) -> f32 {
    return byte_at((y * params.in_w + x) * 3u + c);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    let plane = params.out_w * params.out_h;
    if (t >= plane) {
        return;
    }
    let ox = t % params.out_w;
    let oy = t / params.out_w;
    let inside = ox >= params.off_x && ox < params.off_x + params.placed_w &&
                 oy >= params.off_y && oy < params.off_y + params.placed_h;
    if (!inside) {
        for (var c = 0u; c < 3u; c++) {
            out[c * plane + t] = params.fill[c];
        }
        return;
    }
    let tx = taps(ox - params.off_x, params.in_w, params.placed_w);
    let ty = taps(oy - params.off_y, params.in_h, params.placed_h);
    for (var c = 0u; c < 3u; c++) {
        let top = (1.0 - tx.w1) * texel(tx.i0, ty.i0, c) + tx.w1 * texel(tx.i1, ty.i0, c);
        let bottom = (1.0 - tx.w1) * texel(tx.i0, ty.i1, c) + tx.w1 * texel(tx.i1, ty.i1, c);
        let pixel = (1.0 - ty.w1) * top + ty.w1 * bottom;
        out[c * plane + t] = (pixel * params.scale - params.mean[c]) / params.deviation[c];
    }
}
