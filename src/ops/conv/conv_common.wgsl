// Bindings and epilogue shared by the direct and depthwise convolution kernels (prepended to
// each, after conv_params.wgsl). Tensors are NCHW; a 1-D convolution arrives as H = 1.

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
