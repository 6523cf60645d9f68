// aten.log.default: natural log (NaN below 0, -inf at 0, as PyTorch). Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& log_op() {
    static const SimpleUnaryOp op({"aten.log.default", "return log(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
