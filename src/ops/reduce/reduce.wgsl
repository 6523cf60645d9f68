// Reduction of any set of dims: output element o reads the input at
// keep_offset(o) + red_offset(r) for r < count, where both offsets decompose an index over
// (sizes, strides) lists, so the reduced dims need not be last nor contiguous.
// The op's C++ file prepends `alias A` (the accumulator: f32 or i32), the input binding with
// `fn load(i: u32) -> A`, `fn is_nan(v: A) -> bool`, and the output binding with
// `fn store(o: u32, v: A, index: u32)`.
//
// PER_THREAD: one invocation per output walks its `count` elements in order (many short or
// strided rows: neighbouring invocations read neighbouring addresses). Otherwise one workgroup
// per output: each invocation walks r = lid, lid + WG, ... and a tree in workgroup memory
// combines the partials (any power-of-two WG; no subgroup operations).
struct Params {
    outputs: u32,
    count: u32,
    scale: f32,  // MEAN: 1 / count
    _pad: u32,
    keep_sizes: array<vec4<u32>, 2>,  // kept dims, outer to inner (first KEEP_RANK used)
    keep_strides: array<vec4<u32>, 2>,
    red_sizes: array<vec4<u32>, 2>,   // reduced dims, outer to inner (first RED_RANK used)
    red_strides: array<vec4<u32>, 2>,
}

@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 256;
override OP: u32 = 0;  // 0 sum, 1 mean, 2 max, 3 min, 4 argmax, 5 argmin
override KEEP_RANK: u32 = 1;
override RED_RANK: u32 = 1;
override PER_THREAD: bool = false;

const NONE = 0xffffffffu;  // index of an empty partial

var<workgroup> part_v: array<A, WG>;
var<workgroup> part_i: array<u32, WG>;

fn keep_offset(o: u32) -> u32 {
    var rest = o;
    var off = 0u;
    for (var k = 0u; k < KEEP_RANK; k++) {
        let d = KEEP_RANK - 1u - k;
        let size = params.keep_sizes[d / 4u][d % 4u];
        off += (rest % size) * params.keep_strides[d / 4u][d % 4u];
        rest = rest / size;
    }
    return off;
}

fn red_offset(r: u32) -> u32 {
    var rest = r;
    var off = 0u;
    for (var k = 0u; k < RED_RANK; k++) {
        let d = RED_RANK - 1u - k;
        let size = params.red_sizes[d / 4u][d % 4u];
        off += (rest % size) * params.red_strides[d / 4u][d % 4u];
        rest = rest / size;
    }
    return off;
}

fn is_sum() -> bool {
    return OP <= 1u;
}

// Whether (v, i) should replace (w, j) for max/min/argmax/argmin: NaN beats numbers (PyTorch
// propagates it), and ties go to the lower index (PyTorch returns the first).
fn wins(v: A, i: u32, w: A, j: u32) -> bool {
    if (i == NONE) {
        return false;
    }
    if (j == NONE) {
        return true;
    }
    let vn = is_nan(v);
    let wn = is_nan(w);
    if (vn != wn) {
        return vn;
    }
    if (vn || v == w) {
        return i < j;
    }
    if (OP == 2u || OP == 4u) {
        return v > w;
    }
    return v < w;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    if (PER_THREAD) {
        let o = gid.x + gid.y * nwg.x * WG;
        if (o < params.outputs) {
            let base = keep_offset(o);
            var acc = A(0);
            var idx = NONE;
            for (var r = 0u; r < params.count; r++) {
                let v = load(base + red_offset(r));
                if (is_sum()) {
                    acc += v;
                } else if (wins(v, r, acc, idx)) {
                    acc = v;
                    idx = r;
                }
            }
            store(o, acc, idx);
        }
        return;
    }

    let o = wid.x + wid.y * nwg.x;  // uniform across the workgroup
    if (o >= params.outputs) {
        return;
    }
    let base = keep_offset(o);
    var acc = A(0);
    var idx = NONE;
    for (var r = lid.x; r < params.count; r += WG) {
        let v = load(base + red_offset(r));
        if (is_sum()) {
            acc += v;
        } else if (wins(v, r, acc, idx)) {
            acc = v;
            idx = r;
        }
    }
    part_v[lid.x] = acc;
    part_i[lid.x] = idx;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid.x < s) {
            let v = part_v[lid.x + s];
            let i = part_i[lid.x + s];
            if (is_sum()) {
                part_v[lid.x] += v;
            } else if (wins(v, i, part_v[lid.x], part_i[lid.x])) {
                part_v[lid.x] = v;
                part_i[lid.x] = i;
            }
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        store(o, part_v[0], part_i[0]);
    }
}
