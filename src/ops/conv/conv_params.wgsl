// The uniform of the convolution kernels (conv_common.wgsl's direct and depthwise kernels,
// im2col.wgsl), prepended to each. Mirrors ConvParams in conv2d.h.
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
