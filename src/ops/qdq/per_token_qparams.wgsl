// choose_qparams_per_token_asymmetric: one scale and zero point per row (the last dim) for the
// int8 range [-128, 127], as _choose_qparams_per_token_asymmetric_impl of
// torch/ao/quantization/fx/_decomposed.py does in float32:
//   min_neg = min(min(row), 0), max_pos = max(max(row), 0)
//   scale = max((max_pos - min_neg) / 255, float32 eps)
//   zero_point: from whichever end has the smaller error, clamped to [-128, 127], rounded.
// Exact divisions (div_rn.wgsl, prepended after the workgroup reduction prelude). One
// workgroup per row.
struct Params {
    rows: u32,
    row_len: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> scale_out: array<f32>;
@group(0) @binding(2) var<storage, read_write> zero_point_out: array<i32>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 256;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        ids: ReduceIds) {
    let row = wid.x + wid.y * nwg.x;  // uniform across the workgroup
    if (row >= params.rows) {
        return;
    }
    let base = row * params.row_len;
    var lo = 3.4028235e38;
    var hi = -3.4028235e38;
    for (var k = ids.lid; k < params.row_len; k += WG) {
        lo = min(lo, x[base + k]);
        hi = max(hi, x[base + k]);
    }
    lo = -workgroup_max(-lo, ids);
    hi = workgroup_max(hi, ids);
    if (ids.lid != 0u) {
        return;
    }
    let min_neg = min(lo, 0.0);
    let max_pos = max(hi, 0.0);
    let scale = max(div_rn(max_pos - min_neg, 255.0), 1.1920929e-07);
    let descaled_min = -div_rn(-min_neg, scale);
    let descaled_max = div_rn(max_pos, scale);
    let from_min_error = -128.0 + descaled_min;
    let from_max_error = 127.0 + descaled_max;
    let zero_point = select(127.0 - descaled_max, -128.0 - descaled_min,
                            from_min_error + from_max_error > 0.0);
    scale_out[row] = scale;
    zero_point_out[row] = i32(round(clamp(zero_point, -128.0, 127.0)));
}
