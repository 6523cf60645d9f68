// torch.scatter / scatter_add / scatter_reduce as a gather: one invocation per element c of
// out (self's shape) visits the n positions j of index along dim that could land on it (c with
// c[dim] = j, inside index's shape) and takes those whose index equals c[dim]. Deterministic:
// with repeated indices a plain scatter keeps the last, reductions visit in order. Elements no
// index lands on keep self's value. The op prepends `alias S` (stored) and `alias T` (computed).
struct Params {
    numel: u32,
    rank: u32,
    dim: u32,
    n: u32,                              // index's size along dim
    mode: u32,                           // 0 src, 1 value, 2 sum, 3 prod, 4 mean, 5 amax, 6 amin
    include_self: u32,
    value: f32,                          // mode 1
    _pad: u32,
    out_sizes: array<vec4<u32>, 2>,      // self's shape
    index_sizes: array<vec4<u32>, 2>,
    index_strides: array<vec4<u32>, 2>,
    src_strides: array<vec4<u32>, 2>,    // src's element strides (mode != 1)
}

@group(0) @binding(0) var<storage, read> self_: array<S>;
@group(0) @binding(1) var<storage, read> index: array<i32>;  // int64 is stored as int32
@group(0) @binding(2) var<storage, read> src: array<S>;
@group(0) @binding(3) var<storage, read_write> out: array<S>;
@group(0) @binding(4) var<uniform> params: Params;

override WG: u32 = 128;

fn size_of(v: array<vec4<u32>, 2>, d: u32) -> u32 {
    return v[d / 4u][d % 4u];
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.numel) {
        return;
    }
    let own = T(self_[t]);
    // The coordinates of t; index and src offsets of c with c[dim] = 0.
    var rest = t;
    var goal = 0u;
    var at_index = 0u;
    var at_src = 0u;
    var inside = true;
    for (var k = 0u; k < params.rank; k++) {
        let d = params.rank - 1u - k;
        let size = size_of(params.out_sizes, d);
        let c = rest % size;
        rest = rest / size;
        if (d == params.dim) {
            goal = c;
        } else {
            inside = inside && c < size_of(params.index_sizes, d);
            at_index += c * size_of(params.index_strides, d);
            at_src += c * size_of(params.src_strides, d);
        }
    }
    var acc = own;
    var count = 0u;
    if (inside) {
        let index_step = size_of(params.index_strides, params.dim);
        let src_step = size_of(params.src_strides, params.dim);
        for (var j = 0u; j < params.n; j++) {
            if (index[at_index + j * index_step] != i32(goal)) {
                continue;
            }
            var v = T(params.value);
            if (params.mode != 1u) {
                v = T(src[at_src + j * src_step]);
            }
            let first = count == 0u && params.include_self == 0u;
            switch params.mode {
                case 0u, 1u: { acc = v; }
                case 2u, 4u: { acc = select(acc + v, v, first); }
                case 3u: { acc = select(acc * v, v, first); }
                case 5u: { acc = select(max(acc, v), v, first); }
                default: { acc = select(min(acc, v), v, first); }
            }
            count++;
        }
    }
    if (params.mode == 4u && count > 0u) {
        acc = acc / T(count + params.include_self);
    }
    out[t] = S(acc);
}
