// aten.abs.default: |x|. Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& abs_op() {
    static const SimpleUnaryOp op({"aten.abs.default", "return abs(x);", /*float_only=*/false});
    return op;
}

}  // namespace wgx::ops
