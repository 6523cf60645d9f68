// The GEMM epilogue of one output element, for the kernels that finish elements one at a time
// (gemv.wgsl, gemm_splitk_reduce.wgsl; gemm.wgsl applies the same steps to vec4s): alpha, the
// bias, the activation (ACTIVATION: 0 none, 1 GELU erf, 2 GELU tanh; common/math.wgsl; SiLU
// and hardswish are written into the //@ACTIVATE line by gemm.cpp, empty otherwise), the
// scale (per column, or per row with SCALE_ROWS), the residual at C's index `at` (added, or
// multiplied where gemm.cpp writes `*=` into the //@RESIDUAL line), the clamp.
// Appended to a kernel that declares Params `params`, the bindings bias, scale and residual and
// the overrides HAS_BIAS, ACTIVATION, HAS_SCALE, SCALE_ROWS, HAS_RESIDUAL and HAS_CLAMP.
fn epilogue(acc: f32, z: u32, r: u32, c: u32, at: u32) -> f32 {
    var v = params.alpha * acc;
    if (HAS_BIAS) {
        v += params.beta * f32(bias[z * params.bias_batch_stride + r * params.bias_row_stride +
                                    c * params.bias_col_stride]);
    }
    if (ACTIVATION == 1u) {
        v = gelu_erf(v);
    } else if (ACTIVATION == 2u) {
        v = gelu_tanh(v);
    }
//@ACTIVATE
    if (HAS_SCALE) {
        v *= f32(scale[select(c, r, SCALE_ROWS)]);
    }
    if (HAS_RESIDUAL) {
//@RESIDUAL
    }
    if (HAS_CLAMP) {
        v = min(max(v, params.out_min), params.out_max);
    }
    return v;
}
