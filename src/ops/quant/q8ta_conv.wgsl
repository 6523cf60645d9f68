// et_vk.q8ta_conv2d{,_pw,_dw,_transposed}, q8ta_linear{,_gemv} and linear_q8ta_q8csw: a
// convolution of int8 activations and int8 per-output-channel weights (symmetric, zero point
// 0). The products sum exactly in int32: acc = sum (x - x_zero_point) * w over the window
// (positions outside the input add nothing, as the reference's zero-padded real input does),
// then y = acc * x_scale * w_scale[oc] + bias[oc], relu if asked, and y requantized to int8
// (quantize_int8). A linear layer is the 1 x 1 convolution of [M, K, 1, 1].
// One invocation owns one output word (four int8 outputs of the flat NCHW order), so no two
// write the same word; the float output (OUTPUT_FLOAT) is one element an invocation.
// LAYOUT 0: weights [C_out, Kp], row oc holding (kh, kw, ic) at (kh * kW + kw) * C_in_g + ic
//           (the exporter's im2col order; Kp >= kH * kW * C_in_g, padded to a multiple of 4).
// LAYOUT 1: depthwise (groups = C_in = C_out): weights [kH, kW, C_out_p], tap (kh, kw) of
//           channel oc at (kh * kW + kw) * C_out_p + oc.
// LAYOUT 2: transposed, weights as LAYOUT 0 (row oc, (kh, kw, ic) of its group's inputs); an
//           output position takes the input positions ih with ih * stride - padding + kh *
//           dilation = oh.
// INPUT_FLOAT 1: x is float32, quantized here with x's scale and zero point first
// (linear_q8ta_q8csw: the input's quantize folded into the layer).
// q8ta_common.wgsl is prepended.
struct Params {
    C_in: u32,
    H_in: u32,
    W_in: u32,
    C_out: u32,
    H_out: u32,
    W_out: u32,
    groups: u32,
    w_row: u32,  // LAYOUT 0 / 2: Kp; LAYOUT 1: C_out_p
    kH: u32,
    kW: u32,
    stride_h: u32,
    stride_w: u32,
    pad_h: i32,
    pad_w: i32,
    dil_h: u32,
    dil_w: u32,
    numel: u32,
    words: u32,
    x_zero_point: i32,
    x_scale: f32,
    x_inv_scale: f32,
    out_inv_scale: f32,
    out_zero_point: f32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<u32>;  // int8 [N, C_in, H_in, W_in], or f32
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> w_scales: array<f32>;  // [>= C_out]
@group(0) @binding(3) var<storage, read> bias: array<f32>;      // [>= C_out]
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@group(0) @binding(5) var<uniform> params: Params;

override WG: u32 = 64u;
override LAYOUT: u32 = 0u;
override HAS_BIAS: u32 = 0u;
override RELU: u32 = 0u;
override INPUT_FLOAT: u32 = 0u;
override OUTPUT_FLOAT: u32 = 0u;

// x[e] - x_zero_point.
fn centred_input(e: u32) -> i32 {
    var q: i32;
    if (INPUT_FLOAT == 1u) {
        let y = bitcast<f32>(x[e]);
        q = i32(clamp(round(y * params.x_inv_scale) + f32(params.x_zero_point), -128.0, 127.0));
    } else {
        q = int8_lane(x[e / 4u], e % 4u);
    }
    return q - params.x_zero_point;
}

fn weight(e: u32) -> i32 {
    return int8_lane(w[e / 4u], e % 4u);
}

// The input coordinate that tap k of output coordinate o reads, or -1 for none.
fn source(o: u32, k: u32, stride: u32, pad: i32, dil: u32, size: u32) -> i32 {
    if (LAYOUT == 2u) {
        let t = i32(o) + pad - i32(k * dil);
        if (t < 0 || t % i32(stride) != 0) {
            return -1;
        }
        let i = t / i32(stride);
        return select(-1, i, i < i32(size));
    }
    let i = i32(o * stride + k * dil) - pad;
    return select(-1, i, i >= 0 && i < i32(size));
}

fn output_value(e: u32) -> f32 {
    let ow = e % params.W_out;
    let rest = e / params.W_out;
    let oh = rest % params.H_out;
    let oc = (rest / params.H_out) % params.C_out;
    let n = rest / (params.H_out * params.C_out);
    let cin_g = params.C_in / params.groups;
    let c0 = (oc / (params.C_out / params.groups)) * cin_g;  // the group's first input channel
    var acc = 0;
    for (var kh = 0u; kh < params.kH; kh++) {
        let ih = source(oh, kh, params.stride_h, params.pad_h, params.dil_h, params.H_in);
        if (ih < 0) {
            continue;
        }
        for (var kw = 0u; kw < params.kW; kw++) {
            let iw = source(ow, kw, params.stride_w, params.pad_w, params.dil_w, params.W_in);
            if (iw < 0) {
                continue;
            }
            let tap = kh * params.kW + kw;
            let pixel = u32(ih) * params.W_in + u32(iw);
            let plane = params.H_in * params.W_in;
            if (LAYOUT == 1u) {
                acc += centred_input((n * params.C_in + oc) * plane + pixel) *
                       weight(tap * params.w_row + oc);
            } else {
                let x0 = (n * params.C_in + c0) * plane + pixel;
                let w0 = oc * params.w_row + tap * cin_g;
                for (var ic = 0u; ic < cin_g; ic++) {
                    acc += centred_input(x0 + ic * plane) * weight(w0 + ic);
                }
            }
        }
    }
    var y = f32(acc) * (params.x_scale * w_scales[oc]);
    if (HAS_BIAS == 1u) {
        y += bias[oc];
    }
    if (RELU == 1u) {
        y = max(y, 0.0);
    }
    return y;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= params.words) {
        return;
    }
    if (OUTPUT_FLOAT == 1u) {
        out[i] = bitcast<u32>(output_value(i));
        return;
    }
    var word = out[i];  // lanes past the end stay as they are
    for (var lane = 0u; lane < 4u; lane++) {
        let e = i * 4u + lane;
        if (e >= params.numel) {
            break;
        }
        let q = quantize_int8(output_value(e), params.out_inv_scale, params.out_zero_point);
        word = insertBits(word, q, lane * 8u, 8u);
    }
    out[i] = word;
}
