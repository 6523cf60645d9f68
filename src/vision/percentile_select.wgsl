// vision.percentiles, bookkeeping (one workgroup of 4 threads, thread t = order statistic t):
//   mode 0 (init):   prefix[t] = 0, rank[t] = wanted rank, histogram cleared;
//   mode 1 (choose): the digit at `shift` whose bin holds the remaining rank joins prefix[t];
//                    the rank drops by the counts below that bin; the histogram is cleared;
//   mode 2 (finish): out = {low, high}, each mixing its two order statistics linearly.
struct Params {
    mode: u32,
    shift: u32,
    _pad0: u32,
    _pad1: u32,
    rank: vec4<u32>,
    frac_low: f32,
    frac_high: f32,
    _pad2: f32,
    _pad3: f32,
}

@group(0) @binding(0) var<storage, read_write> histogram: array<u32>;  // [4][256]
@group(0) @binding(1) var<storage, read_write> state: array<u32>;      // prefix[4], rank[4]
@group(0) @binding(2) var<storage, read_write> out: array<f32>;        // [2]
@group(0) @binding(3) var<uniform> params: Params;

fn value_of(key: u32) -> f32 {
    return bitcast<f32>(select(~key, key & 0x7fffffffu, (key & 0x80000000u) != 0u));
}

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) t: u32) {
    if (params.mode == 0u) {
        state[t] = 0u;
        state[4u + t] = params.rank[t];
    } else if (params.mode == 1u) {
        var rank = state[4u + t];
        var below = 0u;
        for (var d = 0u; d < 256u; d++) {
            let c = histogram[t * 256u + d];
            if (rank < below + c) {
                state[t] |= d << params.shift;
                state[4u + t] = rank - below;
                break;
            }
            below += c;
        }
    } else {
        if (t == 0u) {
            let a = value_of(state[0]);
            let b = value_of(state[1]);
            let c = value_of(state[2]);
            let d = value_of(state[3]);
            out[0] = a + (b - a) * params.frac_low;
            out[1] = c + (d - c) * params.frac_high;
        }
        return;
    }
    for (var d = 0u; d < 256u; d++) {
        histogram[t * 256u + d] = 0u;
    }
}
