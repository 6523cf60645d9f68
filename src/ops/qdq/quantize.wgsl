// quantize_per_tensor / quantize_per_channel / quantize_per_token:
// q = clamp(round(x * inv_scale) + zero_point, quant_min, quant_max), with round half to even
// (WGSL's round), and inv_scale = 1 / scale rounded once to float32, as the reference
// multiplies by the reciprocal (never divides).
// QPARAMS 0: one scale and zero point in the uniforms (inv_scale found on the host);
// QPARAMS 1: per channel (channel = (e / inner) % channels; one channel for the per-tensor
// .tensor form, one per row for per token) from the scales and zero_points buffers, inv_scale
// by div_rn.
// ROUNDING 0: round(x * inv_scale) + zero_point (per tensor and per channel, float32).
// ROUNDING 1: round(x * inv_scale + zero_point) (per token with float32 scales: the reference
// adds the zero point before rounding; a driver that fuses this multiply-add may differ where
// the sum is within a rounding of a half-integer).
// ROUNDING 2: zero_point + x / scale rounded exactly (per token with float64 scales, which the
// reference computes in float64; div_rn.wgsl's round_quotient).
// OUT_KIND 0 int32 (one element per word), 1 uint8, 2 int8 (four per word): one invocation
// owns one whole output word, so no two write the same word.
// div_rn.wgsl is prepended.
struct Params {
    numel: u32,
    words: u32,
    inner: u32,
    channels: u32,
    quant_min: f32,
    quant_max: f32,
    zero_point: f32,
    inv_scale: f32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> scales: array<f32>;
@group(0) @binding(2) var<storage, read> zero_points: array<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@group(0) @binding(4) var<uniform> params: Params;

override WG: u32 = 256;
override QPARAMS: u32 = 0;
override OUT_KIND: u32 = 0;
override ROUNDING: u32 = 0;

fn quantize(e: u32) -> i32 {
    var inv_scale = params.inv_scale;
    var zero_point = params.zero_point;
    if (QPARAMS == 1u) {
        let c = (e / params.inner) % params.channels;
        if (ROUNDING == 2u) {
            return round_quotient(x[e], scales[c], zero_points[c], i32(params.quant_min),
                                  i32(params.quant_max));
        }
        inv_scale = div_rn(1.0, scales[c]);
        zero_point = f32(zero_points[c]);
    }
    var r = round(x[e] * inv_scale) + zero_point;
    if (ROUNDING == 1u) {
        r = round(x[e] * inv_scale + zero_point);
    }
    return i32(clamp(r, params.quant_min, params.quant_max));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = gid.x + gid.y * nwg.x * WG;
    if (w >= params.words) {
        return;
    }
    if (OUT_KIND == 0u) {
        out[w] = bitcast<u32>(quantize(w));
        return;
    }
    var word = out[w];  // lanes past the end stay as they are
    for (var lane = 0u; lane < 4u; lane++) {
        let e = w * 4u + lane;
        if (e >= params.numel) {
            break;
        }
        word = insertBits(word, bitcast<u32>(quantize(e)), lane * 8u, 8u);
    }
    out[w] = word;
}
