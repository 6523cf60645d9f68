// The 8-bit dynamic quantization of an 8da4w linear layer's input, as float values: each row of
// x quantized with its scale s and zero point zp and dequantized again,
//   out[m, k] = (quantize_i8(x[m, k], 1 / s, zp) - zp) * s
// so that a prefill can take the layer as the tiled GEMM of float activations and 4-bit weights
// (linear_q4gsw.cpp). s and zp are read (the outputs of a choose_qparams_affine call: x_scale,
// x_zp as int8 or int32) or, with OWN_QPARAMS, found from the row's minimum and maximum by
// torchao's formulas. One workgroup per row, in vec4s (K a multiple of 4).
// The C++ side prepends common/workgroup_reduce's prelude (alias T = f32) and dq8_math.wgsl.
struct Params {
    M: u32,
    K: u32,
    eps: f32,  // OWN_QPARAMS: the smallest scale
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;          // [M, K]
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;  // [M, K]
@group(0) @binding(2) var<uniform> params: Params;
@group(0) @binding(3) var<storage, read> x_scale: array<f32>;  // [M] unless OWN_QPARAMS
@group(0) @binding(4) var<storage, read> x_zp: array<u32>;     // [M], int8 (ZP_BYTES) or int32

override WG: u32 = 256u;
override OWN_QPARAMS: bool = false;
override ZP_BYTES: bool = true;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        ids: ReduceIds) {
    let m = wid.x + wid.y * nwg.x;  // uniform across the workgroup
    if (m >= params.M) {
        return;
    }
    let row = m * (params.K / 4u);
    var s: f32;
    var zp: i32;
    if (OWN_QPARAMS) {
        var lo = 0.0;
        var hi = 0.0;
        for (var k = ids.lid; k < params.K / 4u; k += WG) {
            let v = x[row + k];
            lo = min(lo, min(min(v.x, v.y), min(v.z, v.w)));
            hi = max(hi, max(max(v.x, v.y), max(v.z, v.w)));
        }
        lo = -workgroup_max(-lo, ids);
        hi = workgroup_max(hi, ids);
        s = row_scale_of(lo, hi, params.eps);
        zp = row_zero_point_of(lo, s);
    } else {
        s = x_scale[m];
        if (ZP_BYTES) {
            zp = extractBits(bitcast<i32>(x_zp[m / 4u]), (m % 4u) * 8u, 8u);
        } else {
            zp = bitcast<i32>(x_zp[m]);
        }
    }
    let inv = reciprocal(s);
    for (var k = ids.lid; k < params.K / 4u; k += WG) {
        let v = x[row + k];
        let q = vec4<i32>(quantize_i8(v.x, inv, zp), quantize_i8(v.y, inv, zp),
                          quantize_i8(v.z, inv, zp), quantize_i8(v.w, inv, zp));
        out[row + k] = vec4<f32>(q - vec4<i32>(zp)) * s;
    }
}
