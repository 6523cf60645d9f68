// Elementwise logical and / or / xor with NumPy broadcasting: inputs of any dtype read as their
// truth (nonzero; -0.0 is false and NaN true, as in PyTorch), a bool output of one byte per
// element, four per word, one whole word per invocation. The op prepends `fn truth_a(i: u32) ->
// bool`, `fn truth_b(i: u32) -> bool` (reading element i of a and b as stored) and `fn
// combine(x: bool, y: bool) -> bool`.
struct Params {
    numel: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    out_sizes: array<vec4<u32>, 2>,
    a_strides: array<vec4<u32>, 2>,
    b_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 256;

fn logical_at(i: u32) -> u32 {
    var rest = i;
    var ia = 0u;
    var ib = 0u;
    for (var d = 7; d >= 0; d--) {
        let size = params.out_sizes[d / 4][d % 4];
        let coord = rest % size;
        rest = rest / size;
        ia += coord * params.a_strides[d / 4][d % 4];
        ib += coord * params.b_strides[d / 4][d % 4];
    }
    return select(0u, 1u, combine(truth_a(ia), truth_b(ib)));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let word = gid.x + gid.y * nwg.x * WG;
    let first = word * 4u;
    if (first >= params.numel) {
        return;
    }
    var packed = 0u;
    for (var k = 0u; k < 4u; k++) {
        if (first + k < params.numel) {
            packed |= logical_at(first + k) << (8u * k);
        }
    }
    out[word] = packed;
}
