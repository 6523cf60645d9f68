// aten.tanh.default: tanh(x), with the argument clamped so no driver overflows. Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& tanh_op() {
    static const SimpleUnaryOp op({"aten.tanh.default", "return safe_tanh(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
