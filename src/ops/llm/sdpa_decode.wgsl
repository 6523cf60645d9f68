// Attention of few query rows over a KV cache, read in place: one workgroup per (query head h,
// query row s, batch b) = workgroup_id (x, y, z); the keys are split across the invocations,
// one key each per chunk of WG keys, with an online softmax: per chunk, a workgroup max of the
// scores rescales the running sums, the chunk's exp-scores go through workgroup memory, and
// invocation i accumulates output columns i, i + WG, ... (CPI of them) over the chunk's keys.
// The running per-invocation sum of exp-scores is reduced once at the end.
// Query row s (absolute position start + s) sees cache positions 0 .. start + s when causal,
// 0 .. start + S - 1 otherwise. Query head h reads kv head h / group (grouped-query).
// The C++ side prepends common/workgroup_reduce's prelude: `alias T` (f32 or f16 as stored;
// arithmetic in f32), workgroup_sum / workgroup_max, and it sets `override WG`.
struct Params {
    seq: u32,       // S: query rows
    heads: u32,     // Hq
    kv_heads: u32,  // Hkv
    dim: u32,       // D: head size
    context: u32,   // C: positions in the caches
    start: u32,     // absolute position of query row 0
    causal: u32,
    group: u32,     // Hq / Hkv
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

override WG: u32 = 128;
const CPI = 4u;      // output columns per invocation: D <= CPI * WG (checked by the caller)
const D_MAX = 512u;  // the q row in workgroup memory

var<workgroup> q_row: array<f32, D_MAX>;
var<workgroup> p_chunk: array<f32, WG>;

const NEG_MAX = -3.4028234663852886e38;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, ids: ReduceIds) {
    let h = wid.x;
    let s = wid.y;
    let b = wid.z;
    let lid = ids.lid;
    let dim = params.dim;
    let q_base = ((b * params.seq + s) * params.heads + h) * dim;
    for (var c = lid; c < dim; c += WG) {
        q_row[c] = params.scale * f32(q[q_base + c]);
    }
    workgroupBarrier();

    var keys = first_position() + params.seq;
    if (params.causal != 0u) {
        keys = first_position() + s + 1u;
    }
    let pos_stride = params.kv_heads * dim;  // elements from one cache position to the next
    let kv_base = (b * params.context * params.kv_heads + h / params.group) * dim;
    var m = NEG_MAX;  // running max of the scores seen
    var l = 0.0;      // this invocation's sum of exp(score - m)
    var acc: array<f32, CPI>;
    for (var i = 0u; i < CPI; i++) {
        acc[i] = 0.0;
    }
    for (var j0 = 0u; j0 < keys; j0 += WG) {
        let j = j0 + lid;
        var score = NEG_MAX;
        if (j < keys) {
            let kb = kv_base + j * pos_stride;
            var qk = 0.0;
            for (var c = 0u; c < dim; c++) {
                qk += q_row[c] * f32(k_cache[kb + c]);
            }
            score = qk;
        }
        let m_new = max(m, workgroup_max(score, ids));
        let alpha = exp(m - m_new);
        var p = 0.0;
        if (j < keys) {
            p = exp(score - m_new);
        }
        p_chunk[lid] = p;
        workgroupBarrier();
        l = l * alpha + p;
        let n = min(WG, keys - j0);
        for (var i = 0u; i < CPI; i++) {
            let c = lid + i * WG;
            if (c < dim) {
                var a = acc[i] * alpha;
                var vb = kv_base + j0 * pos_stride + c;
                for (var jj = 0u; jj < n; jj++) {
                    a += p_chunk[jj] * f32(v_cache[vb]);
                    vb += pos_stride;
                }
                acc[i] = a;
            }
        }
        m = m_new;
        workgroupBarrier();  // p_chunk is read by all before the next chunk writes it
    }
    let inv = 1.0 / workgroup_sum(l, ids);
    for (var i = 0u; i < CPI; i++) {
        let c = lid + i * WG;
        if (c < dim) {
            out[q_base + c] = T(acc[i] * inv);
        }
    }
}
