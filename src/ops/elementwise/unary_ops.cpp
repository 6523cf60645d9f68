// The elementwise ops of one tensor, out = f(self). Args: [self, out]. One row per op: its graph
// name, the WGSL body of `fn apply(x: T) -> T` (T is f32 for float32 and float16 tensors, i32
// for int32; common/math.wgsl's helpers are in scope), and whether int32 is taken too.
#include "ops/elementwise/unary.h"
#include "ops/op_table.h"
#include "ops/registry.h"

namespace wgx::ops {
namespace {

constexpr bool kFloatOnly = true, kAlsoInt = false;

constexpr UnarySpec kUnaryOps[] = {
    {"aten.relu.default", "return max(x, T(0));", kAlsoInt},
    {"aten.sigmoid.default", "return sigmoid(x);", kFloatOnly},  // stable for large |x|
    {"aten.tanh.default", "return safe_tanh(x);", kFloatOnly},   // argument clamped (overflow)
    {"aten.silu.default", "return x * sigmoid(x);", kFloatOnly},
    {"aten.hardswish.default", "return x * clamp(x + 3.0, 0.0, 6.0) / 6.0;", kFloatOnly},
    {"aten.hardsigmoid.default", "return clamp(x + 3.0, 0.0, 6.0) / 6.0;", kFloatOnly},
    {"aten.exp.default", "return safe_exp(x);", kFloatOnly},          // clamped below f32 overflow
    {"aten.log.default", "return log(x);", kFloatOnly},               // NaN below 0, -inf at 0
    {"aten.log1p.default", "return log1p_accurate(x);", kFloatOnly},  // keeps tiny x
    {"aten.sqrt.default", "return sqrt(x);", kFloatOnly},
    {"aten.rsqrt.default", "return inverseSqrt(x);", kFloatOnly},
    {"aten.neg.default", "return -x;", kAlsoInt},
    {"aten.abs.default", "return abs(x);", kAlsoInt},
    {"aten.sin.default", "return sin(x);", kFloatOnly},
    {"aten.cos.default", "return cos(x);", kFloatOnly},
    {"aten.erf.default", "return erf_approx(x);", kFloatOnly},  // WGSL has none: math.wgsl
    {"aten.reciprocal.default", "return 1.0 / x;", kFloatOnly},
    {"aten.floor.default", "return floor(x);", kFloatOnly},
    {"aten.ceil.default", "return ceil(x);", kFloatOnly},
    {"aten.round.default", "return round(x);", kFloatOnly},  // half to even, as PyTorch
    {"aten.trunc.default", "return trunc(x);", kFloatOnly},  // toward zero
    {"aten.sign.default", "return sign(x);", kAlsoInt},      // -1, 0 or 1
};

}  // namespace

std::span<const Op* const> unary_ops() {
    static const OpTable<SimpleUnaryOp> table(kUnaryOps);
    return table.ops();
}

}  // namespace wgx::ops
