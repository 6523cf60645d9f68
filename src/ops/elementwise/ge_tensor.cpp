// aten.ge.Tensor: self >= other, elementwise with broadcasting, as bool.
// Args: [self, other (tensor), out].
#include "ops/elementwise/compare.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& ge_tensor_op() {
    static const CompareOp op("aten.ge.Tensor", ">=");
    return op;
}

}  // namespace wgx::ops
