// RMS norm: y = x / sqrt(mean(x^2) + eps) * weight over each row of `row_len` contiguous
// elements (of x, or of the sum of two tensors: see load_x), weight indexed by the position in
// the row. One workgroup per row; the mean of the squares is a workgroup reduction.
// The C++ side prepends common/workgroup_reduce's prelude: `alias T` (the stored element type
// of every tensor, f32 or f16; arithmetic is f32 and each output is rounded once to T) and
// workgroup_sum.
struct Params {
    rows: u32,
    row_len: u32,
    eps: f32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read> weight: array<T>;
@group(0) @binding(2) var<storage, read_write> out: array<T>;
@group(0) @binding(3) var<uniform> params: Params;
// load_x(i): element i of the row as f32. The C++ side fills this line: x[i], or for
// wgx.add_rms_norm x[i] + addend[i] (bindings 4 and 5), rounded to T and stored into sum_out
// as the add it replaces would have stored it.
//@LOAD_X

override WG: u32 = 256;

// Elements of a row each invocation holds in registers: their loads (and the weight's) are
// issued together, and the row is read once. A decode step's norms are a row or two, so the
// time is memory round trips, not bandwidth: a loop of dependent-looking iterations measured
// 11.5 us a norm of 2048 on the H200. Rows longer than HELD * WG loop for the rest.
const HELD = 8u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        ids: ReduceIds) {
    let row = wid.x + wid.y * nwg.x;  // uniform across the workgroup
    if (row >= params.rows) {
        return;
    }
    let n = params.row_len;
    let base = row * n;
    var xs: array<f32, HELD>;
    var ws: array<f32, HELD>;
    for (var i = 0u; i < HELD; i++) {
        let k = ids.lid + i * WG;
        if (k < n) {
            xs[i] = load_x(base + k);
            ws[i] = f32(weight[k]);
        }
    }
    var q = 0.0;
    for (var i = 0u; i < HELD; i++) {
        q += xs[i] * xs[i];  // 0 past the row's end
    }
    for (var k = ids.lid + HELD * WG; k < n; k += WG) {
        let v = load_x(base + k);
        q += v * v;
    }
    let r = inverseSqrt(workgroup_sum(q, ids) / f32(n) + params.eps);
    for (var i = 0u; i < HELD; i++) {
        let k = ids.lid + i * WG;
        if (k < n) {
            out[base + k] = T(xs[i] * r * ws[i]);
        }
    }
    for (var k = ids.lid + HELD * WG; k < n; k += WG) {
        out[base + k] = T(load_x(base + k) * r * f32(weight[k]));  // stores the same sum again
    }
}
