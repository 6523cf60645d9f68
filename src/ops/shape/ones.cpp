// aten.ones.default: out = 1; out's shape and dtype are the result's. Args: [size, dtype?, layout?, device?, pin_memory?, out].
#include "ops/registry.h"
#include "ops/shape/fill.h"

namespace wgx::ops {

const Op& ones_op() {
    static const FillOp op("aten.ones.default", -1, 1);
    return op;
}

}  // namespace wgx::ops
