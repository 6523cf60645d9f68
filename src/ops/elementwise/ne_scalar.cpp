// aten.ne.Scalar: self != other, elementwise with broadcasting, as bool.
// Args: [self, other (number), out].
#include "ops/elementwise/compare.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& ne_scalar_op() {
    static const CompareOp op("aten.ne.Scalar", "!=");
    return op;
}

}  // namespace wgx::ops
