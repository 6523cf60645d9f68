// Bindings, parameters and epilogue shared by the convolution kernels (prepended to each).
// Tensors are NCHW; a 1-D convolution arrives as H = 1. Mirrors ConvParams in conv2d.h.
struct Params {
    N: u32, C_in: u32, H_in: u32, W_in: u32,
    C_out: u32, H_out: u32, W_out: u32, groups: u32,
    kH: u32, kW: u32, stride_h: u32, stride_w: u32,
    pad_h: u32, pad_w: u32, dil_h: u32, dil_w: u32,
    cin_g: u32, cout_g: u32,      // channels per group
    co_blocks: u32, x_blocks: u32,  // ceil(cout_g / 4), ceil(W_out / 4)
    threads: u32,
    flags: u32,
    out_min: f32,
    out_max: f32,
}

const HAS_BIAS = 1u;
const HAS_MIN = 2u;
const HAS_MAX = 4u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;  // the weight when there is none
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

// Bias, then the fused clamp (max first, so min > max yields max, as torch.clamp).
fn epilogue(acc: f32, co: u32) -> f32 {
    var v = acc;
    if ((params.flags & HAS_BIAS) != 0u) {
        v += bias[co];
    }
    if ((params.flags & HAS_MIN) != 0u) {
        v = max(v, params.out_min);
    }
    if ((params.flags & HAS_MAX) != 0u) {
        v = min(v, params.out_max);
    }
    return v;
}
