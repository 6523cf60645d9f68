// aten.zeros.default: out = 0; out's shape and dtype are the result's. Args: [size, dtype?, layout?, device?, pin_memory?, out].
#include "ops/registry.h"
#include "ops/shape/fill.h"

namespace wgx::ops {

const Op& zeros_op() {
    static const FillOp op("aten.zeros.default", -1, 0);
    return op;
}

}  // namespace wgx::ops
