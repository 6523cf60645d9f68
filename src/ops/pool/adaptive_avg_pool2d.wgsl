// Adaptive average pooling, as PyTorch: output cell i of n covers input rows
// floor(i * H_in / H_out) .. ceil((i + 1) * H_in / H_out) (exclusive), likewise for columns.
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

    let y0 = (oy * params.H_in) / params.H_out;
    let y1 = ((oy + 1u) * params.H_in + params.H_out - 1u) / params.H_out;
    let x0 = (ox * params.W_in) / params.W_out;
    let x1 = ((ox + 1u) * params.W_in + params.W_out - 1u) / params.W_out;

    let base = plane * params.H_in * params.W_in;
    var sum = 0.0;
    for (var iy = y0; iy < y1; iy++) {
        let row = base + iy * params.W_in;
        for (var ix = x0; ix < x1; ix++) {
            sum += f32(x[row + ix]);
        }
    }
    out[t] = T(sum / f32((y1 - y0) * (x1 - x0)));
}
