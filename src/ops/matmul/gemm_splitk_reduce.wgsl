// The second pass of a split-K GEMM (gemm.wgsl with SPLIT_K): adds the `splits` partial sums of
// each output and applies the epilogue the first pass left out,
//   C[z][r, c] = clamp(act(alpha * sum_s partial[z * splits + s][r, c] + beta * bias) * scale
//                      + residual, out_min, out_max)
// (the residual read in C's layout, rows c_row_stride apart; act: ACTIVATION, GemmActivation's
// value; the scale per column, or per row with SCALE_ROWS).
// One invocation per output element, c fastest, so reads and writes coalesce; the chunks are
// added in order, so the result does not depend on scheduling.
// The partial sums are float32; bias, residual, scale and C are of the storage type S (f32 or
// f16, prepended with Params), widened to f32 as read and rounded once on the store.
// struct Params: gemm_params.wgsl and common/math.wgsl, prepended; epilogue(): gemm_epilogue.wgsl,
// appended.

@group(0) @binding(0) var<storage, read> partial: array<f32>;
@group(0) @binding(1) var<storage, read> bias: array<S>;
@group(0) @binding(2) var<storage, read_write> C: array<S>;
@group(0) @binding(3) var<uniform> params: Params;
@group(0) @binding(4) var<storage, read> residual: array<S>;
@group(0) @binding(5) var<storage, read> scale: array<S>;

override WG: u32 = 256u;
override HAS_BIAS: bool = false;
override HAS_RESIDUAL: bool = false;
override HAS_CLAMP: bool = false;
override ACTIVATION: u32 = 0u;  // 0 none, 1 GELU (erf), 2 GELU (tanh)
override HAS_SCALE: bool = false;
override SCALE_ROWS: bool = false;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    let mn = params.M * params.N;
    if (t >= params.batch * mn) {
        return;
    }
    let z = t / mn;
    let i = t % mn;
    let r = i / params.N;
    let c = i % params.N;
    var sum = 0.0;
    for (var s = 0u; s < params.splits; s++) {
        sum += partial[(z * params.splits + s) * mn + i];
    }
    let at = z * params.c_batch_stride + r * params.c_row_stride + c;
    C[at] = S(epilogue(sum, z, r, c, at));
}
