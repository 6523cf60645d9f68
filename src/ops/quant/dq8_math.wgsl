// The arithmetic of 8-bit dynamic activations (8da4w linear layers), shared by the kernels that
// quantize a row of x as torchao does: linear_q4gsw.wgsl (DQ8CA) and dq8_rows.wgsl (the tiled
// GEMM's prefill). Prepended by the C++ side.

// a / b correctly rounded, as the CPU computes it (WGSL's division may be 2.5 ulp off).
fn divide(a: f32, b: f32) -> f32 {
    let q = a / b;
    return fma(fma(-q, b, a), 1.0 / b, q);
}

// 1 / s as PyTorch computes it (correctly rounded): WGSL's division may be 2.5 ulp off, which
// would move x * (1 / s) across a rounding boundary now and then; one Newton step (fused) gives
// the correctly rounded value except where it lies within a hair of halfway between two floats.
fn reciprocal(s: f32) -> f32 {
    let r = 1.0 / s;
    return fma(r, fma(-s, r, 1.0), r);
}

// torchao.choose_qparams_affine's ASYMMETRIC int8 scale of a row whose minimum and maximum
// (each widened to include 0) are lo and hi: max((hi - lo) / 255, eps).
fn row_scale_of(lo: f32, hi: f32, eps: f32) -> f32 {
    return max(divide(hi - lo, 255.0), eps);
}

// ... and its zero point: clamp(-128 - round(lo / scale), -128, 127).
fn row_zero_point_of(lo: f32, scale: f32) -> i32 {
    return i32(clamp(-128.0 - round(divide(lo, scale)), -128.0, 127.0));
}

// q = clamp(round(v * inv) + zp, -128, 127), inv = reciprocal(scale).
fn quantize_i8(v: f32, inv: f32, zp: i32) -> i32 {
    return clamp(i32(round(v * inv)) + zp, -128, 127);
}
