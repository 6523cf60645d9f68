// aten.erf.default: erf(x) (WGSL has none: see common/math.wgsl). Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& erf_op() {
    static const SimpleUnaryOp op({"aten.erf.default", "return erf_approx(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
