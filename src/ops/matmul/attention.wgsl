// wgx.attention: k and v pass through workgroup memory in tiles loaded along their rows, within
// the 16 KiB of workgroup memory every WebGPU device has.
// Why (docs/PERFORMANCE.md#staged-attention-kernel): when each invocation read its own key's
// row of k one element per step (the kernel before this one), a
// warp's load touched 32 rows (32 cache sectors for 32 floats) and each step waited for its
// own miss, 64 steps in a row, and the weighted sum walked v's keys the same way. Here consecutive
// invocations load consecutive elements of a row (a sector per 8 floats), all loads of a tile
// are issued together, and they are issued two tiles ahead into registers (a tile's registers
// are refilled as soon as the tile is in workgroup memory), so a tile waits for loads that were
// issued two tiles earlier, not for its own. D, DV and LK are pipeline-override constants
// (fixed trip counts).
//
// out[b, i, :] = softmax_j(scale * q[b, i, :] . k[b, j, :]) @ v[b, :, :], q, k, v strided views
// (element (b, r, c) at offset + b * batch + r * row + c * col), out contiguous [B, Lq, DV].
// A workgroup of WG invocations takes ROWS query rows of one batch entry (workgroup_id.x: the
// block of rows, workgroup_id.y: b):
//   1. q rows (times scale) into workgroup memory, zero past D and past Lq;
//   2. scores: k in tiles of KT_KEYS keys x KT_COLS columns (zero past Lk and D), one tile per
//      stage (column tiles inner); invocation (jj, rg) = (tid % KT_KEYS, tid / KT_KEYS) sums
//      key jj's products with rows rg, rg + RG, ... and stores their scores after the key's
//      last column tile;
//   3. per row, max and sum of exp over LANES invocations; the scores become exp(s - max),
//      zero for the padding keys up to a multiple of VT_KEYS;
//   4. out = exp-scores @ v: v in tiles of VT_KEYS keys x VT_COLS columns (key tiles inner);
//      invocation (c, g) = (tid % VT_COLS, tid / VT_COLS) sums column c of rows g, g + G, ...
//      and stores them, times 1 / sum, after the last key tile.
// The k tile's vec4 slots are swizzled (slot c4 ^ (key & 7) of the key's row), so the 8
// invocations of a quarter warp reading 8 keys' same columns hit 8 different banks.
// Workgroup memory: the scores, ROWS x LK_MAX floats (8 KiB), and one area used in turn for q
// and the k tile (4 + 4 KiB), the row reductions (2 KiB), the v tile (8 KiB): 16 KiB.
//
// A row whose scores are all -inf (every key masked) gives 0 when params.zero_masked_rows is
// set, else NaN as softmax itself gives (1 / 0 times 0), as in the built-in kernel.
// S: the element type as stored (prepended): f32, or f16 with f32 arithmetic.

// Set by the pipeline from the call: D = params.d, DV = params.dv, LK = params.lk.
override D: u32;
override DV: u32;
override LK: u32;
// Derived from them.
override NC: u32 = (D + KT_COLS - 1u) / KT_COLS;               // column tiles of k
override K_STAGES: u32 = (LK + KT_KEYS - 1u) / KT_KEYS * NC;
override NKV: u32 = (LK + VT_KEYS - 1u) / VT_KEYS;              // key tiles of v
override V_STAGES: u32 = (DV + VT_COLS - 1u) / VT_COLS * NKV;

const LK_MAX = 256u;
const D_MAX = 128u;
const ROWS = 8u;
const WG = 256u;
const KT_KEYS = 32u;  // k tile: keys (a multiple of 32 dividing WG)
const KT_COLS = 32u;  // k tile: columns (a multiple of 32: 8 vec4 slots for the swizzle)
const VT_KEYS = 32u;  // v tile: keys (a multiple of 4 dividing LK_MAX)
const VT_COLS = 64u;  // v tile: columns (a multiple of 32 dividing WG)
const LANES = WG / ROWS;              // invocations per row in phase 3
const KPER = KT_KEYS * KT_COLS / WG;  // k tile elements each invocation loads
const VPER = VT_KEYS * VT_COLS / WG;  // v tile elements each invocation loads
const RG = WG / KT_KEYS;              // row groups of phase 2
const SPI = ROWS / RG;                // rows per invocation in phase 2
const G = WG / VT_COLS;               // row groups of phase 4
const OPI = ROWS / G;                 // rows per invocation in phase 4
// The shared area, in vec4s: q (ROWS x D_MAX floats) at Q4, the k tile at K4; later the row
// reductions (2 x WG floats) at 0; then the v tile (VT_KEYS x VT_COLS floats) at 0.
const Q4 = 0u;
const K4 = ROWS * D_MAX / 4u;
const X4 = max(max(K4 + KT_KEYS * KT_COLS / 4u, 2u * WG / 4u), VT_KEYS * VT_COLS / 4u);
const_assert KT_KEYS % 32u == 0u && WG % KT_KEYS == 0u && ROWS % RG == 0u;
const_assert KT_COLS % 32u == 0u && VT_COLS % 32u == 0u && WG % VT_COLS == 0u;
const_assert LK_MAX % VT_KEYS == 0u && VT_KEYS % 4u == 0u && ROWS % G == 0u;

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

