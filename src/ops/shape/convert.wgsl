// Elementwise dtype conversion (aten._to_copy). Element kinds: 0 f32, 1 f16, 2 i32, 3 bool,
// 4 u8, 5 i8; types narrower than 32 bits are packed to a word, and one invocation owns one
// whole dst word (so no two invocations write the same word). Float to int truncates toward
// zero (WGSL clamps out-of-range values); int to a narrower int keeps the low bits; anything
// to bool is "nonzero" (NaN included).
struct Params {
    numel: u32,
    words: u32,  // dst words (invocations)
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 256;
override SRC: u32 = 0;
override DST: u32 = 0;

fn lanes(kind: u32) -> u32 {
    if (kind == 1u) {
        return 2u;
    }
    if (kind >= 3u) {
        return 4u;
    }
    return 1u;
}

fn is_float(kind: u32) -> bool {
    return kind <= 1u;
}

// Element e of src, as f32 (float kinds) or i32 (int kinds).
fn load_float(e: u32) -> f32 {
    if (SRC == 1u) {
        let pair = unpack2x16float(src[e / 2u]);
        return select(pair.x, pair.y, e % 2u == 1u);
    }
    return bitcast<f32>(src[e]);
}

fn load_int(e: u32) -> i32 {
    if (SRC == 2u) {
        return bitcast<i32>(src[e]);
    }
    let word = src[e / 4u];
    let shift = (e % 4u) * 8u;
    if (SRC == 5u) {
        return extractBits(bitcast<i32>(word), shift, 8u);  // sign-extends
    }
    return i32(extractBits(word, shift, 8u));
}

// IEEE binary16 bits of x, rounding to nearest even; beyond the f16 range, +-Inf (NaN stays
// NaN), which pack2x16float leaves undefined.
fn f16_bits(x: f32) -> u32 {
    let mag = bitcast<u32>(x) & 0x7fffffffu;
    let sign = (bitcast<u32>(x) >> 16u) & 0x8000u;
    if (mag > 0x7f800000u) {
        return sign | 0x7e00u;
    }
    if (mag >= 0x477ff000u) {  // 65520: rounds to infinity
        return sign | 0x7c00u;
    }
    return pack2x16float(vec2<f32>(x, 0.0)) & 0xffffu;
}

// The bits of element e converted to DST (in the low bits for packed kinds).
fn convert(e: u32) -> u32 {
    if (is_float(SRC)) {
        let x = load_float(e);
        switch DST {
            case 0u: { return bitcast<u32>(x); }
            case 1u: { return f16_bits(x); }
            case 2u: { return bitcast<u32>(i32(x)); }
            // On the bits: NaN != 0.0 is false on some drivers (ordered comparison).
            case 3u: { return select(0u, 1u, (bitcast<u32>(x) & 0x7fffffffu) != 0u); }
            default: { return bitcast<u32>(i32(x)) & 0xffu; }
        }
    }
    let v = load_int(e);
    switch DST {
        case 0u: { return bitcast<u32>(f32(v)); }
        case 1u: { return f16_bits(f32(v)); }
        case 2u: { return bitcast<u32>(v); }
        case 3u: { return select(0u, 1u, v != 0); }
        default: { return bitcast<u32>(v) & 0xffu; }
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = gid.x + gid.y * nwg.x * WG;
    if (w >= params.words) {
        return;
    }
    let n = lanes(DST);
    if (n == 1u) {
        dst[w] = convert(w);
        return;
    }
    let bits = 32u / n;
    var word = dst[w];  // lanes past the end stay as they are
    for (var lane = 0u; lane < n; lane++) {
        let e = w * n + lane;
        if (e >= params.numel) {
            break;
        }
        word = insertBits(word, convert(e), lane * bits, bits);
    }
    dst[w] = word;
}
