// aten.sigmoid.default: 1 / (1 + exp(-x)), stable for large |x|. Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& sigmoid_op() {
    static const SimpleUnaryOp op({"aten.sigmoid.default", "return sigmoid(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
