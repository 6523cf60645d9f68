// aten.rsqrt.default: 1 / sqrt(x). Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& rsqrt_op() {
    static const SimpleUnaryOp op({"aten.rsqrt.default", "return inverseSqrt(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
