// Bindings and epilogue shared by the direct and depthwise convolution kernels (prepended to
// each, after conv_params.wgsl). Tensors are NCHW; a 1-D convolution arrives as H = 1.
// Elements are stored as S (f32, or f16 with "enable f16;", prepended by conv2d.cpp) and read
// as f32: the sums and the epilogue are f32, and an f16 result is rounded once, on the store.

const HAS_BIAS = 1u;
const HAS_MIN = 2u;
const HAS_MAX = 4u;

// A residual of out's layout added after the bias (wgx.conv_add_clamp); a pipeline constant, so
// kernels without one compile without the branch.
override HAS_RESIDUAL: bool = false;

@group(0) @binding(0) var<storage, read> x: array<S>;
@group(0) @binding(1) var<storage, read> w: array<S>;
@group(0) @binding(2) var<storage, read> bias: array<S>;  // the weight when there is none
@group(0) @binding(3) var<storage, read_write> out: array<S>;
@group(0) @binding(4) var<uniform> params: Params;
@group(0) @binding(5) var<storage, read> residual: array<S>;  // the input when there is none

// Bias, the fused activation (wgx.conv_activation: conv2d.cpp writes it into the marker line
// below, empty otherwise), the residual at out's index `at`, then the fused clamp (max first, so
// min > max yields max, as torch.clamp).
fn epilogue(acc: f32, co: u32, at: u32) -> f32 {
    var v = acc;
    if ((params.flags & HAS_BIAS) != 0u) {
        v += f32(bias[co]);
    }
//@ACTIVATE
    if (HAS_RESIDUAL) {
        v += f32(residual[at]);
    }
    if ((params.flags & HAS_MIN) != 0u) {
        v = max(v, params.out_min);
    }
    if ((params.flags & HAS_MAX) != 0u) {
        v = min(v, params.out_max);
    }
    return v;
}

// Writes the columns ox..ox+3 (those inside the row) of one output row starting at out_row, of
// channel co, with the epilogue applied (the depthwise kernels).
fn store_columns(out_row: u32, ox: u32, acc: vec4<f32>, co: u32) {
    for (var j = 0u; j < 4u; j++) {
        if (ox + j < params.W_out) {
            let at = out_row + ox + j;
            out[at] = S(epilogue(acc[j], co, at));
        }
    }
}
