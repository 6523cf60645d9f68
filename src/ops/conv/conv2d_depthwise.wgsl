// Convolution with one input channel per group (depthwise, channel multiplier cout_g): one
// thread computes 4 adjacent output columns of one output channel. Threads are ordered column
// block, row, channel, image. The kernel size is a pipeline constant (KH x KW), so the tap loops
// have fixed trip counts the driver can unroll, and a row of taps whose 4 columns all fall inside
// the input loads them without per-column tests (every row but the edges).
override WG: u32 = 64;
override KH: u32 = 3;
override KW: u32 = 3;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.threads) {
        return;
    }
    let xb = t % params.x_blocks;
    var r = t / params.x_blocks;
    let oy = r % params.H_out;
    r = r / params.H_out;
    let co = r % params.C_out;
    let n = r / params.C_out;
    let ci = co / params.cout_g;  // the group's only input channel
    let ox0 = xb * 4u;
    let plane = (n * params.C_in + ci) * params.H_in;
    let w_base = co * KH * KW;

    var acc = vec4<f32>(0.0);
    let W_in = i32(params.W_in);
    let sw = params.stride_w;
    for (var kh = 0u; kh < KH; kh++) {
        let iy = i32(oy * params.stride_h + kh * params.dil_h) - i32(params.pad_h);
        if (iy < 0 || iy >= i32(params.H_in)) {
            continue;
        }
        let row = (plane + u32(iy)) * params.W_in;
        for (var kw = 0u; kw < KW; kw++) {
            let wv = f32(w[w_base + kh * KW + kw]);
            let ix0 = i32(ox0 * sw + kw * params.dil_w) - i32(params.pad_w);
            var xv = vec4<f32>(0.0);
            if (ix0 >= 0 && ix0 + i32(3u * sw) < W_in) {
                let at = row + u32(ix0);
                xv = vec4<f32>(f32(x[at]), f32(x[at + sw]), f32(x[at + 2u * sw]),
                               f32(x[at + 3u * sw]));
            } else {
                for (var j = 0u; j < 4u; j++) {
                    let ix = ix0 + i32(j * sw);
                    if (ix >= 0 && ix < W_in) {
                        xv[j] = f32(x[row + u32(ix)]);
                    }
                }
            }
            acc = fma(xv, vec4<f32>(wv), acc);
        }
    }

    store_columns(((n * params.C_out + co) * params.H_out + oy) * params.W_out, ox0, acc, co);
}
