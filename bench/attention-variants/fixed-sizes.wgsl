// bench: rows=8 wg=256 overrides=D,DV,LK
// fixed-sizes: src/ops/matmul/attention.wgsl with the head sizes and the key count as
// pipeline-override constants (D, DV, LK) instead of uniform values, and nothing else changed.
// Why: every loop of the kernel runs to params.d, params.lk or params.dv, so the driver sees
// runtime trip counts and issues one load, waits, and issues the next; with constant trip
// counts it can unroll the 64-long dot products of phase 2 and the key loop of phase 4 and
// have their loads in flight together (the depthwise kernel gained 2.7-3.3x on the H200 from
// this alone). Cost: one pipeline per (D, DV, LK), compiled on first use.
//
// The built-in kernel's own description follows.
// wgx.attention: out[b, i, :] = softmax_j(scale * q[b, i, :] . k[b, j, :]) @ v[b, :, :]
// in one dispatch. q, k and v are strided views of their tensors (element (b, r, c) at
// offset + b * batch + r * row + c * col), so the copies that cut them out of a fused
// projection need not run; out is contiguous [B, Lq, DV].
//
// A workgroup of 256 invocations takes 8 query rows of one batch entry (workgroup_id.x: the
// block of rows, workgroup_id.y: b). The 8 rows are held as two vec4 lanes (rows 0-3 and 4-7)
// so each key element loaded once serves all 8 rows:
//   1. q rows (times scale) into workgroup memory, transposed to vec4s per column;
//   2. the scores of the 8 rows against every key, one key per invocation, into workgroup
//      memory (a vec4 pair per key);
//   3. per row, max and sum of exp through a reduction of 32 invocations each; the scores
//      become exp(s - max);
//   4. out = exp-scores @ v: invocation (c, g) takes output column c (and c + 64) of rows 2g
//      and 2g + 1, scaled by 1 / sum.
// 256 invocations rather than fewer: the work per row block is small and serial (a dot product
// per key, a sum over keys per output), so what hides the memory latency is many warps per
// compute unit (on the H200 a 64-invocation version took 51 us per vit layer).
// Workgroup memory: 32 * (LK_MAX + D_MAX) + 4 * WG bytes = 13 KiB, inside the 16 KiB WebGPU
// guarantees; the op takes Lk <= LK_MAX, D <= D_MAX and DV <= 2 * 64.
//
// A row whose scores are all -inf (every key masked) gives 0 when params.zero_masked_rows is
// set (the guard PyTorch's exported attention puts around softmax), else NaN as softmax itself
// gives.
// S: the element type as stored (prepended): f32, or f16 with f32 arithmetic.

// Set by the pipeline from the call: D = params.d, DV = params.dv, LK = params.lk.
override D: u32;
override DV: u32;
override LK: u32;

const LK_MAX = 256u;
const D_MAX = 128u;
const ROWS = 8u;
const WG = 256u;
const ROW_LANES = 32u;  // invocations per row in the softmax statistics (WG / ROWS)

struct View {
    offset: u32,
    batch: u32,
    row: u32,
    col: u32,
}

