// The uniform of the GEMM family's kernels (gemm.wgsl, gemv.wgsl, gemm_splitk_reduce.wgsl),
// mirrored by GemmUniform in gemm.h; prepended to each kernel's text.
struct Params {
    M: u32,
    N: u32,
    K: u32,
    batch: u32,
    a_batch_stride: u32,  // elements between batches (0: shared operand)
    b_batch_stride: u32,
    c_batch_stride: u32,
    bias_batch_stride: u32,
    bias_row_stride: u32,
    bias_col_stride: u32,
    alpha: f32,
    beta: f32,
    k_chunk: u32,  // split K: the K range of one chunk
    splits: u32,   // split K: chunks per batch
    out_min: f32,  // clamp epilogue
    out_max: f32,
    c_row_stride: u32,  // elements between rows of C and of the residual: N, or more for a
                        // part of a wider C (a weight bound in parts)
}

