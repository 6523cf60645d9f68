// out = self with the slice start:start+len*step:step of `dim` replaced by src. One invocation
// per element of out, each reading either self or src: out never aliases either, so no element
// is written twice. Elements are moved as 32-bit words (the C++ side takes only 32-bit types).
struct Params {
    numel: u32,     // elements of out (and self)
    inner: u32,     // elements per index of `dim` (the product of the later dims)
    dim_size: u32,  // self's size along dim
    len: u32,       // src's size along dim
    start: u32,
    step: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> self_: array<u32>;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 128;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let o = gid.x + gid.y * nwg.x * WG;
    if (o >= params.numel) {
        return;
    }
    let i = o % params.inner;
    let d = (o / params.inner) % params.dim_size;
    let outer = o / (params.inner * params.dim_size);
    var word = self_[o];
    if (d >= params.start && (d - params.start) % params.step == 0u) {
        let k = (d - params.start) / params.step;
        if (k < params.len) {
            word = src[(outer * params.len + k) * params.inner + i];
        }
    }
    out[o] = word;
}
