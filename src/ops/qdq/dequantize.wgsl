// dequantize_per_tensor / dequantize_per_channel to float32, one invocation per output.
// QPARAMS 0: scale and zero point in the uniforms. QPARAMS 1: per channel (channel =
// (e / inner) % channels; one channel for the per-tensor .tensor form) from the scales buffer
// and, with HAS_ZP, the zero_points buffer (else zero). INT_DIFF: (q - zero_point) * scale
// with the difference in integers (per channel), else (float(q) - float(zero_point)) * scale
// (per tensor); the two differ only for int32 values beyond 2^24.
// IN_KIND 0 int32, 1 uint8, 2 int8 (four per word).
struct Params {
    numel: u32,
    inner: u32,
    channels: u32,
    zero_point: i32,
    scale: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> q: array<u32>;
@group(0) @binding(1) var<storage, read> scales: array<f32>;
@group(0) @binding(2) var<storage, read> zero_points: array<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

override WG: u32 = 256;
override QPARAMS: u32 = 0;
override IN_KIND: u32 = 0;
override HAS_ZP: bool = true;
override INT_DIFF: bool = false;

fn load(e: u32) -> i32 {
    if (IN_KIND == 0u) {
        return bitcast<i32>(q[e]);
    }
    let word = q[e / 4u];
    let shift = (e % 4u) * 8u;
    if (IN_KIND == 2u) {
        return extractBits(bitcast<i32>(word), shift, 8u);  // sign-extends
    }
    return i32(extractBits(word, shift, 8u));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = gid.x + gid.y * nwg.x * WG;
    if (e >= params.numel) {
        return;
    }
    let v = load(e);
    var scale = params.scale;
    var zero_point = params.zero_point;
    if (QPARAMS == 1u) {
        let c = (e / params.inner) % params.channels;
        scale = scales[c];
        zero_point = 0;
        if (HAS_ZP) {
            zero_point = zero_points[c];
        }
    }
    if (INT_DIFF) {
        out[e] = f32(v - zero_point) * scale;
    } else {
        out[e] = (f32(v) - f32(zero_point)) * scale;
    }
}
