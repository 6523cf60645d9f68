// Correctly rounded float32 division for the quantized ops, prepended to their kernels. WGSL's
// `/` may be off by 2.5 ULP, while PyTorch's reference divides exactly (a scale, 1 / scale):
// one ULP off in a scale moves whole quantized outputs by one step. So the quotient of the
// 24-bit mantissas is found by integer long division, with round-to-nearest-even on the
// remainder.

// x > 0 finite: (mantissa in [2^23, 2^24), biased exponent), with subnormals normalised.
fn div_rn_split(x: f32) -> vec2<i32> {
    let bits = bitcast<u32>(x);
    var e = i32((bits >> 23u) & 0xffu);
    var m = bits & 0x7fffffu;
    if (e == 0) {
        e = 1;
        while (m < 0x800000u) {
            m = m << 1u;
            e -= 1;
        }
    } else {
        m = m | 0x800000u;
    }
    return vec2<i32>(i32(m), e);
}

// a / b rounded to nearest even, for a >= 0 and b > 0 finite. A quotient that would be
// subnormal or overflow falls back to `/` (no scale in a real program comes near either).
fn div_rn(a: f32, b: f32) -> f32 {
    if (a == 0.0) {
        return 0.0;
    }
    let sa = div_rn_split(a);
    let sb = div_rn_split(b);
    var ma = u32(sa.x);
    let mb = u32(sb.x);
    var e = sa.y - sb.y + 127;
    if (ma < mb) {
        ma = ma << 1u;  // the mantissa quotient is now in [1, 2)
        e -= 1;
    }
    // 25 quotient bits: the leading one, 23 fraction bits, the rounding bit.
    var r = ma;
    var q = 0u;
    for (var i = 0u; i < 25u; i++) {
        q = q << 1u;
        if (r >= mb) {
            r -= mb;
            q = q | 1u;
        }
        r = r << 1u;
    }
    var mant = q >> 1u;
    if ((q & 1u) == 1u && (r != 0u || (mant & 1u) == 1u)) {
        mant += 1u;
    }
    if (mant == 0x1000000u) {
        mant = 0x800000u;
        e += 1;
    }
    if (e < 1 || e > 254) {
        return a / b;
    }
    return bitcast<f32>((u32(e) << 23u) | (mant & 0x7fffffu));
}

// zero_point + x / s rounded to the nearest integer (ties to even) on the exact quotient, then
// clamped to [lo, hi], for s > 0 normal: the reference's float64 arithmetic (per-token scales
// are float64) rounds the same except within float64 rounding of a half-integer. The integer
// part comes from long division of the mantissas, the rest from comparing twice the remainder
// with the divisor. Quotients from 2^30 on saturate (only an int32 range could hold them).
fn round_quotient(x: f32, s: f32, zero_point: i32, lo: i32, hi: i32) -> i32 {
    if (x == 0.0) {
        return clamp(zero_point, lo, hi);
    }
    let sa = div_rn_split(abs(x));
    let sb = div_rn_split(s);
    let ma = u32(sa.x);
    let mb = u32(sb.x);
    let d = sa.y - sb.y;  // |x| / s = ma * 2^d / mb
    var n = 0u;
    var cmp = -1;  // the fraction against 1/2: -1 below, 0 equal, 1 above
    if (d > 30) {
        n = 0x40000000u;
    } else if (d >= 0) {
        var r = 0u;
        for (var i = 0; i < 24 + d; i++) {
            var bit = 0u;
            if (i < 24) {
                bit = (ma >> u32(23 - i)) & 1u;
            }
            r = (r << 1u) | bit;
            n = n << 1u;
            if (r >= mb) {
                r -= mb;
                n = n | 1u;
            }
        }
        cmp = select(select(-1, 0, 2u * r == mb), 1, 2u * r > mb);
    } else if (d == -1) {
        cmp = select(select(-1, 0, ma == mb), 1, ma > mb);  // ma / (2 mb) against 1/2
    }
    let up = cmp > 0 || (cmp == 0 && ((n + bitcast<u32>(zero_point)) & 1u) == 1u);
    let mag = i32(min(n + select(0u, 1u, up), 0x40000000u));
    return clamp(select(zero_point + mag, zero_point - mag, x < 0.0), lo, hi);
}
