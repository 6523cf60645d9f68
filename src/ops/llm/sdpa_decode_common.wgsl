// What both decode attention kernels (sdpa_decode_split.wgsl, sdpa_decode_combine.wgsl) agree
// on: the uniform, the first position, how many keys a query row sees, and how those keys are
// split among workgroups. Each kernel declares `params` and `live_ints` itself.
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
    splits: u32,      // workgroups per (query row, head) in the grid: the most that can be live
    _pad: u32,
}

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

// Query row s sees cache positions 0 .. start + s when causal, 0 .. start + S - 1 otherwise.
fn keys_of_row(s: u32) -> u32 {
    if (params.causal != 0u) {
        return first_position() + s + 1u;
    }
    return first_position() + params.seq;
}

// At least this many keys per split: a short cache uses fewer of the grid's splits, so that no
// workgroup does too little to pay for its partial result.
const MIN_CHUNK = 32u;

fn live_splits(keys: u32) -> u32 {
    return max(1u, min(params.splits, (keys + MIN_CHUNK - 1u) / MIN_CHUNK));
}

fn chunk_of(keys: u32) -> u32 {
    let live = live_splits(keys);
    return (keys + live - 1u) / live;
}

// Where a split's partial result starts: [B * S, Hq, splits] records of D sums, the max and
// the sum of exp-scores.
fn partial_base(row: u32, h: u32, split: u32) -> u32 {
    return ((row * params.heads + h) * params.splits + split) * (params.dim + 2u);
}

const NEG_MAX = -3.4028234663852886e38;
