// Elementwise comparison with NumPy broadcasting, writing bool: one byte per element, four
// elements per u32 word. Each invocation writes one whole word, so no two invocations share
// one. The op prepends `alias S = <element as stored>;`, `alias T = <element as compared>;`
// (f32 for float16) and `fn apply(x: T, y: T) -> bool`.
struct Params {
    numel: u32,
    scalar: f32,  // the other operand of the .Scalar forms
    _pad0: u32,
    _pad1: u32,
    out_sizes: array<vec4<u32>, 2>,
    a_strides: array<vec4<u32>, 2>,
    b_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 256;
// .Scalar forms: the other operand is params.scalar (binding 1 is unused).
override B_SCALAR: bool = false;

fn compare_at(i: u32) -> u32 {
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
    var y: T;
    if (B_SCALAR) {
        y = T(params.scalar);
    } else {
        y = T(b[ib]);
    }
    return select(0u, 1u, apply(T(a[ia]), y));
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
            packed |= compare_at(first + k) << (8u * k);
        }
    }
    out[word] = packed;
}