var<workgroup> ps: array<vec4<f32>, ROWS * LK_MAX / 4u>;  // score (r, j): float r * LK_MAX + j
var<workgroup> xs: array<vec4<f32>, X4>;

const NEG_MAX = -3.4028234663852886e38;

fn at(view: View, b: u32, r: u32, c: u32) -> u32 {
    return view.offset + b * view.batch + r * view.row + c * view.col;
}

fn score(r: u32, j: u32) -> f32 {
    return ps[r * (LK_MAX / 4u) + (j >> 2u)][j & 3u];
}

fn set_score(r: u32, j: u32, x: f32) {
    ps[r * (LK_MAX / 4u) + (j >> 2u)][j & 3u] = x;
}

// Float i of the shared area.
fn get_x(i: u32) -> f32 {
    return xs[i >> 2u][i & 3u];
}

fn set_x(i: u32, x: f32) {
    xs[i >> 2u][i & 3u] = x;
}

// This invocation's elements of k stage s (key tile s / NC, column tile s % NC), 0 past Lk and
// D: element tid + i * WG of the tile, row-major.
fn load_k(b: u32, tid: u32, s: u32, buf: ptr<function, array<f32, KPER>>) {
    for (var i = 0u; i < KPER; i++) {
        let e = tid + i * WG;
        let j = (s / NC) * KT_KEYS + e / KT_COLS;
        let c = (s % NC) * KT_COLS + e % KT_COLS;
        var x = 0.0;
        if (j < LK && c < D) {
            x = f32(k[at(params.k, b, j, c)]);
        }
        (*buf)[i] = x;
    }
}

// This invocation's elements of v stage s (column tile s / NKV, key tile s % NKV), 0 past Lk
// and DV.
fn load_v(b: u32, tid: u32, s: u32, buf: ptr<function, array<f32, VPER>>) {
    for (var i = 0u; i < VPER; i++) {
        let e = tid + i * WG;
        let j = (s % NKV) * VT_KEYS + e / VT_COLS;
        let c = (s / NKV) * VT_COLS + e % VT_COLS;
        var x = 0.0;
        if (j < LK && c < DV) {
            x = f32(v[at(params.v, b, j, c)]);
        }
        (*buf)[i] = x;
    }
}

// Phase 2, stage s: the tile from `buf` into workgroup memory, stage s + 2's loads into `buf`,
// the tile's products into `acc`, and the scores after the key tile's last column tile.
fn k_stage(b: u32, tid: u32, s: u32, buf: ptr<function, array<f32, KPER>>,
           acc: ptr<function, array<f32, SPI>>) {
    for (var i = 0u; i < KPER; i++) {
        let e = tid + i * WG;
        let key = e / KT_COLS;
        let c = e % KT_COLS;
        xs[K4 + key * (KT_COLS / 4u) + ((c >> 2u) ^ (key & 7u))][c & 3u] = (*buf)[i];
    }
    workgroupBarrier();
    if (s + 2u < K_STAGES) {
        load_k(b, tid, s + 2u, buf);
    }
    let jj = tid % KT_KEYS;
    let rg = tid / KT_KEYS;
    let dc = s % NC;
    if (dc == 0u) {
        for (var t = 0u; t < SPI; t++) {
            (*acc)[t] = 0.0;
        }
    }
    let krow = K4 + jj * (KT_COLS / 4u);
    for (var c4 = 0u; c4 < KT_COLS / 4u; c4++) {
        let kv = xs[krow + (c4 ^ (jj & 7u))];
        for (var t = 0u; t < SPI; t++) {
            let r = rg + t * RG;
            (*acc)[t] += dot(kv, xs[Q4 + r * (D_MAX / 4u) + dc * (KT_COLS / 4u) + c4]);
        }
    }
    let j = (s / NC) * KT_KEYS + jj;
    if (dc == NC - 1u && j < LK) {
        for (var t = 0u; t < SPI; t++) {
            set_score(rg + t * RG, j, (*acc)[t]);
        }
    }
    workgroupBarrier();
}

