// aten.sign.default: -1, 0 or 1. Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& sign_op() {
    static const SimpleUnaryOp op({"aten.sign.default", "return sign(x);", /*float_only=*/false});
    return op;
}

}  // namespace wgx::ops
