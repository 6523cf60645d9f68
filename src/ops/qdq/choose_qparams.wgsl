// choose_qparams.tensor: the per-tensor affine scale and zero point of x (determine_qparams of
// torch/ao/quantization/utils.py, per_tensor_affine):
//   min_neg = min(min(x), 0), max_pos = max(max(x), 0)
//   scale = max((max_pos - min_neg) / (quant_max - quant_min), eps)
//   zero_point = clamp(quant_min - round(min_neg / scale), quant_min, quant_max)
// in float32 with exact divisions (div_rn.wgsl, prepended with the workgroup reduction
// prelude). One workgroup; an empty x gives the reference's defaults, scale 1 and zero point 0.
struct Params {
    numel: u32,
    quant_min: i32,
    quant_max: i32,
    eps: f32,
    range: f32,  // float(quant_max - quant_min), made on the host
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> scale_out: array<f32>;
@group(0) @binding(2) var<storage, read_write> zero_point_out: array<i32>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 256;

@compute @workgroup_size(WG)
fn main(ids: ReduceIds) {
    var lo = 3.4028235e38;
    var hi = -3.4028235e38;
    for (var e = ids.lid; e < params.numel; e += WG) {
        lo = min(lo, x[e]);
        hi = max(hi, x[e]);
    }
    lo = -workgroup_max(-lo, ids);
    hi = workgroup_max(hi, ids);
    if (ids.lid != 0u) {
        return;
    }
    if (params.numel == 0u) {
        scale_out[0] = 1.0;
        zero_point_out[0] = 0;
        return;
    }
    let min_neg = min(lo, 0.0);
    let max_pos = max(hi, 0.0);
    let scale = max(div_rn(max_pos - min_neg, params.range),
                    params.eps);
    let zero_point = params.quant_min - i32(round(-div_rn(-min_neg, scale)));
    scale_out[0] = scale;
    zero_point_out[0] = clamp(zero_point, params.quant_min, params.quant_max);
}
