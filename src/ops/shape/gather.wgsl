// torch.gather: out[c] = self[c with c[dim] replaced by index[c]] for every coordinate c of
// index (and out, of index's shape); one invocation per output element. An index outside
// [0, size) gives 0. The C++ side prepends `alias T` (self's and out's element as stored).
struct Params {
    numel: u32,
    rank: u32,
    dim: u32,
    dim_size: u32,                      // self's size along dim
    out_sizes: array<vec4<u32>, 2>,     // index's (= out's) shape, first `rank` used
    self_strides: array<vec4<u32>, 2>,  // self's element strides
}

@group(0) @binding(0) var<storage, read> self_ : array<T>;
@group(0) @binding(1) var<storage, read> index : array<i32>;  // int64 is stored as int32
@group(0) @binding(2) var<storage, read_write> out : array<T>;
@group(0) @binding(3) var<uniform> params : Params;

override WG : u32 = 128;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.numel) {
        return;
    }
    let at = index[t];
    // A negative index compares as a huge u32: one test covers both ends.
    if (u32(at) >= params.dim_size) {
        out[t] = T(0);
        return;
    }
    var rest = t;
    var src = 0u;
    for (var k = 0u; k < params.rank; k++) {
        let d = params.rank - 1u - k;
        let size = params.out_sizes[d / 4u][d % 4u];
        var c = rest % size;
        rest = rest / size;
        if (d == params.dim) {
            c = u32(at);
        }
        src += c * params.self_strides[d / 4u][d % 4u];
    }
    out[t] = self_[src];
}
