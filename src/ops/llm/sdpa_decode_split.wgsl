// Attention of few query rows over a KV cache read in place, first pass: the keys a row sees are
// split among up to `splits` workgroups (flash-decoding), so that a long cache is read by many
// workgroups at once instead of one per head. Workgroup (h, split, row = b * S + s) takes its
// chunk of keys in blocks of WG: the scores with LPK invocations per key (each a run of 4
// dimensions at a time, so a key row is read contiguously), an online softmax over the blocks,
// and the value sums with each invocation holding 4 adjacent columns for every R-th key of the
// block. It writes the unnormalised sums, the max score and the sum of exp-scores for
// sdpa_decode_combine.wgsl. Query head h reads kv head h / group (grouped-query).
// The C++ side prepends common/workgroup_reduce's prelude (`alias T`, f32 or f16 as stored;
// arithmetic in f32), sdpa_decode_common.wgsl, and sets `override WG` (a multiple of LPK).

@group(0) @binding(0) var<storage, read> q: array<T>;        // [B, S, Hq, D]
@group(0) @binding(1) var<storage, read> k_cache: array<T>;  // [B, C, Hkv, D]
@group(0) @binding(2) var<storage, read> v_cache: array<T>;  // [B, C, Hkv, D]
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;
@group(0) @binding(5) var<storage, read> live_ints: array<i32>;

override WG: u32 = 128;
const LPK = 16u;     // invocations per key in the scores
const D_MAX = 512u;  // the q row in workgroup memory; D <= 4 * WG (checked by the caller)

var<workgroup> q_row: array<f32, D_MAX>;
var<workgroup> dot_part: array<f32, WG>;    // LPK partial dot products per key
var<workgroup> p_block: array<f32, WG>;     // the block's scores, then its exp-scores
var<workgroup> acc_part: array<f32, 4u * WG>;  // value sums of every key lane, reduced at the end

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, ids: ReduceIds) {
    let h = wid.x;
    let split = wid.y;
    let row = wid.z;
    let s = row % params.seq;
    let b = row / params.seq;
    let lid = ids.lid;
    let dim = params.dim;
    let keys = keys_of_row(s);
    if (split >= live_splits(keys)) {
        return;  // the whole workgroup: the cache is too short for this split yet
    }
    let chunk = chunk_of(keys);
    let k0 = split * chunk;
    let k1 = min(keys, k0 + chunk);

    let q_base = ((b * params.seq + s) * params.heads + h) * dim;
    for (var c = lid; c < dim; c += WG) {
        q_row[c] = params.scale * f32(q[q_base + c]);
    }
    workgroupBarrier();

    let pos_stride = params.kv_heads * dim;  // elements from one cache position to the next
    let kv_base = (b * params.context * params.kv_heads + h / params.group) * dim;
    // The value sums: column group g (columns 4g .. 4g + 3) of key lane r.
    let groups = (dim + 3u) / 4u;
    let lanes = WG / groups;  // R: key lanes (>= 1 as D <= 4 * WG)
    let g = lid % groups;
    let r = lid / groups;
    var acc = vec4<f32>(0.0);
    var m = NEG_MAX;  // running max of the scores seen
    var l = 0.0;      // this invocation's share of the sum of exp(score - m)
    for (var j0 = k0; j0 < k1; j0 += WG) {
        let n = min(WG, k1 - j0);
        // Scores, KPP keys a pass: lane `lane` of key `jl` sums dims 4 * lane + 4 * LPK * t ...
        let kpp = WG / LPK;
        let lane = lid % LPK;
        for (var p0 = 0u; p0 < n; p0 += kpp) {
            let jl = p0 + lid / LPK;
            var part = 0.0;
            if (jl < n) {
                let kb = kv_base + (j0 + jl) * pos_stride;
                for (var c = 4u * lane; c < dim; c += 4u * LPK) {
                    let e = min(dim - c, 4u);
                    for (var i = 0u; i < e; i++) {
                        part += q_row[c + i] * f32(k_cache[kb + c + i]);
                    }
                }
            }
            dot_part[lid] = part;
            workgroupBarrier();
            if (lid < kpp && p0 + lid < n) {
                var sum = 0.0;
                for (var t = 0u; t < LPK; t++) {
                    sum += dot_part[lid * LPK + t];
                }
                p_block[p0 + lid] = sum;
            }
            workgroupBarrier();
        }
        var score = NEG_MAX;
        if (lid < n) {
            score = p_block[lid];
        }
        let m_new = max(m, workgroup_max(score, ids));
        let alpha = exp(m - m_new);
        var p = 0.0;
        if (lid < n) {
            p = exp(score - m_new);
        }
        p_block[lid] = p;  // each invocation rewrites only the entry it read
        l = l * alpha + p;
        acc *= alpha;
        workgroupBarrier();
        if (r < lanes) {
            for (var jj = r; jj < n; jj += lanes) {
                let pj = p_block[jj];
                let vb = kv_base + (j0 + jj) * pos_stride + 4u * g;
                for (var i = 0u; i < 4u; i++) {
                    if (4u * g + i < dim) {
                        acc[i] += pj * f32(v_cache[vb + i]);
                    }
                }
            }
        }
        m = m_new;
        workgroupBarrier();  // p_block is read by all before the next block writes it
    }
    let l_sum = workgroup_sum(l, ids);
    if (r < lanes) {
        for (var i = 0u; i < 4u; i++) {
            acc_part[4u * lid + i] = acc[i];
        }
    }
    workgroupBarrier();
    let base = partial_base(row, h, split);
    if (r == 0u) {
        for (var i = 0u; i < 4u; i++) {
            let c = 4u * g + i;
            if (c < dim) {
                var sum = 0.0;
                for (var rr = 0u; rr < lanes; rr++) {
                    sum += acc_part[4u * (rr * groups + g) + i];
                }
                partial[base + c] = sum;
            }
        }
    }
    if (lid == 0u) {
        partial[base + dim] = m;
        partial[base + dim + 1u] = l_sum;
    }
}
