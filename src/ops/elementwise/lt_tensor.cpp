// aten.lt.Tensor: self < other, elementwise with broadcasting, as bool.
// Args: [self, other (tensor), out].
#include "ops/elementwise/compare.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& lt_tensor_op() {
    static const CompareOp op("aten.lt.Tensor", "<");
    return op;
}

}  // namespace wgx::ops
