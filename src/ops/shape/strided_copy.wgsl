// Strided copy of any element type, moved as raw bits: for each point c of an iteration space
// of up to 8 dims, dst[dst_base + sum c[d] * dst_strides[d]] = src[src_base + sum s[d] *
// src_strides[d]], where the source coordinate s[d] is c[d] (MODE 0), (c[d] + src_lo[d]) %
// src_sizes[d] (MODE 1: repeat, and roll with src_lo its offset) or c[d] - src_lo[d] (MODE 2 and 3, padding: outside [0, src_sizes[d]) the
// point takes the fill value (2) or keeps what dst holds (3)).
//
// Types narrower than 32 bits are packed LANES to a word. Then one invocation owns one whole
// dst word (so no two invocations write the same word), the iteration space is dst itself
// (contiguous) and dst_base is the first word to write.
struct Params {
    numel: u32,    // points of the iteration space
    threads: u32,  // invocations: numel, or dst words when LANES > 1
    src_base: i32,
    dst_base: u32,
    fill: u32,     // MODE 2: bits of the fill value (low bits when LANES > 1)
    live_slot: u32,    // a start read from live_ints (0xffffffff: none)
    live_stride: u32,  // source elements per unit of it
    live_max: u32,     // its largest value that stays inside the source
    sizes: array<vec4<u32>, 2>,        // iteration space, outer to inner (first RANK used)
    src_strides: array<vec4<i32>, 2>,  // may be negative (flip) or 0 (expand)
    dst_strides: array<vec4<u32>, 2>,
    src_sizes: array<vec4<u32>, 2>,    // MODE 1: modulus; MODE 2/3: source extent
    src_lo: array<vec4<i32>, 2>,       // MODE 2/3: padding before the source
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;
@group(0) @binding(3) var<storage, read> live_ints: array<i32>;

override WG: u32 = 256;
override RANK: u32 = 8;
override MODE: u32 = 0;
override LANES: u32 = 1;

// x: source element (-1 inside the padding), y: dst element.
fn locate(e: u32) -> vec2<i32> {
    var rest = e;
    var inside = true;
    var s = params.src_base;
    if (params.live_slot != 0xffffffffu) {
        let start = min(u32(max(live_ints[params.live_slot], 0)), params.live_max);
        s += i32(start * params.live_stride);
    }
    var t = params.dst_base;
    for (var k = 0u; k < RANK; k++) {
        let d = RANK - 1u - k;
        let size = params.sizes[d / 4u][d % 4u];
        let c = rest % size;
        rest = rest / size;
        t += c * params.dst_strides[d / 4u][d % 4u];
        var sc = i32(c);
        if (MODE == 1u) {
            sc = i32((c + u32(params.src_lo[d / 4u][d % 4u])) % params.src_sizes[d / 4u][d % 4u]);
        } else if (MODE >= 2u) {
            sc -= params.src_lo[d / 4u][d % 4u];
            inside = inside && sc >= 0 && sc < i32(params.src_sizes[d / 4u][d % 4u]);
        }
        s += sc * params.src_strides[d / 4u][d % 4u];
    }
    return vec2<i32>(select(-1, s, inside), i32(t));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * WG;
    if (t >= params.threads) {
        return;
    }
    if (LANES == 1u) {
        let at = locate(t);
        if (at.x >= 0) {
            dst[at.y] = src[at.x];
        } else if (MODE == 2u) {
            dst[at.y] = params.fill;
        }
        return;
    }
    let bits = 32u / LANES;
    let w = params.dst_base + t;
    var word = dst[w];  // lanes past the end or kept (MODE 3) stay as they are
    for (var lane = 0u; lane < LANES; lane++) {
        let e = w * LANES + lane;
        if (e >= params.numel) {
            break;
        }
        let s = locate(e).x;
        if (s >= 0) {
            let su = u32(s);
            word = insertBits(word, extractBits(src[su / LANES], (su % LANES) * bits, bits),
                              lane * bits, bits);
        } else if (MODE == 2u) {
            word = insertBits(word, params.fill, lane * bits, bits);
        }
    }
    dst[w] = word;
}
