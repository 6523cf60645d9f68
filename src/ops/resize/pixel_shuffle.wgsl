// Pixel shuffle: out[b, c, h * r + i, w * r + j] = in[b, c * r * r + i * r + j, h, w], with
// every leading dim folded into b. One thread per output element.
struct Params {
    total: u32,
    C_out: u32,
    H_out: u32,
    W_out: u32,
    r: u32,
    H_in: u32,
    W_in: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> out: array<T>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 128;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.total) {
        return;
    }
    let ox = t % params.W_out;
    var rest = t / params.W_out;
    let oy = rest % params.H_out;
    rest = rest / params.H_out;
    let c = rest % params.C_out;
    let b = rest / params.C_out;
    let rr = params.r;
    let ci = (b * params.C_out + c) * rr * rr + (oy % rr) * rr + (ox % rr);
    out[t] = x[(ci * params.H_in + oy / rr) * params.W_in + ox / rr];
}
