// The one GEMM of the engine (mm, bmm, matmul, addmm, linear; 1x1 convolution can use it):
//   C[z] = alpha * op(A[z]) @ op(B[z]) + beta * bias,   z = workgroup_id.z (the batch)
// op(A) is [M, K]: A stored [M, K], or [K, M] read transposed (TRANS_A). op(B) is [K, N]: B stored
// [K, N], or [N, K] read transposed (a linear layer's weight, TRANS_B). The bias is read at
// bias_batch_stride * z + bias_row_stride * r + bias_col_stride * c, so any operand
// broadcastable to [M, N] works in place (stride 0 where it broadcasts). The rows of C and of
// the residual are c_row_stride apart: N, or the full width when C is a range of the columns
// of a wider output (a weight bound in parts, gemm.h).
//
// Tiling: a workgroup of WG_X x WG_Y invocations computes a BM x BN tile of C; each invocation
// a TM x TN block of it in registers (BM = WG_Y * TM, BN = WG_X * TN). The invocation's rows are
// TM / 4 groups of 4, spaced WG_Y * 4 apart, and its columns TN / 4 groups of 4, spaced WG_X * 4
// apart, so neighbouring invocations read neighbouring vec4s of the workgroup tiles (no bank
// conflicts) and write neighbouring vec4s of C (coalesced). K is walked BK at a time through
// workgroup memory, both tiles stored k-major as vec4 ([k][m / 4] and [k][n / 4]); the global
// loads of the next K step are issued into registers before the current step is computed, which
// hides their latency behind the FMAs. Loads and stores are vec4 where the sizes allow (the
// `Elem` aliases), else four bounds-checked scalars: any M, N, K works.
//
// Element types: float32, or float16 storage (the aliases are f16 / vec4<f16>, "enable f16;"
// first): loads widen to f32 as they are fetched, so the workgroup tiles, the accumulators and
// the whole epilogue stay f32 and the result is rounded to f16 once, by the store.
//
// Epilogue: alpha, the bias, an activation (GELU; a linear layer followed by gelu), a scale per
// column or row (a layer scale), a residual of C's own layout (HAS_RESIDUAL; a convolution or a
// linear layer followed by an add, or multiplying: a SwiGLU's gate times its up projection), then a clamp to [out_min, out_max] (HAS_CLAMP; a fused
// activation), max first as PyTorch's clamp. The activation and the scale exist only in the
// variants that use them: their lines (//@ACTIVATE, //@SCALE, and the scale's binding) are
// empty in the others, whose text stays as it was before these steps existed.
//
// Split K (SPLIT_K): a problem with too few output tiles to fill the GPU also splits K into
// `splits` chunks of `k_chunk` (a multiple of BK); workgroup_id.z = batch * splits + chunk, and
// each workgroup writes its raw partial sums to C = a scratch [batch * splits, M, N] (no
// epilogue, c_batch_stride = M * N). gemm_splitk_reduce.wgsl then adds the chunks and applies
// the epilogue.
//
// This file is a template: gemm_kernel.cpp prepends one variant's constants (BM, BN, BK, WG_X,
// WG_Y, HAS_BIAS, HAS_RESIDUAL, HAS_CLAMP, SPLIT_K), element aliases (AElem, BElem, CElem,
// BiasElem, RElem), gemm_params.wgsl and, for an activation, common/math.wgsl, and replaces
// each `//@NAME` line with straight-line code for that variant. The hot loop body is unrolled
// there rather than written as WGSL loops because naga emits every loop as a bounded `loop`
// that downstream compilers do not reliably unroll; an accumulator array indexed inside such a
// loop would then live in memory instead of registers.
// struct Params: gemm_params.wgsl, prepended.

@group(0) @binding(0) var<storage, read> A: array<AElem>;
@group(0) @binding(1) var<storage, read> B: array<BElem>;
@group(0) @binding(2) var<storage, read> bias: array<BiasElem>;
@group(0) @binding(3) var<storage, read_write> C: array<CElem>;
@group(0) @binding(4) var<uniform> params: Params;
@group(0) @binding(5) var<storage, read> residual: array<RElem>;
//@SCALE_BINDING

var<workgroup> tile_a: array<vec4<f32>, BK * BM / 4u>;  // [k][m / 4]
var<workgroup> tile_b: array<vec4<f32>, BK * BN / 4u>;  // [k][n / 4]

// The end of this workgroup's K range (params.K, or its chunk's end when SPLIT_K).
var<private> k_end: u32;

// Four elements of op(A) from batch offset `base`: rows m..m+3 at column k when A is read
// transposed, else row m at columns k..k+3. Outside the matrix reads zero.
fn fetch_a(base: u32, m: u32, k: u32) -> vec4<f32> {
//@FETCH_A
}

// Four elements of op(B): row k at columns n..n+3, or (transposed) column n at rows k..k+3.
fn fetch_b(base: u32, n: u32, k: u32) -> vec4<f32> {
//@FETCH_B
}

// Writes C[z] row r, columns c..c+3 (those inside the matrix) with the epilogue applied.
fn store_c(base: u32, z: u32, r: u32, c: u32, acc: vec4<f32>) {
    if (r >= params.M) {
        return;
    }
    if (SPLIT_K) {
        // Raw partial sums; the reduce pass applies the epilogue.
        let v = acc;
//@STORE_C
        return;
    }
    var v = params.alpha * acc;
    if (HAS_BIAS) {
        let row = z * params.bias_batch_stride + r * params.bias_row_stride;
        for (var j = 0u; j < 4u; j++) {
            if (c + j < params.N) {
                v[j] += params.beta * f32(bias[row + (c + j) * params.bias_col_stride]);
            }
        }
    }
//@ACTIVATE
//@SCALE
    if (HAS_RESIDUAL) {
//@ADD_RESIDUAL
    }
    if (HAS_CLAMP) {
        v = min(max(v, vec4<f32>(params.out_min)), vec4<f32>(params.out_max));
    }
//@STORE_C
}

@compute @workgroup_size(WG_X, WG_Y)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) tid: u32) {
    let tx = lid.x;
    let ty = lid.y;
    let m0 = wid.y * BM;
    let n0 = wid.x * BN;
    // The batch, and with SPLIT_K the K chunk, from workgroup_id.z.
    var z = wid.z;
    var k_begin = 0u;
    k_end = params.K;
    if (SPLIT_K) {
        z = wid.z / params.splits;
        k_begin = (wid.z % params.splits) * params.k_chunk;
        k_end = min(params.K, k_begin + params.k_chunk);
    }
    let a_base = z * params.a_batch_stride;
    let b_base = z * params.b_batch_stride;
    let c_base = wid.z * params.c_batch_stride;

    // Accumulators and the registers that carry the next K step's tile loads.
//@DECLARE

    // The first K step's loads.
    var k0 = k_begin;
//@PREFETCH_FIRST
    let steps = (k_end - k_begin + BK - 1u) / BK;
    for (var step = 0u; step < steps; step++) {
//@STORE_TILES
        workgroupBarrier();
        k0 += BK;
        if (step + 1u < steps) {
//@PREFETCH_NEXT
        }
//@COMPUTE
        workgroupBarrier();
    }

//@EPILOGUE
}
