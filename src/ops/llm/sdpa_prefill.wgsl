// Attention of a block of query rows over a KV cache, read in place (flash-attention style):
// one workgroup per (block of QR query rows, query head h, batch b) = workgroup_id (x, y, z),
// walking the keys in chunks of KC. Per chunk the keys go to workgroup memory and invocation
// (r, k) = (lid / KC, lid % KC) scores row r against key k; then the values replace the keys
// there and invocation (r, g) = (lid / 16, lid % 16) rescales its running sums by the row's new
// max (online softmax) and accumulates output columns g, g + 16, ... of row r. The rows share
// every key and value load, which the one-row kernel (sdpa_decode.wgsl) repeats per row.
// Query row s (absolute position start + s) sees cache positions 0 .. start + s when causal,
// 0 .. start + S - 1 otherwise. Query head h reads kv head h / group (grouped-query).
// Workgroup memory: q block 8 x 128, key or value chunk 16 x 129 (a padded row, so the 16 keys
// a score step reads sit in different banks), scores 8 x 16 floats: about 12.5 KiB.
// The C++ side prepends `alias T` (f32 or f16 as stored; arithmetic in f32).
struct Params {
    seq: u32,
    heads: u32,
    kv_heads: u32,
    dim: u32,
    context: u32,
    start: u32,
    causal: u32,
    group: u32,
    scale: f32,
    start_slot: u32,  // live integer slot of start, or 0xffffffff
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> q: array<T>;        // [B, S, Hq, D]
@group(0) @binding(1) var<storage, read> k_cache: array<T>;  // [B, C, Hkv, D]
@group(0) @binding(2) var<storage, read> v_cache: array<T>;  // [B, C, Hkv, D]
@group(0) @binding(3) var<storage, read_write> out: array<T>;  // [B, S, Hq, D]
@group(0) @binding(4) var<uniform> params: Params;
@group(0) @binding(5) var<storage, read> live_ints: array<i32>;

// The first position: the live integer at start_slot when there is one (wgx::LiveInt: an LLM's
// cache position, changing every step without recording again), else `start`. Kept inside the
// cache whatever the value (the host checks it before each run).
fn first_position() -> u32 {
    var p = params.start;
    if (params.start_slot != 0xffffffffu) {
        p = u32(max(live_ints[params.start_slot], 0));
    }
    return min(p, params.context - params.seq);
}

const WG = 128u;
const QR = 8u;              // query rows per workgroup
const KC = 16u;             // keys per chunk: QR * KC == WG scores
const D_MAX = 128u;         // head size limit (checked by the caller)
const KV_STRIDE = D_MAX + 1u;
const OG = WG / QR;         // invocations per output row
const CPT = D_MAX / OG;     // output columns per invocation
const_assert QR * KC == WG && D_MAX % OG == 0u;

var<workgroup> q_block: array<f32, QR * D_MAX>;
var<workgroup> kv_chunk: array<f32, KC * KV_STRIDE>;
var<workgroup> scores: array<f32, QR * KC>;

const NEG_MAX = -3.4028234663852886e38;

// Keys (cache positions) that query row s sees.
fn keys_of(s: u32) -> u32 {
    if (params.causal != 0u) {
        return first_position() + s + 1u;
    }
    return first_position() + params.seq;
}

// Positions j0 .. j0 + KC - 1 of `which` cache (0: k, 1: v) into kv_chunk, 0 past `keys`.
fn load_chunk(which: u32, j0: u32, keys: u32, kv_base: u32, pos_stride: u32, lid: u32) {
    for (var e = lid; e < KC * D_MAX; e += WG) {
        let jj = e / D_MAX;
        let c = e % D_MAX;
        var x = 0.0;
        if (j0 + jj < keys && c < params.dim) {
            let at = kv_base + (j0 + jj) * pos_stride + c;
            if (which == 0u) {
                x = f32(k_cache[at]);
            } else {
                x = f32(v_cache[at]);
            }
        }
        kv_chunk[jj * KV_STRIDE + c] = x;
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let s0 = wid.x * QR;
    let h = wid.y;
    let b = wid.z;
    let dim = params.dim;
    for (var e = lid; e < QR * D_MAX; e += WG) {
        let r = e / D_MAX;
        let c = e % D_MAX;
        var x = 0.0;
        if (s0 + r < params.seq && c < dim) {
            x = params.scale * f32(q[((b * params.seq + s0 + r) * params.heads + h) * dim + c]);
        }
        q_block[e] = x;
    }

    let last = min(s0 + QR, params.seq) - 1u;
    let keys = keys_of(last);  // the most any row of the block sees
    let pos_stride = params.kv_heads * dim;
    let kv_base = (b * params.context * params.kv_heads + h / params.group) * dim;
    let sr = lid / KC;
    let sk = lid % KC;
    let orow = lid / OG;
    let og = lid % OG;
    let row_keys = keys_of(s0 + orow);
    var m = NEG_MAX;
    var l = 0.0;
    var acc: array<f32, CPT>;
    for (var i = 0u; i < CPT; i++) {
        acc[i] = 0.0;
    }
    for (var j0 = 0u; j0 < keys; j0 += KC) {
        load_chunk(0u, j0, keys, kv_base, pos_stride, lid);
        workgroupBarrier();
        var qk = 0.0;
        for (var c = 0u; c < dim; c++) {
            qk += q_block[sr * D_MAX + c] * kv_chunk[sk * KV_STRIDE + c];
        }
        scores[lid] = qk;
        workgroupBarrier();
        load_chunk(1u, j0, keys, kv_base, pos_stride, lid);
        workgroupBarrier();
        // Key j0 + jj counts for this row when below row_keys; the first chunk always has key
        // 0, so m is finite from then on and l > 0.
        var cmax = NEG_MAX;
        for (var jj = 0u; jj < KC; jj++) {
            if (j0 + jj < row_keys) {
                cmax = max(cmax, scores[orow * KC + jj]);
            }
        }
        let m_new = max(m, cmax);
        let alpha = exp(m - m_new);
        l *= alpha;
        for (var i = 0u; i < CPT; i++) {
            acc[i] *= alpha;
        }
        for (var jj = 0u; jj < KC; jj++) {
            if (j0 + jj < row_keys) {
                let p = exp(scores[orow * KC + jj] - m_new);
                l += p;
                for (var i = 0u; i < CPT; i++) {
                    acc[i] += p * kv_chunk[jj * KV_STRIDE + og + i * OG];
                }
            }
        }
        m = m_new;
        workgroupBarrier();  // everyone is done with kv_chunk and scores
    }
    if (s0 + orow < params.seq) {
        let o = ((b * params.seq + s0 + orow) * params.heads + h) * dim;
        for (var i = 0u; i < CPT; i++) {
            let c = og + i * OG;
            if (c < dim) {
                out[o + c] = T(acc[i] / l);
            }
        }
    }
}
