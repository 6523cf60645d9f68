// aten.sqrt.default: square root. Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& sqrt_op() {
    static const SimpleUnaryOp op({"aten.sqrt.default", "return sqrt(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
