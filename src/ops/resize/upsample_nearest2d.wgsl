// Nearest upsampling, as PyTorch: src = min(floor(dst * scale), in - 1) with the product in
// float32, and the exact shortcuts for equal and doubled sizes.
fn nearest(dst: u32, n_in: u32, n_out: u32, scale: f32) -> u32 {
    if (n_out == n_in) {
        return dst;
    }
    if (n_out == 2u * n_in) {
        return dst >> 1u;
    }
    return min(u32(floor(f32(dst) * scale)), n_in - 1u);
}

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
    let iy = nearest(oy, params.H_in, params.H_out, params.scale_h);
    let ix = nearest(ox, params.W_in, params.W_out, params.scale_w);
    out[t] = x[(plane * params.H_in + iy) * params.W_in + ix];
}
