// vision.depth_colormap: map float32 [1, 1, H', W'] + bounds {low, high} -> uint8 [h, w, 4].
// One thread per output pixel, writing that pixel's whole RGBA word.
struct Params {
    photo_w: u32,
    photo_h: u32,
    map_w: u32,
    map_h: u32,
    invert: u32,  // 1: larger values are farther, so nearness = 1 - t
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    // map position of photo pixel x: (x + 0.5) * ax + bx - 0.5 (same for y)
    ax: f32,
    bx: f32,
    ay: f32,
    by: f32,
    stops: array<vec4<f32>, 5>,  // the ramp, far to near, 0..255 RGB
}

@group(0) @binding(0) var<storage, read> values: array<f32>;  // the map
@group(0) @binding(1) var<storage, read> bounds: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 128;

fn map_at(x: u32, y: u32) -> f32 {
    return values[y * params.map_w + x];
}

// sample_map(px, py): sample_map.wgsl, appended by the op.

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= params.photo_w * params.photo_h) {
        return;
    }
    let x = i % params.photo_w;
    let y = i / params.photo_w;
    let v = sample_map((f32(x) + 0.5) * params.ax + params.bx - 0.5,
                   (f32(y) + 0.5) * params.ay + params.by - 0.5);
    let low = bounds[0];
    let span = bounds[1] - low;
    // A flat map (span 0) is drawn at the middle of the ramp rather than divided by zero.
    var t = select(0.5, (v - low) / span, span > 0.0);
    t = clamp(t, 0.0, 1.0);
    if (params.invert != 0u) {
        t = 1.0 - t;
    }
    let s = t * 4.0;
    let k = min(u32(s), 3u);
    let rgb = mix(params.stops[k].rgb, params.stops[k + 1u].rgb, s - f32(k));
    var word = 0xff000000u;
    for (var c = 0u; c < 3u; c++) {
        // The mask keeps a NaN map value (converted to an arbitrary integer) inside its byte.
        word |= (u32(clamp(round(rgb[c]), 0.0, 255.0)) & 0xffu) << (8u * c);
    }
    out[i] = word;
}
