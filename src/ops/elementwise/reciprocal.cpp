// aten.reciprocal.default: 1 / x. Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& reciprocal_op() {
    static const SimpleUnaryOp op({"aten.reciprocal.default", "return 1.0 / x;", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
