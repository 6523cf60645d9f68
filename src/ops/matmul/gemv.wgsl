// The GEMM family's kernel for few rows of A (a batch-1 linear layer is one row): the same
// C[z] = alpha * A[z] @ op(B[z]) + beta * bias, with the same Params and bindings as gemm.wgsl,
// for A stored [M, K] (C's rows c_row_stride apart, as there). Such a product is bound by reading B once, which the tile kernel does
// badly: its BM-row tiles would stay almost empty and its few workgroups would walk K serially.
// Here each workgroup row (workgroup_id.y) is one row of A, and the invocations of a workgroup
// split K between them and add their partial sums in workgroup memory, so many workgroups each
// stream a narrow band of B:
//   TRANS_B (B [N, K], a linear weight): LANES invocations per output column walk its row of B,
//     so 32 neighbouring invocations read 128 contiguous bytes; WG / LANES columns per workgroup.
//   plain (B [K, N]): PLAIN_COLS columns per workgroup, WG / PLAIN_COLS slices of K; neighbouring
//     invocations read neighbouring columns of one row of B.
// Four accumulators per invocation keep four loads in flight. Scalar loads: along the
// direction neighbouring invocations run they are already fully coalesced.
// Tensors are of the storage type S (f32 or f16, prepended with Params); loads widen to f32, so
// the sums are f32 and an f16 result is rounded once, on the store.
// The epilogue, in gemm.wgsl's order: alpha, bias, activation (ACTIVATION: GemmActivation's
// value), scale per column or row (HAS_SCALE, SCALE_ROWS), residual, clamp: epilogue() of
// gemm_epilogue.wgsl, appended.
// struct Params: gemm_params.wgsl and common/math.wgsl, prepended.

@group(0) @binding(0) var<storage, read> A: array<S>;
@group(0) @binding(1) var<storage, read> B: array<S>;
@group(0) @binding(2) var<storage, read> bias: array<S>;
@group(0) @binding(3) var<storage, read_write> C: array<S>;
@group(0) @binding(4) var<uniform> params: Params;
@group(0) @binding(5) var<storage, read> residual: array<S>;  // HAS_RESIDUAL: C's layout
@group(0) @binding(6) var<storage, read> scale: array<S>;     // HAS_SCALE: N (SCALE_ROWS: M)

override WG: u32 = 256u;  // a power of two, 64..256
override TRANS_B: bool = false;
override HAS_BIAS: bool = false;
override HAS_RESIDUAL: bool = false;
override HAS_CLAMP: bool = false;
override ACTIVATION: u32 = 0u;  // 0 none, 1 GELU (erf), 2 GELU (tanh)
override HAS_SCALE: bool = false;
override SCALE_ROWS: bool = false;

const LANES = 32u;
const PLAIN_COLS = 16u;

var<workgroup> partial: array<f32, 256>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let M = params.M;
    let N = params.N;
    let K = params.K;
    let m = wid.y;
    let z = wid.z;
    // select(plain, transposed, TRANS_B)
    let col = select(wid.x * PLAIN_COLS + t % PLAIN_COLS, wid.x * (WG / LANES) + t / LANES,
                     TRANS_B);
    let slice = select(t / PLAIN_COLS, t % LANES, TRANS_B);
    let slices = select(WG / PLAIN_COLS, LANES, TRANS_B);
    let inside = col < N && m < M;

    var s0 = 0.0;
    var s1 = 0.0;
    var s2 = 0.0;
    var s3 = 0.0;
    if (inside) {
        let a = z * params.a_batch_stride + m * K;
        // B's element k of this column sits at b + k * step.
        let b = z * params.b_batch_stride + select(col, col * K, TRANS_B);
        let step = select(N, 1u, TRANS_B);
        var k = slice;
        for (; k + 3u * slices < K; k += 4u * slices) {
            s0 = fma(f32(A[a + k]), f32(B[b + k * step]), s0);
            s1 = fma(f32(A[a + k + slices]), f32(B[b + (k + slices) * step]), s1);
            s2 = fma(f32(A[a + k + 2u * slices]), f32(B[b + (k + 2u * slices) * step]), s2);
            s3 = fma(f32(A[a + k + 3u * slices]), f32(B[b + (k + 3u * slices) * step]), s3);
        }
        for (; k < K; k += slices) {
            s0 = fma(f32(A[a + k]), f32(B[b + k * step]), s0);
        }
    }
    partial[t] = (s0 + s1) + (s2 + s3);
    workgroupBarrier();

    // Tree sum over the slices of each column (neighbours in TRANS_B, PLAIN_COLS apart else).
    let stride = select(PLAIN_COLS, 1u, TRANS_B);
    for (var s = slices / 2u; s > 0u; s /= 2u) {
        if (slice < s) {
            partial[t] += partial[t + s * stride];
        }
        workgroupBarrier();
    }

    if (slice == 0u && inside) {
        let at = z * params.c_batch_stride + m * params.c_row_stride + col;
        C[at] = S(epilogue(partial[t], z, m, col, at));
    }
}
