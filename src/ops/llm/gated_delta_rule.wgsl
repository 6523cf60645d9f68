// The gated delta rule of a DeltaNet layer, for one (batch, head) state S [K, V] per head:
// at each step t, S = decay_t * S; S += k_t (x) beta_t * (v_t - k_t . S); out_t = q_t . S.
// Column j of S only ever meets column j of the values, so one invocation owns one column of
// one head and walks the whole sequence alone: no barriers, and the state column is read and
// written in place in final_state (first copied from initial_state).
struct Params {
    batch_heads: u32,  // B * H
    seq: u32,          // T
    key_dim: u32,      // K
    value_dim: u32,    // V
    channelwise: u32,  // 1: decay [B, H, T, K] (one factor per state row); 0: [B, H, T]
    total: u32,        // B * H * V invocations
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> query: array<f32>;
@group(0) @binding(1) var<storage, read> key: array<f32>;
@group(0) @binding(2) var<storage, read> value: array<f32>;
@group(0) @binding(3) var<storage, read> decay: array<f32>;
@group(0) @binding(4) var<storage, read> beta: array<f32>;
@group(0) @binding(5) var<storage, read> initial_state: array<f32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;
@group(0) @binding(7) var<storage, read_write> final_state: array<f32>;
@group(0) @binding(8) var<uniform> params: Params;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t_id = gid.x + gid.y * nwg.x * WG;
    if (t_id >= params.total) {
        return;
    }
    let K = params.key_dim;
    let V = params.value_dim;
    let j = t_id % V;
    let bh = t_id / V;
    let state = bh * K * V + j;  // S[0][j]; row i is at state + i * V
    for (var i = 0u; i < K; i++) {
        final_state[state + i * V] = initial_state[state + i * V];
    }
    for (var t = 0u; t < params.seq; t++) {
        let row = bh * params.seq + t;  // index of (b, h, t) in [B, H, T]
        let qk = row * K;
        var factor = decay[row];
        // Decay the column and read what the state already holds for this key.
        var held = 0.0;
        for (var i = 0u; i < K; i++) {
            if (params.channelwise == 1u) {
                factor = decay[qk + i];
            }
            let s = final_state[state + i * V] * factor;
            final_state[state + i * V] = s;
            held += s * key[qk + i];
        }
        let delta = (value[row * V + j] - held) * beta[row];
        var o = 0.0;
        for (var i = 0u; i < K; i++) {
            let s = final_state[state + i * V] + key[qk + i] * delta;
            final_state[state + i * V] = s;
            o += s * query[qk + i];
        }
        out[row * V + j] = o;
    }
}
