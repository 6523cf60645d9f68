// aten.relu.default: max(x, 0). Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& relu_op() {
    static const SimpleUnaryOp op({"aten.relu.default", "return max(x, T(0));", /*float_only=*/false});
    return op;
}

}  // namespace wgx::ops
