// aten.hardsigmoid.default: relu6(x + 3) / 6. Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& hardsigmoid_op() {
    static const SimpleUnaryOp op({"aten.hardsigmoid.default", "return clamp(x + 3.0, 0.0, 6.0) / 6.0;", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
