// Max pooling with dilation, as PyTorch's CPU kernel: the window is clipped to the input, the
// first maximum wins, NaN propagates, and the index is h * W_in + w within the input plane
// (the first in-range tap when nothing beats the start value: -inf, or the lowest int, whose
// bits arrive in params.divisor). The op file prepends `store_index`, which writes `indices`
// or nothing, `is_nan`, and `start_value`, which makes a T of those bits.
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_index(gid, nwg);
    if (t >= params.total) {
        return;
    }
    let ox = t % params.W_out;
    let r = t / params.W_out;
    let oy = r % params.H_out;
    let plane = r / params.H_out;
    let H_in = i32(params.H_in);
    let W_in = i32(params.W_in);
    let dh = i32(params.dil_h);
    let dw = i32(params.dil_w);

    var y0 = i32(oy * params.stride_h) - i32(params.pad_h);
    var x0 = i32(ox * params.stride_w) - i32(params.pad_w);
    let y1 = min(y0 + i32((params.kH - 1u) * params.dil_h + 1u), H_in);
    let x1 = min(x0 + i32((params.kW - 1u) * params.dil_w + 1u), W_in);
    // Skip the taps that fall in the top/left padding.
    if (y0 < 0) {
        y0 += ((-y0 + dh - 1) / dh) * dh;
    }
    if (x0 < 0) {
        x0 += ((-x0 + dw - 1) / dw) * dw;
    }

    let base = plane * params.H_in * params.W_in;
    var best = start_value(params.divisor);
    var best_index = y0 * W_in + x0;
    for (var iy = y0; iy < y1; iy += dh) {
        for (var ix = x0; ix < x1; ix += dw) {
            let i = iy * W_in + ix;
            let v = x[base + u32(i)];
            // NaN wins and stays (only a later NaN moves the index), as PyTorch's
            // `val > max || isnan(val)`. WGSL may assume no NaNs in comparisons, so NaN is
            // tested on the bits (is_nan, prepended by the op file).
            if (is_nan(v) || (v > best && !is_nan(best))) {
                best = v;
                best_index = i;
            }
        }
    }
    out[t] = best;
    store_index(t, best_index);
}
