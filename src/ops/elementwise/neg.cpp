// aten.neg.default: -x. Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& neg_op() {
    static const SimpleUnaryOp op({"aten.neg.default", "return -x;", /*float_only=*/false});
    return op;
}

}  // namespace wgx::ops
