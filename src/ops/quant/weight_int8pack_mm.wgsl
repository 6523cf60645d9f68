// aten._weight_int8pack_mm: out[m, n] = scales[n] * sum_k x[m, k] * w[n, k], w int8 [N, K] (one
// symmetric scale per output channel), read four weights (a u32 word) at a time and widened in
// registers. LANES invocations share one output column and walk its row a word each, so
// neighbouring invocations read neighbouring words; ROWS rows of x per workgroup (workgroup_id.y)
// so that each weight word serves ROWS rows.
struct Params {
    M: u32,
    N: u32,
    K: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;  // [M, K]
@group(0) @binding(1) var<storage, read> w: array<u32>;        // [N, K / 4]
@group(0) @binding(2) var<storage, read> scales: array<f32>;   // [N]
@group(0) @binding(3) var<storage, read_write> out: array<f32>;  // [M, N]
@group(0) @binding(4) var<uniform> params: Params;

override WG: u32 = 256u;
override LANES: u32 = 32u;  // a power of two dividing WG
override ROWS: u32 = 1u;    // 1..MAX_ROWS

const MAX_ROWS = 4u;

var<workgroup> partial: array<f32, WG>;

// The four int8 weights of a word, sign-extended.
fn weights(word: u32) -> vec4<f32> {
    let v = bitcast<vec4<i32>>(vec4<u32>(word << 24u, word << 16u, word << 8u, word)) >>
            vec4<u32>(24u);
    return vec4<f32>(v);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let col = wid.x * (WG / LANES) + t / LANES;
    let lane = t % LANES;
    let m0 = wid.y * ROWS;
    let words = params.K / 4u;
    var acc = array<f32, MAX_ROWS>(0.0, 0.0, 0.0, 0.0);
    if (col < params.N) {
        for (var j = lane; j < words; j += LANES) {
            let wv = weights(w[col * words + j]);
            for (var r = 0u; r < ROWS; r++) {
                let m = min(m0 + r, params.M - 1u);  // a row past M computes row M - 1, unused
                acc[r] += dot(wv, x[m * words + j]);
            }
        }
    }
    for (var r = 0u; r < ROWS; r++) {
        partial[t] = acc[r];
        workgroupBarrier();
        for (var s = LANES / 2u; s > 0u; s /= 2u) {
            if (lane < s) {
                partial[t] += partial[t + s];
            }
            workgroupBarrier();
        }
        let m = m0 + r;
        if (lane == 0u && col < params.N && m < params.M) {
            out[m * params.N + col] = partial[t] * scales[col];
        }
        workgroupBarrier();
    }
}
