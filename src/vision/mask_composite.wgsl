// vision.mask_composite: photo uint8 [h, w, 3] + map float32 [1, C, H', W'] -> uint8 [h, w, 4].
// One thread per photo pixel, writing that pixel's whole RGBA word (no two threads share a word).
struct Params {
    photo_w: u32,
    photo_h: u32,
    map_w: u32,
    map_h: u32,
    channel: u32,
    logit: u32,
    _pad0: u32,
    _pad1: u32,
    // map position of photo pixel x: (x + 0.5) * ax + bx - 0.5 (same for y)
    ax: f32,
    bx: f32,
    ay: f32,
    by: f32,
    colour: vec4<f32>,  // rgb 0..255 of the foreground tint, a = how much of it
    background: f32,    // brightness of the grey background
    _pad2: f32,
    _pad3: f32,
    _pad4: f32,
}

@group(0) @binding(0) var<storage, read> photo: array<u32>;
@group(0) @binding(1) var<storage, read> values: array<f32>;  // the map
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 128;

fn photo_byte(i: u32) -> f32 {
    return f32((photo[i / 4u] >> (8u * (i % 4u))) & 0xffu);
}

fn map_at(x: u32, y: u32) -> f32 {
    return values[(params.channel * params.map_h + y) * params.map_w + x];
}

// sample_map(px, py): sample_map.wgsl, appended by the op.

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.photo_w * params.photo_h) {
        return;
    }
    let x = t % params.photo_w;
    let y = t / params.photo_w;
    var v = sample_map((f32(x) + 0.5) * params.ax + params.bx - 0.5,
                   (f32(y) + 0.5) * params.ay + params.by - 0.5);
    if (params.logit != 0u) {
        v = 1.0 / (1.0 + exp(-clamp(v, -30.0, 30.0)));  // clamped: exp overflows on some drivers
    }
    let p = clamp(v, 0.0, 1.0);
    let rgb = vec3<f32>(photo_byte(t * 3u), photo_byte(t * 3u + 1u), photo_byte(t * 3u + 2u));
    let grey = dot(rgb, vec3<f32>(0.299, 0.587, 0.114)) * params.background;
    let fg = mix(rgb, params.colour.rgb, params.colour.a);
    let mixed = mix(vec3<f32>(grey), fg, p);
    var word = 0xff000000u;
    for (var c = 0u; c < 3u; c++) {
        // The mask keeps a NaN map value (converted to an arbitrary integer) inside its byte.
        word |= (u32(clamp(round(mixed[c]), 0.0, 255.0)) & 0xffu) << (8u * c);
    }
    out[t] = word;
}
