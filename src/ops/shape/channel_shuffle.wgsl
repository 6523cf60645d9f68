// wgx.channel_shuffle: the concatenation of the inputs along one dim (C channels), shuffled in
// `groups` groups (channel i * groups + j of the result is channel j * per_group + i of the
// concatenation) and split into the outputs, in one pass. Elements are moved as bits, LANES to
// a 32-bit word (1 for 32-bit types, 2 for float16, 4 for bytes).
//
// Every tensor is viewed as [outer, channels, inner]. One invocation writes one whole word of
// one output, so no two invocations share a word; the outputs of this dispatch own the
// invocations [out_first[k], out_first[k] + words of output k). The op file prepends the
// bindings (in0.., out0.., params), IN_COUNT, OUT_COUNT, and load_in / load_out / store_out,
// which pick a binding by index: the binding count depends on the call, and WebGPU forbids
// binding one buffer twice where one of the bindings is writable, so unused slots cannot be
// filled with a repeated tensor.
struct Params {
    threads: u32,    // words written by this dispatch
    inner: u32,      // elements per channel slab
    groups: u32,
    per_group: u32,  // channels / groups
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    _pad3: u32,
    in_offsets: vec4<u32>,   // first channel of input j in the concatenation
    in_sizes: vec4<u32>,     // channels of input j
    out_offsets: vec4<u32>,  // first channel of output k in the shuffled tensor
    out_sizes: vec4<u32>,    // channels of output k
    out_first: vec4<u32>,    // first invocation of output k
    out_numel: vec4<u32>,    // elements of output k
}

override WG: u32 = 256;
override LANES: u32 = 1;

// The element of the concatenation that lands at element e of output k: the input it lies in
// (x) and its element index there (y).
fn source_of(k: u32, e: u32) -> vec2<u32> {
    let i = e % params.inner;
    let r = e / params.inner;
    let size = params.out_sizes[k];
    let c = params.out_offsets[k] + r % size;  // channel in the shuffled tensor
    let o = r / size;
    let s = (c % params.groups) * params.per_group + c / params.groups;  // ... in the concatenation
    var j = 0u;
    for (var m = 1u; m < IN_COUNT; m++) {
        if (s >= params.in_offsets[m]) {
            j = m;
        }
    }
    return vec2<u32>(j, (o * params.in_sizes[j] + (s - params.in_offsets[j])) * params.inner + i);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.threads) {
        return;
    }
    // The output holding invocation t: the last whose first invocation is <= t (an output of
    // no elements has the same first invocation as the next one).
    var k = 0u;
    for (var m = 1u; m < OUT_COUNT; m++) {
        if (t >= params.out_first[m]) {
            k = m;
        }
    }
    let w = t - params.out_first[k];
    if (LANES == 1u) {
        let src = source_of(k, w);
        store_out(k, w, load_in(src.x, src.y));
        return;
    }
    let bits = 32u / LANES;
    var word = 0u;
    if ((w + 1u) * LANES > params.out_numel[k]) {
        word = load_out(k, w);  // the last word, partly past the end: those lanes stay
    }
    for (var lane = 0u; lane < LANES; lane++) {
        let e = w * LANES + lane;
        if (e >= params.out_numel[k]) {
            break;
        }
        let src = source_of(k, e);
        let v = extractBits(load_in(src.x, src.y / LANES), (src.y % LANES) * bits, bits);
        word = insertBits(word, v, lane * bits, bits);
    }
    store_out(k, w, word);
}
