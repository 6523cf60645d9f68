// The one-row (decode step) form of linear_q4gsw.wgsl: the same arithmetic for x of one row,
//   out[n] = sum_k x[k] * w[n, k] + bias[n],   w[n, k] = (nibble - 8) * scale[k / G, n]
// with DQ8CA in integers after quantizing x per row as torchao does (see linear_q4gsw.wgsl).
//
// Laid out so that the weights stream at the memory's bandwidth: one row of x is read by every
// workgroup, so the bound is the weights, and a decode GEMV has too few of them (2 MB for a
// 2048 x 2048 layer) to keep the memory busy unless each invocation has many bytes in flight.
// Each workgroup takes COLS output columns; invocation t takes 16-byte quads t, t + WG, ... of
// each column's packed row (32 weights, inside one group since G is a multiple of 32), loads
// the COLS quads before using any (COLS * 16 bytes in flight), and multiplies them by the 32
// activations of its quad, which it reads (and with DQ8CA quantizes) once for all COLS
// columns. Neighbouring invocations read neighbouring quads. The COLS sums are then reduced
// over the workgroup (workgroup_reduce.h's workgroup_sum: subgroups where the device has them).
//
// Unsigned nibbles n times activations a, corrected once a quad for the offset of 8:
//   float:  sum (n - 8) a = sum n a - 8 sum a
//   DQ8CA:  sum (n - 8)(q - zp) = sum n q - zp sum n - 8 sum q + 256 zp   (32 columns a quad)
// the integer products by dot4I8Packed (nibbles 0..15 are valid signed bytes).
struct Params {
    N: u32,
    K: u32,
    row_quads: u32,        // 16-byte quads of one packed weight row (its padded K / 32)
    quads_per_group: u32,  // G / 32
    has_bias: u32,
    eps: f32,  // OWN_QPARAMS: the smallest scale
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;  // [K]
@group(0) @binding(1) var<storage, read> w: array<vec4<u32>>;  // [N, row_quads]
@group(0) @binding(2) var<storage, read> scales: array<f32>;   // [K / G, N]
@group(0) @binding(3) var<storage, read> bias: array<f32>;     // [N] when has_bias
@group(0) @binding(4) var<storage, read_write> out: array<f32>;  // [N]
@group(0) @binding(5) var<uniform> params: Params;
@group(0) @binding(6) var<storage, read> x_scale: array<f32>;  // DQ8CA: [1]
@group(0) @binding(7) var<storage, read> x_zp: array<u32>;     // DQ8CA: [1], int8 or int32

override WG: u32 = 64u;
override DQ8CA: bool = false;
override ZP_BYTES: bool = true;  // x_zp holds int8, else int32
override OWN_QPARAMS: bool = false;  // DQ8CA: the row's scale and zero point found here

const COLS = 8u;

// a / b correctly rounded, as the CPU computes it (as choose_qparams_affine.wgsl does).
fn divide(a: f32, b: f32) -> f32 {
    let q = a / b;
    return fma(fma(-q, b, a), 1.0 / b, q);
}

// 1 / s correctly rounded (but within a hair of halfway), as PyTorch's reciprocal.
fn reciprocal(s: f32) -> f32 {
    let r = 1.0 / s;
    return fma(r, fma(-s, r, 1.0), r);
}

fn quantize(v: f32, inv: f32, zp: i32) -> u32 {
    return u32(clamp(i32(round(v * inv)) + zp, -128, 127)) & 0xffu;
}

// The row's scale (x) and zero point (y, as f32): read, or found from the row's minimum and
// maximum (each widened to include 0) as torchao.choose_qparams_affine finds them.
fn row_qparams(t: u32, ids: ReduceIds) -> vec2<f32> {
    if (!OWN_QPARAMS) {
        var zp = bitcast<i32>(x_zp[0]);
        if (ZP_BYTES) {
            zp = extractBits(zp, 0u, 8u);
        }
        return vec2<f32>(x_scale[0], f32(zp));
    }
    var lo = 0.0;
    var hi = 0.0;
    for (var k = t; k < params.K / 4u; k += WG) {
        let v = x[k];
        lo = min(lo, min(min(v.x, v.y), min(v.z, v.w)));
        hi = max(hi, max(max(v.x, v.y), max(v.z, v.w)));
    }
    lo = -workgroup_max(-lo, ids);
    hi = workgroup_max(hi, ids);
    let scale = max(divide(hi - lo, 255.0), params.eps);
    return vec2<f32>(scale, clamp(-128.0 - round(divide(lo, scale)), -128.0, 127.0));
}

// The nibbles of a word: the even columns' in the low nibbles of its bytes, the odd ones' high.
fn low_nibbles(u: u32) -> u32 {
    return u & 0x0f0f0f0fu;
}
fn high_nibbles(u: u32) -> u32 {
    return (u >> 4u) & 0x0f0f0f0fu;
}
fn nibble_floats(u: u32) -> vec4<f32> {
    return vec4<f32>(vec4<u32>(u & 0xffu, (u >> 8u) & 0xffu, (u >> 16u) & 0xffu, u >> 24u));
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>,
        ids: ReduceIds) {
    let t = ids.lid;
    let N = params.N;
    let col0 = (wid.y * groups.x + wid.x) * COLS;
    let quads = params.K / 32u;
    var qp = vec2<f32>(1.0, 0.0);
    if (DQ8CA) {
        qp = row_qparams(t, ids);
    }
    let inv = reciprocal(qp.x);
    let zp = i32(qp.y);

    var acc = array<f32, COLS>();
    for (var j = t; j < quads; j += WG) {
        // Every column's quad and scale first, so that their loads are in flight together.
        let g = j / params.quads_per_group;
        var wq: array<vec4<u32>, COLS>;
        var sc: array<f32, COLS>;
        for (var c = 0u; c < COLS; c++) {
            let n = min(col0 + c, N - 1u);  // a column past N repeats the last, unused
            wq[c] = w[n * params.row_quads + j];
            sc[c] = scales[g * N + n];
        }
        if (DQ8CA) {
            // The quad's 32 activations as int8: word i holds the even columns of the quad's
            // 8i .. 8i + 7, odd the odd ones, as the weight words' low and high nibbles.
            var even: array<u32, 4>;
            var odd: array<u32, 4>;
            var qsum = 0;
            for (var i = 0u; i < 4u; i++) {
                let a = x[8u * j + 2u * i];
                let b = x[8u * j + 2u * i + 1u];
                even[i] = quantize(a.x, inv, zp) | (quantize(a.z, inv, zp) << 8u) |
                          (quantize(b.x, inv, zp) << 16u) | (quantize(b.z, inv, zp) << 24u);
                odd[i] = quantize(a.y, inv, zp) | (quantize(a.w, inv, zp) << 8u) |
                         (quantize(b.y, inv, zp) << 16u) | (quantize(b.w, inv, zp) << 24u);
                qsum += dot4I8Packed(even[i], 0x01010101u) + dot4I8Packed(odd[i], 0x01010101u);
            }
            let base = 256 * zp - 8 * qsum;
            for (var c = 0u; c < COLS; c++) {
                var s = 0;
                var nibbles = 0u;  // sum of the quad's 32 nibbles, bytewise then across
                for (var i = 0u; i < 4u; i++) {
                    let lo = low_nibbles(wq[c][i]);
                    let hi = high_nibbles(wq[c][i]);
                    s += dot4I8Packed(even[i], lo) + dot4I8Packed(odd[i], hi);
                    nibbles += lo + hi;  // at most 4 * 30 a byte: no carries
                }
                let n_sum = i32(dot4U8Packed(nibbles, 0x01010101u));
                acc[c] = fma(sc[c], f32(s - zp * n_sum + base), acc[c]);
            }
        } else {
            var even: array<vec4<f32>, 4>;
            var odd: array<vec4<f32>, 4>;
            var xsum = vec4<f32>(0.0);
            for (var i = 0u; i < 4u; i++) {
                let a = x[8u * j + 2u * i];
                let b = x[8u * j + 2u * i + 1u];
                even[i] = vec4<f32>(a.x, a.z, b.x, b.z);
                odd[i] = vec4<f32>(a.y, a.w, b.y, b.w);
                xsum += a + b;
            }
            let base = -8.0 * ((xsum.x + xsum.y) + (xsum.z + xsum.w));
            for (var c = 0u; c < COLS; c++) {
                var s = base;
                for (var i = 0u; i < 4u; i++) {
                    s += dot(nibble_floats(low_nibbles(wq[c][i])), even[i]) +
                         dot(nibble_floats(high_nibbles(wq[c][i])), odd[i]);
                }
                acc[c] = fma(sc[c], s, acc[c]);
            }
        }
    }

    for (var c = 0u; c < COLS; c++) {
        let total = workgroup_sum(acc[c], ids);
        let n = col0 + c;
        if (t == 0u && n < N) {
            var v = total;
            if (DQ8CA) {
                v *= qp.x;
            }
            if (params.has_bias != 0u) {
                v += bias[n];
            }
            out[n] = v;
        }
    }
}
