// Embedding lookup: out[n, d] = weight[indices[n], d] for the flattened indices n and the D
// columns of each weight row; one invocation per output element. An index outside [0, V) gives
// a row of zeros (see embedding.cpp for why zeros rather than a clamped row).
// The C++ side prepends `alias T` (the weight's and out's element type as stored).
struct Params {
    total: u32,  // elements of out: N * D
    dim: u32,    // D
    rows: u32,   // V
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> weight: array<T>;
@group(0) @binding(1) var<storage, read> indices: array<i32>;  // int64 is stored as int32
@group(0) @binding(2) var<storage, read_write> out: array<T>;
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 128;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.total) {
        return;
    }
    let n = t / params.dim;
    let d = t - n * params.dim;
    let row = indices[n];
    var y = T(0);
    // A negative index compares as a huge u32, so one test covers both ends.
    if (u32(row) < params.rows) {
        y = weight[u32(row) * params.dim + d];
    }
    out[t] = y;
}
