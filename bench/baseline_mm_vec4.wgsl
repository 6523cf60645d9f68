// The float32 mm kernel the engine used before the GEMM family of src/ops/matmul/gemm.wgsl
// (src/ops/matmul/mm_vec4.wgsl at commit d057c4f, unchanged below this header). It is kept
// here only so that wgx_microbench --sweep shows the old and new kernels side by side.
//
// C[b] = A[b] @ B[b] for K and N multiples of 4: A is read as vec4 along K,
// B and C as vec4 along N (128-bit loads and stores).
struct Params {
    M: u32,
    N: u32,
    K: u32,
    batch: u32,
    a_batch_stride: u32,
    b_batch_stride: u32,
    c_batch_stride: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> A: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> B: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> C: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> params: Params;

const TM = 32u;
const TN4 = 8u;   // 32 columns as vec4
const TK = 16u;
const TK4 = 4u;   // 16 k as vec4

var<workgroup> tile_a: array<array<vec4<f32>, TK4>, TM>;  // [row][k/4]
var<workgroup> tile_b: array<array<vec4<f32>, TN4>, TK>;  // [k][col/4]

@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let M = params.M;
    let N4 = params.N / 4u;
    let K = params.K;
    let K4 = K / 4u;
    let a0 = wid.z * params.a_batch_stride / 4u;
    let b0 = wid.z * params.b_batch_stride / 4u;
    let c0 = wid.z * params.c_batch_stride / 4u;
    let row0 = wid.y * TM;
    let col40 = wid.x * TN4;
    let tid = lid.y * 8u + lid.x;

    var acc: array<vec4<f32>, 4>;
    for (var k0 = 0u; k0 < K; k0 += TK) {
        let k40 = k0 / 4u;
        // tile_a: 32 x 4 vec4 = 128, two per thread; tile_b: 16 x 8 vec4 = 128, two per thread.
        for (var e = 0u; e < 2u; e++) {
            let idx = tid + e * 64u;
            let r = idx / TK4;
            let c = idx % TK4;
            var va = vec4<f32>(0.0);
            if (row0 + r < M && k40 + c < K4) {
                va = A[a0 + (row0 + r) * K4 + k40 + c];
            }
            tile_a[r][c] = va;
            let rb = idx / TN4;
            let cb = idx % TN4;
            var vb = vec4<f32>(0.0);
            if (k0 + rb < K && col40 + cb < N4) {
                vb = B[b0 + (k0 + rb) * N4 + col40 + cb];
            }
            tile_b[rb][cb] = vb;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK4; kk++) {
            let b_0 = tile_b[kk * 4u + 0u][lid.x];
            let b_1 = tile_b[kk * 4u + 1u][lid.x];
            let b_2 = tile_b[kk * 4u + 2u][lid.x];
            let b_3 = tile_b[kk * 4u + 3u][lid.x];
            for (var i = 0u; i < 4u; i++) {
                let a = tile_a[lid.y * 4u + i][kk];
                acc[i] = fma(vec4<f32>(a.x), b_0, acc[i]);
                acc[i] = fma(vec4<f32>(a.y), b_1, acc[i]);
                acc[i] = fma(vec4<f32>(a.z), b_2, acc[i]);
                acc[i] = fma(vec4<f32>(a.w), b_3, acc[i]);
            }
        }
        workgroupBarrier();
    }
    let c4 = col40 + lid.x;
    for (var i = 0u; i < 4u; i++) {
        let r = row0 + lid.y * 4u + i;
        if (r < M && c4 < N4) {
            C[c0 + r * N4 + c4] = acc[i];
        }
    }
}
