// Row gather: out[p, n, d] = weight[p, indices[n], d] for the P outer blocks of weight
// [P, V, D], the flattened indices n and the D elements of each row; one invocation per
// output element. aten.embedding is P = 1; aten.index.Tensor indexes any one dim. An index outside
// [0, V) gives a row of zeros (see embedding.cpp for why zeros rather than a clamped row). The C++
// side prepends `alias T` (the weight's and out's element type as stored).
// A table larger than one storage binding (P = 1) is bound in parts, one dispatch each: `weight`
// then holds rows [first, first + part_rows) only, and a dispatch writes just the elements whose
// index falls there; the first part also writes the zeros of the indices outside [0, V).
// With one part, first = 0 and part_rows = V.
struct Params {
    total: u32,      // elements of out: P * N * D
    dim: u32,        // D
    rows: u32,       // V
    count: u32,      // N
    first: u32,      // the part's first row
    part_rows: u32,  // rows in the part
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<storage, read> weight : array<T>;
@group(0) @binding(1) var<storage, read> indices : array<i32>;  // int64 is stored as int32
@group(0) @binding(2) var<storage, read_write> out : array<T>;
@group(0) @binding(3) var<uniform> params : Params;

override WG : u32 = 128;

@compute @workgroup_size(WG) fn main(@builtin(global_invocation_id) gid
                                     : vec3<u32>, @builtin(num_workgroups) nwg
                                     : vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.total) {
        return;
    }
    let pn = t / params.dim;
    let d = t - pn * params.dim;
    let p = pn / params.count;
    let row = indices[pn - p * params.count];
    // A negative index compares as a huge u32, so one test covers both ends; so does a row
    // before this part's first, whose difference wraps.
    if (u32(row) >= params.rows) {
        if (params.first == 0u) {
            out[t] = T(0);
        }
        return;
    }
    let local = u32(row) - params.first;
    if (local >= params.part_rows) {
        return;  // another part's row
    }
    out[t] = weight[(p * params.part_rows + local) * params.dim + d];
}
