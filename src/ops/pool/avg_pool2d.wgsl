// Average pooling, as PyTorch: the window is cut at the padded edge (ceil_mode windows can run
// past it), its size there is the count_include_pad divisor; the sum runs over the part inside
// the input, whose size is the other divisor; divisor_override replaces both. A window with
// nothing inside the input gives 0.
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

    var y0 = i32(oy * params.stride_h) - i32(params.pad_h);
    var x0 = i32(ox * params.stride_w) - i32(params.pad_w);
    var y1 = min(y0 + i32(params.kH), H_in + i32(params.pad_h));
    var x1 = min(x0 + i32(params.kW), W_in + i32(params.pad_w));
    let padded_count = (y1 - y0) * (x1 - x0);
    y0 = max(y0, 0);
    x0 = max(x0, 0);
    y1 = min(y1, H_in);
    x1 = min(x1, W_in);
    if (y0 >= y1 || x0 >= x1) {
        out[t] = T(0);
        return;
    }

    let base = plane * params.H_in * params.W_in;
    var sum = 0.0;
    for (var iy = y0; iy < y1; iy++) {
        let row = base + u32(iy) * params.W_in;
        for (var ix = x0; ix < x1; ix++) {
            sum += f32(x[row + u32(ix)]);
        }
    }
    var divisor: i32;
    if ((params.flags & HAS_DIVISOR) != 0u) {
        divisor = params.divisor;
    } else if ((params.flags & COUNT_PAD) != 0u) {
        divisor = padded_count;
    } else {
        divisor = (y1 - y0) * (x1 - x0);
    }
    out[t] = T(sum / f32(divisor));
}
