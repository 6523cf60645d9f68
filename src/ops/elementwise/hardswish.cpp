// aten.hardswish.default: x * relu6(x + 3) / 6. Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& hardswish_op() {
    static const SimpleUnaryOp op({"aten.hardswish.default", "return x * clamp(x + 3.0, 0.0, 6.0) / 6.0;", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
