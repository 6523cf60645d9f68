// Elementwise binary op with NumPy broadcasting up to rank 8. The op's C++ file prepends
// `alias S = <element as stored>;`, `alias T = <element as computed>;` (f32 for float16) and
// `fn apply(x: T, y: T) -> T`.
struct Params {
    numel: u32,
    alpha: f32,
    rank: u32,                       // the trailing dims in use (merged where contiguous)
    _pad1: u32,
    out_sizes: array<vec4<u32>, 2>,  // output shape, left-padded with 1s to 8 dims
    a_strides: array<vec4<u32>, 2>,  // element strides of `a` per output dim (0: broadcast)
    b_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> a: array<S>;
@group(0) @binding(1) var<storage, read> b: array<S>;
@group(0) @binding(2) var<storage, read_write> out: array<S>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 256;
// Equal shapes: every operand is read at the output index.
override SAME_SHAPE: bool = false;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= params.numel) {
        return;
    }
    if (SAME_SHAPE) {
        out[i] = S(apply(T(a[i]), T(b[i])));
        return;
    }
    var rest = i;
    var ia = 0u;
    var ib = 0u;
    for (var d = 7; d >= 8 - i32(params.rank); d--) {
        let size = params.out_sizes[d / 4][d % 4];
        let coord = rest % size;
        rest = rest / size;
        ia += coord * params.a_strides[d / 4][d % 4];
        ib += coord * params.b_strides[d / 4][d % 4];
    }
    out[i] = S(apply(T(a[ia]), T(b[ib])));
}
