// out = condition ? self : other with NumPy broadcasting of all three. The condition is bool,
// one byte per element packed four per u32 word. The op prepends `alias T = ...;`.
struct Params {
    numel: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    out_sizes: array<vec4<u32>, 2>,
    c_strides: array<vec4<u32>, 2>,
    a_strides: array<vec4<u32>, 2>,
    b_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<storage, read> condition: array<u32>;
@group(0) @binding(1) var<storage, read> a: array<T>;
@group(0) @binding(2) var<storage, read> b: array<T>;
@group(0) @binding(3) var<storage, read_write> out: array<T>;
@group(0) @binding(4) var<uniform> params: Params;

override WG: u32 = 256;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= params.numel) {
        return;
    }
    var rest = i;
    var ic = 0u;
    var ia = 0u;
    var ib = 0u;
    for (var d = 7; d >= 0; d--) {
        let size = params.out_sizes[d / 4][d % 4];
        let coord = rest % size;
        rest = rest / size;
        ic += coord * params.c_strides[d / 4][d % 4];
        ia += coord * params.a_strides[d / 4][d % 4];
        ib += coord * params.b_strides[d / 4][d % 4];
    }
    let c = (condition[ic / 4u] >> (8u * (ic % 4u))) & 0xffu;
    out[i] = select(b[ib], a[ia], c != 0u);
}
