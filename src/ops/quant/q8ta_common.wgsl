// Helpers of the q8ta kernels: int8 values packed four a word, element e in bits 8 * (e % 4).

// Lane `lane` of `word`, sign-extended.
fn int8_lane(word: u32, lane: u32) -> i32 {
    return bitcast<i32>(word << (24u - 8u * lane)) >> 24u;
}

// quantize_per_tensor's int8: clamp(round(y * inv_scale) + zero_point), round half to even,
// as the byte of a word.
fn quantize_int8(y: f32, inv_scale: f32, zero_point: f32) -> u32 {
    let q = clamp(round(y * inv_scale) + zero_point, -128.0, 127.0);
    return bitcast<u32>(i32(q)) & 0xffu;
}
