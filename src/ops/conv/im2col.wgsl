// Unfolds the input of an ungrouped convolution into the B operand of a GEMM per image:
// cols[n][r][p] = x[n, ci, oy * stride_h + kh * dil_h - pad_h, ox * stride_w + kw * dil_w - pad_w]
// (0 outside the image), with r = (ci * kH + kh) * kW + kw (the weight's [C_out, C_in, kH, kW]
// order) and p = oy * W_out + ox. One invocation per element, p fastest, so writes coalesce.
// Params: conv_params.wgsl, prepended; `threads` is the element count. S: the element type
// (f32 or f16, prepended); the values are copied, so a float16 unfold is exact.

@group(0) @binding(0) var<storage, read> x: array<S>;
@group(0) @binding(1) var<storage, read_write> cols: array<S>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 256;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.threads) {
        return;
    }
    let hw = params.H_out * params.W_out;
    let taps = params.kH * params.kW;
    let k = params.C_in * taps;
    let p = t % hw;
    let r = (t / hw) % k;
    let n = t / (hw * k);
    let ox = p % params.W_out;
    let oy = p / params.W_out;
    let kw = r % params.kW;
    let kh = (r / params.kW) % params.kH;
    let ci = r / taps;
    let iy = i32(oy * params.stride_h + kh * params.dil_h) - i32(params.pad_h);
    let ix = i32(ox * params.stride_w + kw * params.dil_w) - i32(params.pad_w);
    var v = S(0.0);
    if (iy >= 0 && iy < i32(params.H_in) && ix >= 0 && ix < i32(params.W_in)) {
        v = x[((n * params.C_in + ci) * params.H_in + u32(iy)) * params.W_in + u32(ix)];
    }
    cols[t] = v;
}
