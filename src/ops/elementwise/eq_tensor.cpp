// aten.eq.Tensor: self == other, elementwise with broadcasting, as bool.
// Args: [self, other (tensor), out].
#include "ops/elementwise/compare.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& eq_tensor_op() {
    static const CompareOp op("aten.eq.Tensor", "==");
    return op;
}

}  // namespace wgx::ops
