// C[b] = A[b] @ B[b] for row-major A [M, K], B [K, N], C [M, N], batch in workgroup z.
// A workgroup of 8x8 threads computes a 32x32 tile of C, each thread a 4x4 block, walking K in
// steps of 16 through workgroup memory.
struct Params {
    M: u32,
    N: u32,
    K: u32,
    batch: u32,
    a_batch_stride: u32,  // elements between batches (0: shared operand)
    b_batch_stride: u32,
    c_batch_stride: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

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
        // 512 elements per tile, 8 per thread.
        for (var e = 0u; e < 8u; e++) {
            let idx = tid + e * 64u;
            let r = idx / TK;
            let c = idx % TK;
            var va = 0.0;
            if (row0 + r < M && k0 + c < K) {
                va = A[a0 + (row0 + r) * K + k0 + c];
            }
            tile_a[r][c] = va;
            let rb = idx / TN;
            let cb = idx % TN;
            var vb = 0.0;
            if (k0 + rb < K && col0 + cb < N) {
                vb = B[b0 + (k0 + rb) * N + col0 + cb];
            }
            tile_b[rb][cb] = vb;
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
                C[c0 + r * N + c] = acc[i][j];
            }
        }
    }
}
