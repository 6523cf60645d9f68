// Direct convolution: one thread computes 4 output channels of one group for 4 adjacent output
// columns of one row (16 accumulators fed by 4 weight and 4 input loads per tap). Threads are
// ordered column block, row, channel block, image, so a workgroup shares its weights.
// TRANSPOSED gathers, for each output, the input taps that a transposed convolution scatters
// into it; its weight is [C_in, C_out / groups, kH, kW].
override WG: u32 = 64;
override TRANSPOSED: bool = false;

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
    let blocks = params.groups * params.co_blocks;
    let cb = r % blocks;
    let n = r / blocks;
    let g = cb / params.co_blocks;
    let co_first = g * params.cout_g + (cb % params.co_blocks) * 4u;
    let co_end = (g + 1u) * params.cout_g;
    let ox0 = xb * 4u;
    let taps = params.kH * params.kW;

    // Weight offsets of the 4 channels (lanes past the group repeat its last channel so every
    // read stays in bounds; their results are dropped) and the step from one input channel to
    // the next.
    var co = vec4<u32>(co_first) + vec4<u32>(0u, 1u, 2u, 3u);
    co = min(co, vec4<u32>(co_end - 1u));
    var w_base: vec4<u32>;
    var w_step: u32;
    if (TRANSPOSED) {
        let local = co - vec4<u32>(g * params.cout_g);
        w_base = (vec4<u32>(g * params.cin_g * params.cout_g) + local) * taps;
        w_step = params.cout_g * taps;
    } else {
        w_base = co * (params.cin_g * taps);
        w_step = taps;
    }

    var acc: array<vec4<f32>, 4>;  // [column] -> 4 channels
    let W_in = i32(params.W_in);
    let H_in = i32(params.H_in);
    for (var ci = 0u; ci < params.cin_g; ci++) {
        let plane = (n * params.C_in + g * params.cin_g + ci) * params.H_in;
        let wc = w_base + vec4<u32>(ci * w_step);
        for (var kh = 0u; kh < params.kH; kh++) {
            var iy: i32;
            if (TRANSPOSED) {
                let ty = i32(oy + params.pad_h) - i32(kh * params.dil_h);
                if (ty < 0 || ty % i32(params.stride_h) != 0) {
                    continue;
                }
                iy = ty / i32(params.stride_h);
            } else {
                iy = i32(oy * params.stride_h + kh * params.dil_h) - i32(params.pad_h);
            }
            if (iy < 0 || iy >= H_in) {
                continue;
            }
            let row = (plane + u32(iy)) * params.W_in;
            for (var kw = 0u; kw < params.kW; kw++) {
                let wi = wc + vec4<u32>(kh * params.kW + kw);
                let wv = vec4<f32>(f32(w[wi.x]), f32(w[wi.y]), f32(w[wi.z]), f32(w[wi.w]));
                for (var j = 0u; j < 4u; j++) {
                    var ix: i32;
                    if (TRANSPOSED) {
                        let tx = i32(ox0 + j + params.pad_w) - i32(kw * params.dil_w);
                        if (tx < 0 || tx % i32(params.stride_w) != 0) {
                            continue;
                        }
                        ix = tx / i32(params.stride_w);
                    } else {
                        ix = i32((ox0 + j) * params.stride_w + kw * params.dil_w) -
                             i32(params.pad_w);
                    }
                    if (ix >= 0 && ix < W_in) {
                        acc[j] = fma(vec4<f32>(f32(x[row + u32(ix)])), wv, acc[j]);
                    }
                }
            }
        }
    }

    for (var j = 0u; j < 4u; j++) {
        let ox = ox0 + j;
        if (ox >= params.W_out) {
            break;
        }
        for (var c = 0u; c < 4u; c++) {
            let ch = co_first + c;
            if (ch >= co_end) {
                break;
            }
            let at = ((n * params.C_out + ch) * params.H_out + oy) * params.W_out + ox;
            out[at] = S(epilogue(acc[j][c], ch, at));
        }
    }
}