// Phase 4, stage s: the tile from `buf` into workgroup memory, stage s + 2's loads into `buf`,
// the tile's products into `o`, and the outputs (times `inv`) after the last key tile.
fn v_stage(b: u32, tid: u32, i0: u32, s: u32, buf: ptr<function, array<f32, VPER>>,
           o: ptr<function, array<f32, OPI>>, inv: ptr<function, array<f32, OPI>>) {
    for (var i = 0u; i < VPER; i++) {
        set_x(tid + i * WG, (*buf)[i]);
    }
    workgroupBarrier();
    if (s + 2u < V_STAGES) {
        load_v(b, tid, s + 2u, buf);
    }
    let c = tid % VT_COLS;
    let g = tid / VT_COLS;
    let kt = s % NKV;
    if (kt == 0u) {
        for (var t = 0u; t < OPI; t++) {
            (*o)[t] = 0.0;
        }
    }
    for (var j4 = 0u; j4 < VT_KEYS / 4u; j4++) {
        let at0 = 4u * j4 * VT_COLS + c;
        let vv = vec4<f32>(get_x(at0), get_x(at0 + VT_COLS), get_x(at0 + 2u * VT_COLS),
                           get_x(at0 + 3u * VT_COLS));
        for (var t = 0u; t < OPI; t++) {
            let r = g + t * G;
            (*o)[t] += dot(ps[r * (LK_MAX / 4u) + kt * (VT_KEYS / 4u) + j4], vv);
        }
    }
    let col = (s / NKV) * VT_COLS + c;
    if (kt == NKV - 1u && col < DV) {
        for (var t = 0u; t < OPI; t++) {
            let i = i0 + g + t * G;
            if (i < params.lq) {
                out[(b * params.lq + i) * DV + col] = S((*o)[t] * (*inv)[t]);
            }
        }
    }
    workgroupBarrier();
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32) {
    let b = wid.y;
    let i0 = wid.x * ROWS;

    // The first two k tiles' loads go out before q's, all in flight together.
    var ka: array<f32, KPER>;
    var kb: array<f32, KPER>;
    load_k(b, tid, 0u, &ka);
    if (1u < K_STAGES) {
        load_k(b, tid, 1u, &kb);
    }

    // 1. q rows, scaled, row-major with D_MAX columns: zero past D and for rows past Lq.
    for (var e = tid; e < ROWS * D_MAX; e += WG) {
        let r = e / D_MAX;
        let c = e % D_MAX;
        var x = 0.0;
        if (i0 + r < params.lq && c < D) {
            x = params.scale * f32(q[at(params.q, b, i0 + r, c)]);
        }
        set_x(Q4 * 4u + e, x);
    }

    // 2. Scores, stages alternating between the two register tiles.
    var acc: array<f32, SPI>;
    for (var s = 0u; s < K_STAGES; s += 2u) {
        k_stage(b, tid, s, &ka, &acc);
        if (s + 1u < K_STAGES) {
            k_stage(b, tid, s + 1u, &kb, &acc);
        }
    }

    // The first two v tiles' loads go out now and arrive during the softmax.
    var va: array<f32, VPER>;
    var vb: array<f32, VPER>;
    load_v(b, tid, 0u, &va);
    if (1u < V_STAGES) {
        load_v(b, tid, 1u, &vb);
    }

    // 3. Softmax statistics of row `row` over keys lane, lane + LANES, ...: the max and whether
    // any score is finite (a -inf score stays below NEG_MAX), reduced together.
    let row = tid / LANES;
    let lane = tid % LANES;
    var m = NEG_MAX;
    var finite_key = 0.0;
    for (var j = lane; j < LK; j += LANES) {
        let s = score(row, j);
        if (s >= NEG_MAX) {
            finite_key = 1.0;
        }
        m = max(m, s);
    }
    set_x(tid, m);
    set_x(WG + tid, finite_key);
    workgroupBarrier();
    let first = row * LANES;
    var row_max = get_x(first);
    var any_finite = get_x(WG + first);
    for (var i = 1u; i < LANES; i++) {
        row_max = max(row_max, get_x(first + i));
        any_finite = max(any_finite, get_x(WG + first + i));
    }
    workgroupBarrier();
    let zero_row = params.zero_masked_rows != 0u && any_finite == 0.0;
    // Keys up to a multiple of VT_KEYS: phase 4 reads whole tiles, the padding as 0.
    var total = 0.0;
    for (var j = lane; j < NKV * VT_KEYS; j += LANES) {
        var e = 0.0;
        if (!zero_row && j < LK) {
            e = exp(score(row, j) - row_max);
        }
        set_score(row, j, e);
        total += e;
    }
    set_x(tid, total);
    workgroupBarrier();
    // 1 / sum for phase 4's rows, from the lanes' partial sums. A row sums to 0 exactly when
    // it has no finite score (else its largest contributes exp(0) = 1) or it was zeroed: then
    // 1 / 0 makes its outputs NaN (0 * inf), as softmax's own 0 / 0 would, unless
    // zero_masked_rows asks for zeros.
    var inv: array<f32, OPI>;
    for (var t = 0u; t < OPI; t++) {
        let r = tid / VT_COLS + t * G;
        var sum = 0.0;
        for (var i = 0u; i < LANES; i++) {
            sum += get_x(r * LANES + i);
        }
        inv[t] = select(1.0 / sum, 0.0, params.zero_masked_rows != 0u && sum == 0.0);
    }
    workgroupBarrier();

    // 4. out = exp-scores @ v, stages alternating between the two register tiles.
    var o: array<f32, OPI>;
    for (var s = 0u; s < V_STAGES; s += 2u) {
        v_stage(b, tid, i0, s, &va, &o, &inv);
        if (s + 1u < V_STAGES) {
            v_stage(b, tid, i0, s + 1u, &vb, &o, &inv);
        }
    }
}
