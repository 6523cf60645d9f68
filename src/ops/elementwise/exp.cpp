// aten.exp.default: exp(x) (argument clamped below the f32 overflow). Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& exp_op() {
    static const SimpleUnaryOp op({"aten.exp.default", "return safe_exp(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
