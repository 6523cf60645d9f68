// aten.trunc.default: round toward zero. Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& trunc_op() {
    static const SimpleUnaryOp op({"aten.trunc.default", "return trunc(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
