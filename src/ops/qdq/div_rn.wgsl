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
