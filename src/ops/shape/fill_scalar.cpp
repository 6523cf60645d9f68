// aten.fill.Scalar: out = value, shaped like self; out's shape and dtype are the result's. Args: [self, value, out].
#include "ops/registry.h"
#include "ops/shape/fill.h"

namespace wgx::ops {

const Op& fill_scalar_op() {
    static const FillOp op("aten.fill.Scalar", 1, 0);
    return op;
}

}  // namespace wgx::ops
