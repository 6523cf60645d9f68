// aten.round.default: round half to even, as PyTorch. Args: [self, out].
#include "ops/elementwise/unary.h"
#include "ops/registry.h"

namespace wgx::ops {

const Op& round_op() {
    static const SimpleUnaryOp op({"aten.round.default", "return round(x);", /*float_only=*/true});
    return op;
}

}  // namespace wgx::ops
