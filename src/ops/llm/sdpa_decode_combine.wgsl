// Attention of few query rows over a KV cache, second pass: the partial results of the live
// splits of sdpa_decode_split.wgsl rescaled to their common max and summed. Workgroup
// (h, 0, row = b * S + s); each invocation writes the output columns lid, lid + WG, ...
// The C++ side prepends `alias T` (the output's type) and sdpa_decode_common.wgsl, and sets
// `override WG`.

@group(0) @binding(0) var<storage, read> partial: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<T>;  // [B, S, Hq, D]
@group(0) @binding(2) var<uniform> params: Params;
@group(0) @binding(3) var<storage, read> live_ints: array<i32>;

override WG: u32 = 128;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let h = wid.x;
    let row = wid.z;
    let dim = params.dim;
    let live = live_splits(keys_of_row(row % params.seq));
    var top = NEG_MAX;
    for (var sp = 0u; sp < live; sp++) {
        top = max(top, partial[partial_base(row, h, sp) + dim]);
    }
    var total = 0.0;
    for (var sp = 0u; sp < live; sp++) {
        let base = partial_base(row, h, sp);
        total += partial[base + dim + 1u] * exp(partial[base + dim] - top);
    }
    let inv = 1.0 / total;
    let out_base = (row * params.heads + h) * dim;
    for (var c = lid; c < dim; c += WG) {
        var sum = 0.0;
        for (var sp = 0u; sp < live; sp++) {
            let base = partial_base(row, h, sp);
            sum += partial[base + c] * exp(partial[base + dim] - top);
        }
        out[out_base + c] = T(sum * inv);
    }
}
