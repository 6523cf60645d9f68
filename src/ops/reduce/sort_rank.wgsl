// Sort and top-k along one dim by rank: one invocation per input element counts the elements of
// its line that come before it (ascending or descending; ties keep their order, so the sort is
// stable; NaN is larger than every number, as in PyTorch) and, when its rank is below k, writes
// itself and its index there. O(n) per element, n^2 per line: for the lines models sort (a few
// thousand elements at most). The op prepends `alias S` (stored) and `alias T` (compared).
struct Params {
    lines: u32,
    n: u32,
    inner: u32,
    k: u32,
    descending: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<S>;
@group(0) @binding(1) var<storage, read_write> values: array<S>;
@group(0) @binding(2) var<storage, read_write> indices: array<i32>;  // int64 stored as int32
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 128;

// By the bits, which a compiler may not assume away (as it may `v != v`); integers never are.
fn nan(v: T) -> bool {
    return (bitcast<u32>(f32(v)) & 0x7fffffffu) > 0x7f800000u;
}

// Whether a comes after b in ascending order (NaN last).
fn greater(a: T, b: T) -> bool {
    return (nan(a) && !nan(b)) || a > b;
}

fn same(a: T, b: T) -> bool {
    return a == b || (nan(a) && nan(b));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.lines * params.n) {
        return;
    }
    let line = t / params.n;
    let i = t % params.n;
    let o = line / params.inner;
    let c = line % params.inner;
    let base = o * params.n * params.inner + c;
    let xi = T(x[base + i * params.inner]);
    var rank = 0u;
    for (var j = 0u; j < params.n; j++) {
        let xj = T(x[base + j * params.inner]);
        var before: bool;
        if (params.descending != 0u) {
            before = greater(xj, xi);
        } else {
            before = greater(xi, xj);
        }
        if (before || (j < i && same(xj, xi))) {
            rank++;
        }
    }
    if (rank < params.k) {
        let at = o * params.k * params.inner + rank * params.inner + c;
        values[at] = S(xi);
        indices[at] = i32(i);
    }
}