struct Params {
    q: View,
    k: View,
    v: View,
    lq: u32,
    lk: u32,
    d: u32,
    dv: u32,
    scale: f32,
    zero_masked_rows: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> q: array<S>;
@group(0) @binding(1) var<storage, read> k: array<S>;
@group(0) @binding(2) var<storage, read> v: array<S>;
@group(0) @binding(3) var<storage, read_write> out: array<S>;
@group(0) @binding(4) var<uniform> params: Params;

var<workgroup> q_lo: array<vec4<f32>, D_MAX>;   // rows 0-3, per column of q
var<workgroup> q_hi: array<vec4<f32>, D_MAX>;   // rows 4-7
var<workgroup> p_lo: array<vec4<f32>, LK_MAX>;  // scores, then exp(s - max), per key
var<workgroup> p_hi: array<vec4<f32>, LK_MAX>;
var<workgroup> partial: array<f32, WG>;

const NEG_MAX = -3.4028234663852886e38;

fn at(view: View, b: u32, r: u32, c: u32) -> u32 {
    return view.offset + b * view.batch + r * view.row + c * view.col;
}

// The max (max_not_sum) or sum over the ROW_LANES invocations that share a row, each holding
// one partial value.
fn row_reduce(tid: u32, value: f32, max_not_sum: bool) -> f32 {
    partial[tid] = value;
    workgroupBarrier();
    let first = (tid / ROW_LANES) * ROW_LANES;
    var r = partial[first];
    for (var i = 1u; i < ROW_LANES; i++) {
        let x = partial[first + i];
        r = select(r + x, max(r, x), max_not_sum);
    }
    workgroupBarrier();
    return r;
}

// exp-scores of key j for the row pair an invocation of phase 4 takes (rows 0-1, 2-3, 4-5 or
// 6-7: `upper` picks p_hi, `odd` the second pair of the vec4).
fn weights(j: u32, upper: bool, odd: bool) -> vec2<f32> {
    let pj = select(p_lo[j], p_hi[j], upper);
    return select(pj.xy, pj.zw, odd);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
    let b = wid.y;
    let i0 = wid.x * ROWS;

    // 1. The block's q rows, scaled, transposed to a vec4 pair per column; rows past Lq are 0.
    for (var e = tid; e < ROWS * D; e += WG) {
        let r = e / D;
        let c = e % D;
        var x = 0.0;
        if (i0 + r < params.lq) {
            x = params.scale * f32(q[at(params.q, b, i0 + r, c)]);
        }
        if (r < 4u) {
            q_lo[c][r] = x;
        } else {
            q_hi[c][r & 3u] = x;
        }
    }
    workgroupBarrier();

    // 2. Scores: invocation j takes keys j, j + WG, ...
    for (var j = tid; j < LK; j += WG) {
        var lo = vec4<f32>(0.0);
        var hi = vec4<f32>(0.0);
        let base = at(params.k, b, j, 0u);
        for (var c = 0u; c < D; c++) {
            let kc = f32(k[base + c * params.k.col]);
            lo += kc * q_lo[c];
            hi += kc * q_hi[c];
        }
        p_lo[j] = lo;
        p_hi[j] = hi;
    }
    workgroupBarrier();

    // 3. Softmax statistics of row `row` over keys lane, lane + ROW_LANES, ... (the 8 rows'
    // values of one key are a vec4 pair; `upper` picks the vec4, `r4` the lane in it).
    let row = tid / ROW_LANES;
    let lane = tid % ROW_LANES;
    let upper = row >= 4u;
    let r4 = row & 3u;
    var m = NEG_MAX;
    var finite_key = 0.0;
    for (var j = lane; j < LK; j += ROW_LANES) {
        let s = select(p_lo[j], p_hi[j], upper)[r4];
        // A -inf score stays below NEG_MAX.
        if (s >= NEG_MAX) {
            finite_key = 1.0;
        }
        m = max(m, s);
    }
    let row_max = row_reduce(tid, m, true);
    let zero_row = params.zero_masked_rows != 0u && row_reduce(tid, finite_key, true) == 0.0;
    var total = 0.0;
    for (var j = lane; j < LK; j += ROW_LANES) {
        var e = 0.0;
        if (!zero_row) {
            e = exp(select(p_lo[j], p_hi[j], upper)[r4] - row_max);
        }
        if (upper) {
            p_hi[j][r4] = e;
        } else {
            p_lo[j][r4] = e;
        }
        total += e;
    }
    // A fully masked row sums to 0: 1 / 0 makes its outputs NaN (0 * inf), as softmax's own
    // 0 / 0 would, unless zero_masked_rows asks for zeros.
    let row_sum = row_reduce(tid, total, false);
    if (lane == 0u) {
        partial[row] = select(1.0 / row_sum, 0.0, zero_row);
    }
    workgroupBarrier();
    let inv_lo = vec4<f32>(partial[0], partial[1], partial[2], partial[3]);
    let inv_hi = vec4<f32>(partial[4], partial[5], partial[6], partial[7]);

    // 4. out columns c and c + 64 of rows 2g and 2g + 1, for invocation (c, g) = (tid % 64,
    // tid / 64); the four invocations of a column read the same v elements.
    let g = tid / 64u;
    let inv = select(select(inv_lo.xy, inv_lo.zw, (g & 1u) == 1u),
                     select(inv_hi.xy, inv_hi.zw, (g & 1u) == 1u), g >= 2u);
    let odd = (g & 1u) == 1u;
    let upper_pair = g >= 2u;
    for (var c = tid % 64u; c < DV; c += 64u) {
        var acc = vec2<f32>(0.0);
        let base = at(params.v, b, 0u, c);
        let row = params.v.row;
        // Eight keys at a time, their v loads issued together: each key is another row of v,
        // so one at a time the loop waits a cache miss per key (the H200 took ~50 us a call).
        var j = 0u;
        for (; j + 8u <= LK; j += 8u) {
            let at0 = base + j * row;
            let x0 = f32(v[at0]);
            let x1 = f32(v[at0 + row]);
            let x2 = f32(v[at0 + 2u * row]);
            let x3 = f32(v[at0 + 3u * row]);
            let x4 = f32(v[at0 + 4u * row]);
            let x5 = f32(v[at0 + 5u * row]);
            let x6 = f32(v[at0 + 6u * row]);
            let x7 = f32(v[at0 + 7u * row]);
            acc += x0 * weights(j, upper_pair, odd) + x1 * weights(j + 1u, upper_pair, odd) +
                   x2 * weights(j + 2u, upper_pair, odd) + x3 * weights(j + 3u, upper_pair, odd) +
                   x4 * weights(j + 4u, upper_pair, odd) + x5 * weights(j + 5u, upper_pair, odd) +
                   x6 * weights(j + 6u, upper_pair, odd) + x7 * weights(j + 7u, upper_pair, odd);
        }
        for (; j < LK; j++) {
            acc += f32(v[base + j * row]) * weights(j, upper_pair, odd);
        }
        acc *= inv;
        for (var r = 0u; r < 2u; r++) {
            let i = i0 + 2u * g + r;
            if (i < params.lq) {
                out[(b * params.lq + i) * DV + c] = S(acc[r]);
            }
        }
    }
}
