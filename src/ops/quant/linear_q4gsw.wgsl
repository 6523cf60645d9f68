// A linear layer with 4-bit group-wise symmetric weights (et_vk.linear_q4gsw), optionally with
// 8-bit per-row asymmetric activations (et_vk.linear_dq8ca_q4gsw, DQ8CA):
//   out[m, n] = sum_k x[m, k] * w[n, k] + bias[n],   w[n, k] = (nibble - 8) * scale[k / G, n]
// with DQ8CA, x[m, k] is first quantized as torchao does, q = clamp(round(x * (1 / s)) + zp,
// -128, 127) with the row's scale s and zero point zp, and the product is taken in integers:
//   out[m, n] = s * sum_g scale[g, n] * sum_{k in g} (q[k] - zp) * (nibble - 8) + bias[n]
// (exact in i32; the float path of PyTorch's reference rounds each product instead).
//
// Weights stay packed in memory, two a byte: byte b of row n holds column 2b in its low nibble
// and 2b + 1 in its high one, read here a u32 word (8 columns) at a time, or with QUADS four
// words (32 columns, 16 bytes: one group when G is a multiple of 32) in one load, and unpacked
// in registers. LANES invocations share one output column and walk its row a word (or quad)
// each, so neighbouring invocations read neighbouring memory; with QUADS each takes two quads
// an iteration, both loads issued before either is used, so that enough bytes are in flight to
// stream the weights at the memory's bandwidth. WG / LANES columns per workgroup; ROWS rows of
// x per workgroup (workgroup_id.y), so a prefill reads each weight once per ROWS rows.
// With DQ8CA the workgroup first quantizes its ROWS rows of x into workgroup memory, the even
// and odd columns of each 8 in two words, so that a weight word's low nibbles (even columns)
// and high nibbles (odd columns) meet their activations in two dot4I8Packed products. With
// OWN_QPARAMS it first finds each row's scale and zero point itself, by the formulas of
// torchao.choose_qparams_affine (choose_qparams_affine.wgsl; ASYMMETRIC, -128..127), instead
// of reading them from x_scale and x_zp: one dispatch a layer fewer.
struct Params {
    M: u32,
    N: u32,
    K: u32,
    row_words: u32,        // u32 words of one packed weight row (its padded K / 8)
    words_per_group: u32,  // G / 8
    has_bias: u32,
    eps: f32,  // OWN_QPARAMS: the smallest scale
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;  // [M, K]
@group(0) @binding(1) var<storage, read> w: array<u32>;        // [N, row_words]
@group(0) @binding(2) var<storage, read> scales: array<f32>;   // [K / G, N]
@group(0) @binding(3) var<storage, read> bias: array<f32>;     // [N] when has_bias
@group(0) @binding(4) var<storage, read_write> out: array<f32>;  // [M, N]
@group(0) @binding(5) var<uniform> params: Params;
@group(0) @binding(6) var<storage, read> x_scale: array<f32>;  // DQ8CA: [M]
@group(0) @binding(7) var<storage, read> x_zp: array<u32>;     // DQ8CA: [M], int8 or int32
// load_quad(i): words 4i .. 4i + 3 of w. With QUADS the C++ side fills this line with binding 8,
// the weights again as 16-byte elements, read in one load; otherwise (a binding of 16-byte
// elements would not accept weights of fewer bytes) with four loads of w, never called.
//@WEIGHT_QUADS
// With GATED the layer is a SwiGLU pair, out = silu(x w^T) * (x u^T): the C++ side fills this
// line with the up weights u (words, scales and with QUADS quads again, bindings 9 to 11) and
// up_word / up_scale / up_quad reading them; otherwise with functions returning 0, which no
// kernel without GATED reaches.
//@UP_WEIGHTS

override WG: u32 = 256u;
override LANES: u32 = 32u;   // a power of two dividing WG
override ROWS: u32 = 1u;     // 1..MAX_ROWS
override DQ8CA: bool = false;
override ZP_BYTES: bool = true;  // x_zp holds int8 (four a word), else int32
override XS_WORDS: u32 = 1u;  // DQ8CA: ROWS * K / 4
override OWN_QPARAMS: bool = false;  // DQ8CA: each row's scale and zero point found here
override QUADS: bool = false;  // DQ8CA with K, the padded K and G multiples of 32
// Half the workgroup's columns take w's rows, the other half u's rows of the same output
// columns; the two sums meet in the epilogue (no bias).
override GATED: bool = false;
// et_vk.linear_qcs4w's packing: the even column in the high nibble of its byte.
override HIGH_FIRST: bool = false;

const MAX_ROWS = 8u;

var<workgroup> partial: array<f32, WG>;
var<workgroup> partial_lo: array<f32, WG>;  // OWN_QPARAMS: the rows' minima
var<workgroup> xs: array<u32, XS_WORDS>;
var<workgroup> row_scale: array<f32, MAX_ROWS>;  // DQ8CA: the scale and zero point of row r
var<workgroup> row_zp: array<i32, MAX_ROWS>;

fn zero_point(m: u32) -> i32 {
    if (ZP_BYTES) {
        return extractBits(bitcast<i32>(x_zp[m / 4u]), (m % 4u) * 8u, 8u);
    }
    return bitcast<i32>(x_zp[m]);
}

// Row r's scale and zero point into row_scale / row_zp: read (the outputs of a
// choose_qparams_affine call), or with OWN_QPARAMS found from the row's minimum and maximum
// (each widened to include 0) as torchao does (row_scale_of, row_zero_point_of of
// dq8_math.wgsl, prepended).
fn stage_row_qparams(m0: u32, t: u32) {
    for (var r = 0u; r < ROWS; r++) {
        let m = min(m0 + r, params.M - 1u);
        if (!OWN_QPARAMS) {
            if (t == 0u) {
                row_scale[r] = x_scale[m];
                row_zp[r] = zero_point(m);
            }
            continue;
        }
        var lo = 0.0;
        var hi = 0.0;
        for (var k = t; k < params.K / 4u; k += WG) {
            let v = x[(m * params.K) / 4u + k];
            lo = min(lo, min(min(v.x, v.y), min(v.z, v.w)));
            hi = max(hi, max(max(v.x, v.y), max(v.z, v.w)));
        }
        partial_lo[t] = lo;
        partial[t] = hi;
        workgroupBarrier();
        for (var s = WG / 2u; s > 0u; s /= 2u) {
            if (t < s) {
                partial_lo[t] = min(partial_lo[t], partial_lo[t + s]);
                partial[t] = max(partial[t], partial[t + s]);
            }
            workgroupBarrier();
        }
        if (t == 0u) {
            let scale = row_scale_of(partial_lo[0], partial[0], params.eps);
            row_scale[r] = scale;
            row_zp[r] = row_zero_point_of(partial_lo[0], scale);
        }
        workgroupBarrier();
    }
}

// quantize_i8 (dq8_math.wgsl, prepended) as the byte of a packed int8.
fn quantize(v: f32, inv: f32, zp: i32) -> u32 {
    return bitcast<u32>(quantize_i8(v, inv, zp)) & 0xffu;
}

// Rows m0 .. m0 + ROWS of x, quantized, into xs: word 2j of a row holds columns 8j, 8j + 2,
// 8j + 4, 8j + 6 as int8, word 2j + 1 the odd ones.
fn stage_quantized_rows(m0: u32, t: u32) {
    let kw = params.K / 8u;
    for (var i = t; i < ROWS * kw; i += WG) {
        let r = i / kw;
        let j = i - r * kw;
        let m = m0 + r;
        var even = 0u;
        var odd = 0u;
        if (m < params.M) {
            let inv = reciprocal(row_scale[r]);
            let zp = row_zp[r];
            let a = x[(m * params.K) / 4u + 2u * j];
            let b = x[(m * params.K) / 4u + 2u * j + 1u];
            even = quantize(a.x, inv, zp) | (quantize(a.z, inv, zp) << 8u) |
                   (quantize(b.x, inv, zp) << 16u) | (quantize(b.z, inv, zp) << 24u);
            odd = quantize(a.y, inv, zp) | (quantize(a.w, inv, zp) << 8u) |
                  (quantize(b.y, inv, zp) << 16u) | (quantize(b.w, inv, zp) << 24u);
        }
        xs[r * 2u * kw + 2u * j] = even;
        xs[r * 2u * kw + 2u * j + 1u] = odd;
    }
}

// The nibbles of a word's bytes (0..15 each) as signed int8 (nibble - 8) in the same bytes.
fn signed_bytes(u: u32) -> u32 {
    let v = u ^ 0x08080808u;  // nibble - 8 as a 4-bit two's complement value
    return v | ((v & 0x08080808u) * 0x1eu);  // sign-extend each byte (0x08 * 0x1e = 0xf0)
}

// sum over the 8 columns of word `word` of row r: x (or q - zp) times the signed nibble.
fn word_product(word: u32, r: u32, m: u32, j: u32) -> f32 {
    var lo = word & 0x0f0f0f0fu;          // even columns
    var hi = (word >> 4u) & 0x0f0f0f0fu;  // odd columns
    if (HIGH_FIRST) {
        let even = hi;
        hi = lo;
        lo = even;
    }
    if (DQ8CA) {
        let base = r * (params.K / 4u) + 2u * j;
        let qw = dot4I8Packed(xs[base], signed_bytes(lo)) +
                 dot4I8Packed(xs[base + 1u], signed_bytes(hi));
        // sum of (nibble - 8) over the word: the bytes of lo + hi added across.
        let nibbles = i32(((lo + hi) * 0x01010101u) >> 24u) - 64;
        return f32(qw - row_zp[r] * nibbles);
    }
    let a = x[(m * params.K) / 4u + 2u * j];
    let b = x[(m * params.K) / 4u + 2u * j + 1u];
    let wl = vec4<f32>(vec4<u32>(lo & 0xffu, (lo >> 8u) & 0xffu, (lo >> 16u) & 0xffu, lo >> 24u));
    let wh = vec4<f32>(vec4<u32>(hi & 0xffu, (hi >> 8u) & 0xffu, (hi >> 16u) & 0xffu, hi >> 24u));
    return dot(wl - 8.0, vec4<f32>(a.x, a.z, b.x, b.z)) + dot(wh - 8.0, vec4<f32>(a.y, a.w, b.y, b.w));
}

// Word i, quad i and scale i of w, or with `up` of u (GATED): uniform over a column's lanes.
fn weight_word(up: bool, i: u32) -> u32 {
    if (up) {
        return up_word(i);
    }
    return w[i];
}
fn weight_quad(up: bool, i: u32) -> vec4<u32> {
    if (up) {
        return up_quad(i);
    }
    return load_quad(i);
}
fn weight_scale(up: bool, i: u32) -> f32 {
    if (up) {
        return up_scale(i);
    }
    return scales[i];
}

// The four words of a quad (columns 8 * j0 .. 8 * j0 + 31).
fn quad_product(q: vec4<u32>, r: u32, m: u32, j0: u32) -> f32 {
    return (word_product(q.x, r, m, j0) + word_product(q.y, r, m, j0 + 1u)) +
           (word_product(q.z, r, m, j0 + 2u) + word_product(q.w, r, m, j0 + 3u));
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let N = params.N;
    let m0 = wid.y * ROWS;
    let slots = WG / LANES;  // columns of LANES invocations each
    let slot = t / LANES;
    var col = wid.x * slots + slot;
    var up = false;
    if (GATED) {
        col = wid.x * (slots / 2u) + slot % (slots / 2u);
        up = slot >= slots / 2u;
    }
    let lane = t % LANES;
    let inside = col < N;
    if (DQ8CA) {
        stage_row_qparams(m0, t);
        workgroupBarrier();
        stage_quantized_rows(m0, t);
        workgroupBarrier();
    }

    var acc = array<f32, MAX_ROWS>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    if (inside && QUADS) {
        let quads = params.K / 32u;
        let row = col * (params.row_words / 4u);
        let quads_per_group = params.words_per_group / 4u;
        var j = lane;
        for (; j + LANES < quads; j += 2u * LANES) {
            let a = weight_quad(up, row + j);
            let b = weight_quad(up, row + j + LANES);
            let sa = weight_scale(up, (j / quads_per_group) * N + col);
            let sb = weight_scale(up, ((j + LANES) / quads_per_group) * N + col);
            for (var r = 0u; r < ROWS; r++) {
                let m = min(m0 + r, params.M - 1u);
                acc[r] = fma(sa, quad_product(a, r, m, 4u * j), acc[r]);
                acc[r] = fma(sb, quad_product(b, r, m, 4u * (j + LANES)), acc[r]);
            }
        }
        if (j < quads) {
            let a = weight_quad(up, row + j);
            let sa = weight_scale(up, (j / quads_per_group) * N + col);
            for (var r = 0u; r < ROWS; r++) {
                let m = min(m0 + r, params.M - 1u);
                acc[r] = fma(sa, quad_product(a, r, m, 4u * j), acc[r]);
            }
        }
    }
    if (inside && !QUADS) {
        let words = params.K / 8u;
        let row = col * params.row_words;
        var j = lane;
        if (ROWS == 1u) {
            // A decode step: four words a lane loaded before any is used. One at a time, each
            // lane waited out a memory round trip per word, and a GEMV streamed its weights at
            // a third of the bandwidth or less (the 2048 x 128256 output layer: 1.3 TB/s).
            for (; j + 3u * LANES < words; j += 4u * LANES) {
                let w0 = weight_word(up, row + j);
                let w1 = weight_word(up, row + j + LANES);
                let w2 = weight_word(up, row + j + 2u * LANES);
                let w3 = weight_word(up, row + j + 3u * LANES);
                let g = params.words_per_group;
                let s0 = weight_scale(up, (j / g) * N + col);
                let s1 = weight_scale(up, ((j + LANES) / g) * N + col);
                let s2 = weight_scale(up, ((j + 2u * LANES) / g) * N + col);
                let s3 = weight_scale(up, ((j + 3u * LANES) / g) * N + col);
                acc[0] = fma(s0, word_product(w0, 0u, m0, j), acc[0]);
                acc[0] = fma(s1, word_product(w1, 0u, m0, j + LANES), acc[0]);
                acc[0] = fma(s2, word_product(w2, 0u, m0, j + 2u * LANES), acc[0]);
                acc[0] = fma(s3, word_product(w3, 0u, m0, j + 3u * LANES), acc[0]);
            }
        }
        for (; j < words; j += LANES) {
            let word = weight_word(up, row + j);
            let s = weight_scale(up, (j / params.words_per_group) * N + col);
            for (var r = 0u; r < ROWS; r++) {
                let m = min(m0 + r, params.M - 1u);  // a row past M computes row M - 1, unused
                acc[r] = fma(s, word_product(word, r, m, j), acc[r]);
            }
        }
    }

    // Tree sum over the LANES invocations of each column (neighbours), one row at a time.
    for (var r = 0u; r < ROWS; r++) {
        partial[t] = acc[r];
        workgroupBarrier();
        for (var s = LANES / 2u; s > 0u; s /= 2u) {
            if (lane < s) {
                partial[t] += partial[t + s];
            }
            workgroupBarrier();
        }
        let m = m0 + r;
        if (lane == 0u && inside && m < params.M && !up) {
            var v = partial[t];
            var u = 0.0;
            if (GATED) {
                u = partial[t + (slots / 2u) * LANES];  // the same column's up sum
            }
            if (DQ8CA) {
                v *= row_scale[r];
                u *= row_scale[r];
            }
            if (params.has_bias != 0u) {
                v += bias[col];
            }
            if (GATED) {
                v = v / (1.0 + exp(-v)) * u;  // silu(v) * u
            }
            out[m * N + col] = v;
        }
        workgroupBarrier();
    }
}
