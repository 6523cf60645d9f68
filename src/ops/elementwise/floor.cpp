// aten.floor.default: floor(x). Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& floor_op() {
    static const SimpleUnaryOp op({"aten.floor.default", "return floor(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
