// Rotary position embeddings in the three layouts ExecuTorch's Vulkan backend emits; one
// invocation per output element (each reads its own element, its pair's, one cos and one sin).
// x is contiguous [..., S, H, row]; an element's position s picks freqs row `first_row() + s`.
//   MODE 0 (Llama): pairs (2i, 2i + 1), cos and sin [S, row / 2] at column i;
//   MODE 1 (HF rotate_half): pairs (i, i + rot / 2) for i < rot / 2, cos and sin [P, rot] at
//     the element's own column; elements from `rot` on are copied (partial rotation);
//   MODE 2 (EdgeTAM, complex pairs): pairs (2i, 2i + 1), one freqs tensor [S, row] holding
//     (cos, sin) of pair i at columns 2i and 2i + 1, bound as both cos and sin.
// The C++ side prepends `alias S` (the element type as stored, f32 or f16; arithmetic in f32).
struct Params {
    total: u32,     // elements of x
    row: u32,       // elements per head row (Dh)
    heads: u32,     // head rows per position
    seq: u32,       // positions
    rot: u32,       // rotated elements at the start of each row
    freq_row: u32,  // elements per row of the freqs tensors
    start: u32,     // freqs row of position 0, unless start_slot names a live integer
    start_slot: u32,
    positions: u32, // rows of the freqs tensors
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<S>;
@group(0) @binding(1) var<storage, read> freqs_cos: array<S>;
@group(0) @binding(2) var<storage, read> freqs_sin: array<S>;
@group(0) @binding(3) var<storage, read_write> out: array<S>;
@group(0) @binding(4) var<uniform> params: Params;
@group(0) @binding(5) var<storage, read> live_ints: array<i32>;

// The freqs row of position 0: the live integer at start_slot when there is one (an LLM's cache
// position, changing every step without recording again), else `start`; kept inside the
// tables whatever the value (the host checks it before each run).
fn first_row() -> u32 {
    var p = params.start;
    if (params.start_slot != 0xffffffffu) {
        p = u32(max(live_ints[params.start_slot], 0));
    }
    return min(p, params.positions - params.seq);
}

override WG: u32 = 128;
override MODE: u32 = 0u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.total) {
        return;
    }
    let d = t % params.row;
    let s = (t / (params.row * params.heads)) % params.seq;
    let f = (first_row() + s) * params.freq_row;
    if (d >= params.rot) {
        out[t] = x[t];
        return;
    }
    var y: f32;
    if (MODE == 1u) {
        let h = params.rot / 2u;
        let c = f32(freqs_cos[f + d]);
        let sn = f32(freqs_sin[f + d]);
        if (d < h) {
            y = f32(x[t]) * c - f32(x[t + h]) * sn;
        } else {
            y = f32(x[t]) * c + f32(x[t - h]) * sn;
        }
    } else {
        let odd = d & 1u;
        let x0 = f32(x[t - odd]);
        let x1 = f32(x[t - odd + 1u]);
        var c: f32;
        var sn: f32;
        if (MODE == 0u) {
            c = f32(freqs_cos[f + d / 2u]);
            sn = f32(freqs_sin[f + d / 2u]);
        } else {
            c = f32(freqs_cos[f + d - odd]);
            sn = f32(freqs_sin[f + d - odd + 1u]);
        }
        y = select(x0 * c - x1 * sn, x0 * sn + x1 * c, odd == 1u);
    }
    out[t] = S(y);
}
