// Shared machinery of broadcasting elementwise binary ops (add, mul, ...): validation, the
// uniform struct mirrored from binary.wgsl, variant choice and dispatch.
#pragma once

#include <cstdint>
#include <string_view>

#include "wgx/op.h"

namespace wgx::ops {

struct BinaryParams {
    uint32_t numel;
    float alpha;
    uint32_t rank;  // trailing dims of out_sizes in use (after coalesce_dims)
    uint32_t pad1;
    uint32_t out_sizes[8];
    uint32_t a_strides[8];
    uint32_t b_strides[8];
};
static_assert(sizeof(BinaryParams) == 112);
static_assert(offsetof(BinaryParams, out_sizes) == 16);
static_assert(offsetof(BinaryParams, a_strides) == 48);
static_assert(offsetof(BinaryParams, b_strides) == 80);

struct BinarySpec {
    std::string_view op;  // op name for labels and messages
    // WGSL body of `fn apply(x: T, y: T) -> T`, e.g. "return x * y;". T is the compute type:
    // f32 for float32 and float16 tensors, i32 for int32.
    std::string_view apply;
    bool float_only = false;
    bool modulo = false;  // `apply` calls fmod_t / remainder_t (modulo.h)
};

// Records out = apply(a, b) with broadcasting (float16 needs the device's shader-f16). `alpha` is
// visible to `apply` as params.alpha.
void record_binary(Recorder& rec, const BinarySpec& spec, const Tensor& a, const Tensor& b,
                   const Tensor& out, float alpha, const Args& args);

}  // namespace wgx::ops
