// et_vk.q8ta_add, q8ta_relu and q8ta_pixel_shuffle: int8 in, int8 out, through the real values
// as the reference computes them in float32: a = (qa - za) * sa, b = (qb - zb) * sb; MODE 1:
// y = a + alpha * b; MODE 0: y = relu(a); MODE 2: y = a at the pixel shuffle's source of the
// output element (out [N, C, H * r, W * r] from a [N, C * r * r, H, W]); then y requantized
// (quantize_int8). One invocation owns one output word.
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
    r: u32,  // MODE 2: the upscale factor, and out's sizes
    C: u32,
    H: u32,
    W: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;  // MODE 0 and 2: a again (never read)
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 256u;
override MODE: u32 = 1u;

// The element of a whose value output element e takes.
fn source(e: u32) -> u32 {
    if (MODE != 2u) {
        return e;
    }
    let ow = e % params.W;
    let oh = (e / params.W) % params.H;
    let nc = e / (params.W * params.H);  // n * C + c
    let r = params.r;
    let channel = nc * r * r + (oh % r) * r + ow % r;  // of the input, n's included
    return (channel * (params.H / r) + oh / r) * (params.W / r) + ow / r;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= params.words) {
        return;
    }
    var word = out[i];  // lanes past the end stay as they are
    for (var lane = 0u; lane < 4u; lane++) {
        let e = i * 4u + lane;
        if (e >= params.numel) {
            break;
        }
        let s = source(e);
        let ra = (f32(int8_lane(a[s / 4u], s % 4u)) - params.a_zero_point) * params.a_scale;
        var y = ra;
        if (MODE == 0u) {
            y = max(ra, 0.0);
        } else if (MODE == 1u) {
            let rb = (f32(int8_lane(b[i], lane)) - params.b_zero_point) * params.b_scale;
            y = ra + params.alpha * rb;
        }
        word = insertBits(word, quantize_int8(y, params.out_inv_scale, params.out_zero_point),
                          lane * 8u, 8u);
    }
    out[i] = word;
}
