// Layer norm and group norm: normalise each row of `row_len` contiguous elements by its mean
// and biased variance, then scale and shift per element (layer norm) or per channel (group
// norm). One workgroup per row; the mean, then the variance of (x - mean) (two passes: no
// cancellation), are workgroup reductions (any power-of-two WG). mean and rstd =
// 1 / sqrt(var + eps) are written per row.
// The C++ side prepends common/workgroup_reduce's prelude: `alias T` (the stored element type of
// every tensor, f32 or f16; arithmetic is f32 and each output is rounded once to T) and
// workgroup_sum (subgroup operations or a tree in workgroup memory).
struct Params {
    rows: u32,
    row_len: u32,
    groups: u32,   // rows cycle through the groups: group = row % groups
    per_group: u32,  // weight entries per group (channels per group; 0 for layer norm)
    hw: u32,       // elements per weight entry within a row (1 for layer norm)
    eps: f32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read> weight: array<T>;
@group(0) @binding(2) var<storage, read> bias: array<T>;
@group(0) @binding(3) var<storage, read_write> out: array<T>;
@group(0) @binding(4) var<storage, read_write> mean_out: array<T>;
@group(0) @binding(5) var<storage, read_write> rstd_out: array<T>;
@group(0) @binding(6) var<uniform> params: Params;

override WG: u32 = 256;
override HAS_WEIGHT: bool = false;
override HAS_BIAS: bool = false;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        ids: ReduceIds) {
    let row = wid.x + wid.y * nwg.x;  // uniform across the workgroup
    if (row >= params.rows) {
        return;
    }
    let lid = ids.lid;
    let n = params.row_len;
    let base = row * n;
    var s = 0.0;
    for (var k = lid; k < n; k += WG) {
        s += f32(x[base + k]);
    }
    let mean = workgroup_sum(s, ids) / f32(n);
    var q = 0.0;
    for (var k = lid; k < n; k += WG) {
        let d = f32(x[base + k]) - mean;
        q += d * d;
    }
    let variance = workgroup_sum(q, ids) / f32(n);
    let rstd = 1.0 / sqrt(variance + params.eps);
    let w0 = (row % params.groups) * params.per_group;
    for (var k = lid; k < n; k += WG) {
        var y = (f32(x[base + k]) - mean) * rstd;
        let c = w0 + k / params.hw;
        if (HAS_WEIGHT) {
            y *= f32(weight[c]);
        }
        if (HAS_BIAS) {
            y += f32(bias[c]);
        }
        out[base + k] = T(y);
    }
    if (lid == 0u) {
        mean_out[row] = T(mean);
        rstd_out[row] = T(rstd);
    }
}
