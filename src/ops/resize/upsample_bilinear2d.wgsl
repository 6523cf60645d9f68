// Bilinear resize, as PyTorch's CPU kernel (float32 index math):
//   align_corners: src = scale * dst with scale = (in - 1) / (out - 1) (0 when out = 1);
//   otherwise:     src = max(scale * (dst + 0.5) - 0.5, 0) with scale = in / out or
//                  1 / scale_factor.
// i0 = trunc(src), i1 = i0 + 1 unless i0 is the last, weight clamp(src - i0, 0, 1).
struct Taps {
    i0: u32,
    i1: u32,
    l1: f32,
}

fn taps(dst: u32, n_in: u32, scale: f32) -> Taps {
    var src: f32;
    if (params.align_corners != 0u) {
        src = scale * f32(dst);
    } else {
        src = max(scale * (f32(dst) + 0.5) - 0.5, 0.0);
    }
    let i0 = min(u32(src), n_in - 1u);
    let l1 = clamp(src - f32(i0), 0.0, 1.0);
    let i1 = select(i0, i0 + 1u, i0 < n_in - 1u);
    return Taps(i0, i1, l1);
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
    let ty = taps(oy, params.H_in, params.scale_h);
    let tx = taps(ox, params.W_in, params.scale_w);
    let base = plane * params.H_in;
    let row0 = (base + ty.i0) * params.W_in;
    let row1 = (base + ty.i1) * params.W_in;
    let top = (1.0 - tx.l1) * f32(x[row0 + tx.i0]) + tx.l1 * f32(x[row0 + tx.i1]);
    let bottom = (1.0 - tx.l1) * f32(x[row1 + tx.i0]) + tx.l1 * f32(x[row1 + tx.i1]);
    out[t] = T((1.0 - ty.l1) * top + ty.l1 * bottom);
}
