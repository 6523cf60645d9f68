// aten.sin.default: sin(x). Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& sin_op() {
    static const SimpleUnaryOp op({"aten.sin.default", "return sin(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
