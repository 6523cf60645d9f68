// out = self with the slice start:start+len*step:step of `dim` replaced by src. Elements move as
// bits: `lanes` of them share one 32-bit word (1 for 32-bit types, 2 for float16, 4 for bytes),
// so one invocation assembles one whole word of out from its lanes' sources (self or src) and
// no two invocations write the same word.
struct Params {
    numel: u32,     // elements of out (and self)
    inner: u32,     // elements per index of `dim` (the product of the later dims)
    dim_size: u32,  // self's size along dim
    len: u32,       // src's size along dim
    start: u32,
    step: u32,
    lanes: u32,     // elements per 32-bit word
    words: u32,     // words of out: ceil(numel / lanes)
}

@group(0) @binding(0) var<storage, read> self_: array<u32>;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 128;

// Element `e` of a packed array whose word is `word`.
fn lane_bits(word: u32, e: u32) -> u32 {
    let bits = 32u / params.lanes;
    if (bits == 32u) {
        return word;
    }
    return (word >> ((e % params.lanes) * bits)) & ((1u << bits) - 1u);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = gid.x + gid.y * nwg.x * WG;
    if (w >= params.words) {
        return;
    }
    let bits = 32u / params.lanes;
    var word = 0u;
    for (var j = 0u; j < params.lanes; j++) {
        let o = w * params.lanes + j;
        if (o >= params.numel) {
            break;
        }
        let i = o % params.inner;
        let d = (o / params.inner) % params.dim_size;
        let outer = o / (params.inner * params.dim_size);
        var v = lane_bits(self_[o / params.lanes], o);
        if (d >= params.start && (d - params.start) % params.step == 0u) {
            let k = (d - params.start) / params.step;
            if (k < params.len) {
                let s = (outer * params.len + k) * params.inner + i;
                v = lane_bits(src[s / params.lanes], s);
            }
        }
        if (bits == 32u) {
            word = v;
        } else {
            word = word | (v << (j * bits));
        }
    }
    out[w] = word;
}
