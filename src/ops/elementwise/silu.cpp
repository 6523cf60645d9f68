// aten.silu.default: x * sigmoid(x). Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& silu_op() {
    static const SimpleUnaryOp op({"aten.silu.default", "return x * sigmoid(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
