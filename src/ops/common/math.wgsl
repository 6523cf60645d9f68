// Math helpers WGSL lacks or gets wrong at the edges; prepended to kernels that use them.

// exp and tanh can overflow to Inf/NaN on some drivers for large arguments: clamp first.
fn safe_exp(x: f32) -> f32 {
    return exp(min(x, 88.0));
}

fn safe_tanh(x: f32) -> f32 {
    let c = clamp(x, -15.0, 15.0);  // tanh(15) is 1 in f32
    let e = exp(2.0 * c);
    return (e - 1.0) / (e + 1.0);
}

// log(1 + x) that keeps x's digits near 0 (softplus' small terms). WGSL's log is only good to
// an absolute 2^-21 near 1, and tricks that recover the rounding of 1 + x by cancellation are
// undone by drivers that reassociate float math, so: log(1 + x) = 2 atanh(s) with
// s = x / (2 + x), no cancellation, for 1 + x in [0.707, 1.414) (|s| <= 0.172, where the odd
// series to s^13 leaves less than 1e-11); beyond that 1 + x = m * 2^e with m in that range, and
// the rounding of 1 + x is below float32's error of the result.
fn atanh_series2(s: f32) -> f32 {  // 2 atanh(s) for |s| <= 0.172
    let s2 = s * s;
    return s * (2.0 + s2 * (0.6666666667 + s2 * (0.4 + s2 * (0.2857142857 +
           s2 * (0.2222222222 + s2 * (0.1818181818 + s2 * 0.1538461538))))));
}

fn log1p_accurate(x: f32) -> f32 {
    if (x >= -0.29289322 && x < 0.41421356) {
        return atanh_series2(x / (2.0 + x));
    }
    let u = 1.0 + x;
    if (!(u > 0.0) || u > 3.0e38) {
        return log(u);  // -inf at -1, NaN below it or for NaN, inf for inf
    }
    let parts = frexp(u);
    var m = parts.fract;
    var e = f32(parts.exp);
    if (m < 0.70710678) {
        m = m * 2.0;
        e = e - 1.0;
    }
    return e * 0.69314718056 + atanh_series2((m - 1.0) / (m + 1.0));
}

fn sigmoid(x: f32) -> f32 {
    // Stable for both signs: never exponentiates a large positive number.
    let e = exp(-abs(x));
    let s = 1.0 / (1.0 + e);
    return select(e * s, s, x >= 0.0);
}

// erf, which WGSL lacks, to about 1e-7 absolute (float32 rounding dominates): its Taylor
// series below |x| = 1 (truncation < 2e-9), and above it Numerical Recipes' Chebyshev fit of
// erfc (relative error < 1.2e-7, on values below 0.16). Used by exact GELU.
fn erf_approx(x: f32) -> f32 {
    let z = abs(x);
    if (z < 1.0) {
        let q = x * x;
        let series = 1.0 + q * (-0.33333333333 + q * (0.1 + q * (-0.023809523810 +
                     q * (0.0046296296296 + q * (-0.00075757575758 + q * (0.00010683760684 +
                     q * (-1.3227513228e-5 + q * (1.4589169000e-6 + q * (-1.4503852223e-7 +
                     q * 1.3122532963e-8)))))))));
        return 1.1283791670955126 * x * series;
    }
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
               t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
               t * (-0.82215223 + t * 0.17087277))))))));
    let erfc = t * exp(poly);
    return select(erfc - 1.0, 1.0 - erfc, x >= 0.0);
}

// GELU, x * Phi(x), as aten.gelu computes it: exact (approximate = "none", through erf_approx)
// and PyTorch's tanh approximation (approximate = "tanh"). Shared by the elementwise op and the
// GEMM epilogue, so a fused linear + gelu computes what the two calls would.
fn gelu_erf(x: f32) -> f32 {
    return 0.5 * x * (1.0 + erf_approx(x * 0.70710678118654752));
}

fn gelu_tanh(x: f32) -> f32 {
    return 0.5 * x * (1.0 + safe_tanh(0.79788456080286536 * (x + 0.044715 * x * x * x)));
}

// NaN test on the bits: WGSL lets compilers assume floats are never NaN, so `x != x` may fold
// to false (lavapipe does).
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

// x^y as PyTorch computes it. WGSL's pow is only defined for x > 0: negative bases with integral
// exponents take the sign of x^|y| from the exponent's parity; other negative bases give NaN;
// 0^y is 1 for y == 0, 0 for y > 0 and +inf for y < 0.
fn pow_safe(x: f32, y: f32) -> f32 {
    if (y == 0.0) {
        return 1.0;
    }
    if (y == 1.0) {
        return x;
    }
    if (y == 2.0) {
        return x * x;
    }
    if (x == 0.0) {
        return select(0.0, bitcast<f32>(0x7f800000u), y < 0.0);
    }
    let magnitude = exp2(y * log2(abs(x)));
    if (x > 0.0) {
        return magnitude;
    }
    if (floor(y) != y) {
        return bitcast<f32>(0x7fc00000u);  // NaN, as for a real power of a negative number
    }
    let odd = (abs(y) % 2.0) == 1.0;
    return select(magnitude, -magnitude, odd);
}
