// Shared machinery of elementwise unary ops (relu, sigmoid, gelu, clamp, ...): validation, the
// uniform struct mirrored from unary.wgsl, and dispatch. Each op file supplies the WGSL body of
// `fn apply(x: T) -> T` and its scalars. T is the compute type: f32 for float32 and float16
// tensors (float16 is widened on load and rounded once on store), i32 for int32.
#pragma once

#include <cstdint>
#include <string_view>

#include "ops/builtin_op.h"

namespace wgx::ops {

struct UnaryParams {
    uint32_t numel;
    float p0;
    float p1;
    uint32_t pad;
};
static_assert(sizeof(UnaryParams) == 16);

struct UnarySpec {
    std::string_view op;     // op name for labels and messages
    std::string_view apply;  // WGSL body of `fn apply(x: T) -> T`
    bool float_only = true;  // false: also int32 (and int64 stored as int32)
    bool modulo = false;     // `apply` calls fmod_t / remainder_t (modulo.h)
};

// Records out = apply(x) elementwise; x and out must have the same dtype and shape. Float16
// needs the device's shader-f16.
void record_unary(Recorder& rec, const UnarySpec& spec, const Tensor& x, const Tensor& out,
                  const Args& args, float p0 = 0.f, float p1 = 0.f);

// The common case: args [self, out].
class SimpleUnaryOp : public BuiltinOp {
  public:
    constexpr SimpleUnaryOp(UnarySpec spec) : spec_(spec) {}
    std::string_view name() const override { return spec_.op; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override;

  private:
    UnarySpec spec_;
};

}  // namespace wgx::ops
