// The optional extra outputs of inference batch norm, when a graph gives them room:
// save_mean = running_mean and save_invstd = 1 / sqrt(running_var + eps), per channel. The C++
// side prepends `alias T` (f32 or f16); arithmetic is f32, rounded once on store.
struct Params {
    channels: u32,
    eps: f32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> running_mean: array<T>;
@group(0) @binding(1) var<storage, read> running_var: array<T>;
@group(0) @binding(2) var<storage, read_write> save_mean: array<T>;
@group(0) @binding(3) var<storage, read_write> save_invstd: array<T>;
@group(0) @binding(4) var<uniform> params: Params;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = gid.x + gid.y * nwg.x * WG;
    if (c >= params.channels) {
        return;
    }
    save_mean[c] = running_mean[c];
    save_invstd[c] = T(1.0 / sqrt(f32(running_var[c]) + params.eps));
}
