// aten.ceil.default: ceil(x). Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& ceil_op() {
    static const SimpleUnaryOp op({"aten.ceil.default", "return ceil(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
