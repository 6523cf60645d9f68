// The B operand of a convolution run as an implicit GEMM (gemm.wgsl, in the variants that
// gemm_kernel.cpp makes for GemmShapeFlags::conv_kh / conv_kw): B is the unfolded input that
// im2col.wgsl would write to a scratch,
//   B[k][p] = x[z, ci, oy * stride_h + kh * dil_h - pad_h, ox * stride_w + kw * dil_w - pad_w]
// (zero outside the image), k = (ci * KH + kh) * KW + kw, p = oy * W_out + ox, but each element
// is gathered from the input (binding 1, one image per batch z: b_batch_stride = C_in * H_in *
// W_in) where the tile loads fetch it, so the unfold's write and re-read of K * HW elements per
// image and its dispatch disappear.
//
// The index arithmetic, which runs in the K loop next to the FMAs, avoids division by runtime
// values (tens of instructions each on GPUs):
// - A column p's (oy, ox) needs a division by W_out, a runtime value. It depends only on the
//   column, and the columns an invocation loads stay the same through the whole K loop (its slot
//   in the tile), so conv_columns runs once per slot before the loop (gemm_kernel.cpp emits those
//   calls with the accumulators and passes the result to every conv_gather of that slot).
// - k splits into (ci, kh, kw) on every fetch, but by KH * KW and KW, which are constants of the
//   variant's text (KH, KW, prepended by gemm_kernel.cpp), so the compiler turns them into
//   multiplications and shifts. A new kernel size is a new pipeline; networks use a handful.
// What is left per fetch is one constant division pair, and per lane a few adds, two compares and
// a load.
// The geometry is a second uniform (binding 6) rather than fields of gemm_params.wgsl's Params:
// the other GEMM kernels (and gemv, split-K reduce) share that struct and keep their text.

struct ConvGeometry {  // mirrored by GemmConvGeometry (gemm.h)
    H_in: u32,
    W_in: u32,
    plane: u32,  // H_in * W_in
    W_out: u32,
    stride_h: u32,
    stride_w: u32,
    pad_h: u32,
    pad_w: u32,
    dil_h: u32,
    dil_w: u32,
    kH: u32,  // = KH, KW (the divisions use the constants)
    kW: u32,
}

@group(0) @binding(6) var<uniform> conv: ConvGeometry;

const TAPS = KH * KW;
// The input row given to columns past N: far enough outside the image that every tap of the
// window still is, so those lanes read zero without a test of their own.
const OUTSIDE_ROW = -1073741824;

// Where the windows of columns n..n+3 start: the input row and column of tap (0, 0) per lane.
struct ConvColumns {
    iy: vec4<i32>,
    ix: vec4<i32>,
}

// (row, column) of tap (0, 0) for output column p.
fn conv_origin(p: u32) -> vec2<i32> {
    if (p >= params.N) {
        return vec2<i32>(OUTSIDE_ROW, 0);
    }
    let oy = p / conv.W_out;
    let ox = p - oy * conv.W_out;
    return vec2<i32>(i32(oy * conv.stride_h) - i32(conv.pad_h),
                     i32(ox * conv.stride_w) - i32(conv.pad_w));
}

fn conv_columns(n: u32) -> ConvColumns {
    let o0 = conv_origin(n);
    let o1 = conv_origin(n + 1u);
    let o2 = conv_origin(n + 2u);
    let o3 = conv_origin(n + 3u);
    return ConvColumns(vec4<i32>(o0.x, o1.x, o2.x, o3.x), vec4<i32>(o0.y, o1.y, o2.y, o3.y));
}

// B[k][n..n+3] of the image at `base`, for the columns `c` describes; zero past the K range.
fn conv_gather(base: u32, c: ConvColumns, k: u32) -> vec4<f32> {
    var v = vec4<f32>(0.0);
    if (k >= k_end) {
        return v;
    }
    let ci = k / TAPS;
    let tap = k - ci * TAPS;
    let kh = tap / KW;
    let kw = tap - kh * KW;
    let iy = c.iy + vec4<i32>(i32(kh * conv.dil_h));
    let ix = c.ix + vec4<i32>(i32(kw * conv.dil_w));
    // A negative coordinate wraps to a large unsigned one: one compare per bound.
    let inside = (vec4<u32>(iy) < vec4<u32>(conv.H_in)) & (vec4<u32>(ix) < vec4<u32>(conv.W_in));
    let at = vec4<u32>(iy * i32(conv.W_in) + ix) + vec4<u32>(base + ci * conv.plane);
    if (inside.x) {
        v.x = f32(B[at.x]);
    }
    if (inside.y) {
        v.y = f32(B[at.y]);
    }
    if (inside.z) {
        v.z = f32(B[at.z]);
    }
    if (inside.w) {
        v.w = f32(B[at.w]);
    }
    return v;
}
