// vision.percentiles, histogram pass: for each of the four wanted order statistics t, count the
// elements whose key digits above `shift` equal prefix[t]'s, by their digit at `shift`.
// Keys order like the floats: negative floats have every bit flipped, others the sign bit set.
struct Params {
    n: u32,
    shift: u32,       // 24, 16, 8, 0
    first_pass: u32,  // no prefix to match yet (a shift by 32 is not defined in WGSL)
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read> state: array<u32>;  // prefix[4], rank[4]
@group(0) @binding(2) var<storage, read_write> histogram: array<atomic<u32>>;  // [4][256]
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 256;

var<workgroup> counts: array<atomic<u32>, 1024>;

fn key_of(v: f32) -> u32 {
    let b = bitcast<u32>(v);
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = lid; i < 1024u; i += WG) {
        atomicStore(&counts[i], 0u);
    }
    workgroupBarrier();
    let stride = nwg.x * WG;
    for (var i = gid.x; i < params.n; i += stride) {
        let key = key_of(values[i]);
        let digit = (key >> params.shift) & 0xffu;
        for (var t = 0u; t < 4u; t++) {
            if (params.first_pass != 0u ||
                (key >> (params.shift + 8u)) == (state[t] >> (params.shift + 8u))) {
                atomicAdd(&counts[t * 256u + digit], 1u);
            }
        }
    }
    workgroupBarrier();
    for (var i = lid; i < 1024u; i += WG) {
        let c = atomicLoad(&counts[i]);
        if (c != 0u) {
            atomicAdd(&histogram[i], c);
        }
    }
}
