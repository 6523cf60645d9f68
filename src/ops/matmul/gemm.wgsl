// C[b] = alpha * A[b] @ op(B[b]) + beta * bias, for row-major A [M, K] and B [K, N], or B
// [N, K] read transposed (TRANS_B: a linear layer's weight, no materialised transpose). The
// bias is read at bias_batch_stride * b + bias_row_stride * r + bias_col_stride * c, so any
// operand broadcastable to [M, N] works (strides 0 where it broadcasts). Batch in workgroup z.
// A workgroup of 8x8 invocations computes a 32x32 tile of C, each invocation a 4x4 block,
// walking K in steps of 16 through workgroup memory; tile loads are coalesced along K for A
// and transposed B, along N for plain B.
struct Params {
    M: u32,
    N: u32,
    K: u32,
    batch: u32,
    a_batch_stride: u32,  // elements between batches (0: shared operand)
    b_batch_stride: u32,
    c_batch_stride: u32,
    bias_batch_stride: u32,
    bias_row_stride: u32,
    bias_col_stride: u32,
    alpha: f32,
    beta: f32,
}

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

override TRANS_B: bool = false;
override HAS_BIAS: bool = false;

const TM = 32u;
const TN = 32u;
const TK = 16u;

var<workgroup> tile_a: array<array<f32, TK>, TM>;
var<workgroup> tile_b: array<array<f32, TN>, TK>;

@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let M = params.M;
    let N = params.N;
    let K = params.K;
    let a0 = wid.z * params.a_batch_stride;
    let b0 = wid.z * params.b_batch_stride;
    let c0 = wid.z * params.c_batch_stride;
    let row0 = wid.y * TM;
    let col0 = wid.x * TN;
    let tid = lid.y * 8u + lid.x;

    var acc: array<array<f32, 4>, 4>;
    for (var k0 = 0u; k0 < K; k0 += TK) {
        // 512 elements per tile, 8 per invocation.
        for (var e = 0u; e < 8u; e++) {
            let idx = tid + e * 64u;
            let r = idx / TK;
            let c = idx % TK;
            var va = 0.0;
            if (row0 + r < M && k0 + c < K) {
                va = A[a0 + (row0 + r) * K + k0 + c];
            }
            tile_a[r][c] = va;
            if (TRANS_B) {
                // idx walks B's rows (output columns) with k fastest.
                let n = idx / TK;
                let k = idx % TK;
                var vb = 0.0;
                if (col0 + n < N && k0 + k < K) {
                    vb = B[b0 + (col0 + n) * K + k0 + k];
                }
                tile_b[k][n] = vb;
            } else {
                let rb = idx / TN;
                let cb = idx % TN;
                var vb = 0.0;
                if (k0 + rb < K && col0 + cb < N) {
                    vb = B[b0 + (k0 + rb) * N + col0 + cb];
                }
                tile_b[rb][cb] = vb;
            }
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            var av: array<f32, 4>;
            var bv: array<f32, 4>;
            for (var i = 0u; i < 4u; i++) {
                av[i] = tile_a[lid.y * 4u + i][kk];
                bv[i] = tile_b[kk][lid.x * 4u + i];
            }
            for (var i = 0u; i < 4u; i++) {
                for (var j = 0u; j < 4u; j++) {
                    acc[i][j] = fma(av[i], bv[j], acc[i][j]);
                }
            }
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < 4u; i++) {
        let r = row0 + lid.y * 4u + i;
        for (var j = 0u; j < 4u; j++) {
            let c = col0 + lid.x * 4u + j;
            if (r < M && c < N) {
                var v = params.alpha * acc[i][j];
                if (HAS_BIAS) {
                    v += params.beta * bias[wid.z * params.bias_batch_stride +
                                            r * params.bias_row_stride + c * params.bias_col_stride];
                }
                C[c0 + r * N + c] = v;
            }
        }
    }
}
