// aten.cos.default: cos(x). Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& cos_op() {
    static const SimpleUnaryOp op({"aten.cos.default", "return cos(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
