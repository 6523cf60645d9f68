// et_vk.q8ta_add and q8ta_relu: int8 in, int8 out, through the real values as the reference
// computes them in float32: a = (qa - za) * sa, b = (qb - zb) * sb; ADD 1: y = a + alpha * b,
// ADD 0: y = relu(a); then y requantized (quantize_int8). One invocation owns one output word.
// q8ta_common.wgsl is prepended.
struct Params {
    numel: u32,
    words: u32,
    a_zero_point: f32,
    a_scale: f32,
    b_zero_point: f32,
    b_scale: f32,
    alpha: f32,
    out_inv_scale: f32,
    out_zero_point: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;  // ADD 0: a again (never read)
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 256u;
override ADD: u32 = 1u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= params.words) {
        return;
    }
    let wa = a[i];
    var wb = 0u;
    if (ADD == 1u) {
        wb = b[i];
    }
    var word = out[i];  // lanes past the end stay as they are
    for (var lane = 0u; lane < 4u; lane++) {
        if (i * 4u + lane >= params.numel) {
            break;
        }
        let ra = (f32(int8_lane(wa, lane)) - params.a_zero_point) * params.a_scale;
        var y = max(ra, 0.0);
        if (ADD == 1u) {
            let rb = (f32(int8_lane(wb, lane)) - params.b_zero_point) * params.b_scale;
            y = ra + params.alpha * rb;
        }
        word = insertBits(word, quantize_int8(y, params.out_inv_scale, params.out_zero_point),
                          lane * 8u, 8u);
    }
    out[i] = word;
}
