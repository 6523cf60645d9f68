// Inference batch norm: out = (x - running_mean[c]) / sqrt(running_var[c] + eps) * weight[c]
// + bias[c], with c the dim-1 index of a contiguous [N, C, *] input. The C++ side prepends
// `alias T` (every tensor's element type, f32 or f16); arithmetic is f32, rounded once on store.
struct Params {
    numel: u32,
    channels: u32,
    inner: u32,  // elements per channel within one sample (product of dims after C)
    eps: f32,
}

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read> weight: array<T>;
@group(0) @binding(2) var<storage, read> bias: array<T>;
@group(0) @binding(3) var<storage, read> running_mean: array<T>;
@group(0) @binding(4) var<storage, read> running_var: array<T>;
@group(0) @binding(5) var<storage, read_write> out: array<T>;
@group(0) @binding(6) var<uniform> params: Params;

override WG: u32 = 256;
override HAS_WEIGHT: bool = false;
override HAS_BIAS: bool = false;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG;
    if (i >= params.numel) {
        return;
    }
    let c = (i / params.inner) % params.channels;
    var scale = 1.0 / sqrt(f32(running_var[c]) + params.eps);
    if (HAS_WEIGHT) {
        scale *= f32(weight[c]);
    }
    var y = (f32(x[i]) - f32(running_mean[c])) * scale;
    if (HAS_BIAS) {
        y += f32(bias[c]);
    }
    out[i] = T(y);
}
