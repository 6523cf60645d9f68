// Layer norm and group norm: normalise each row of `row_len` contiguous elements by its mean
// and biased variance, then scale and shift per element (layer norm) or per channel (group
// norm). One workgroup per row; the mean, then the variance of (x - mean) (two passes: no
// cancellation), are tree reductions in workgroup memory (any power-of-two WG, no subgroup
// operations). mean and rstd = 1 / sqrt(var + eps) are written per row.
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

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<storage, read_write> mean_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> rstd_out: array<f32>;
@group(0) @binding(6) var<uniform> params: Params;

override WG: u32 = 256;
override HAS_WEIGHT: bool = false;
override HAS_BIAS: bool = false;

var<workgroup> part: array<f32, WG>;

// The sum of every invocation's `v`, in all of them.
fn workgroup_sum(v: f32, lid: u32) -> f32 {
    part[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid < s) {
            part[lid] += part[lid + s];
        }
        workgroupBarrier();
    }
    let total = part[0];
    workgroupBarrier();  // everyone has read part[0] before it is reused
    return total;
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let row = wid.x + wid.y * nwg.x;  // uniform across the workgroup
    if (row >= params.rows) {
        return;
    }
    let n = params.row_len;
    let base = row * n;
    var s = 0.0;
    for (var k = lid.x; k < n; k += WG) {
        s += x[base + k];
    }
    let mean = workgroup_sum(s, lid.x) / f32(n);
    var q = 0.0;
    for (var k = lid.x; k < n; k += WG) {
        let d = x[base + k] - mean;
        q += d * d;
    }
    let variance = workgroup_sum(q, lid.x) / f32(n);
    let rstd = 1.0 / sqrt(variance + params.eps);
    let w0 = (row % params.groups) * params.per_group;
    for (var k = lid.x; k < n; k += WG) {
        var y = (x[base + k] - mean) * rstd;
        let c = w0 + k / params.hw;
        if (HAS_WEIGHT) {
            y *= weight[c];
        }
        if (HAS_BIAS) {
            y += bias[c];
        }
        out[base + k] = y;
    }
    if (lid.x == 0u) {
        mean_out[row] = mean;
        rstd_out[row] = rstd;
    }
}
