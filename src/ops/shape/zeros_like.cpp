// aten.zeros_like.default: out = 0, shaped like self; out's shape and dtype are the result's. Args: [self, dtype?, layout?, device?, pin_memory?, memory_format?, out].
#include "ops/registry.h"
#include "ops/shape/fill.h"

namespace wgx::ops {

const Op& zeros_like_op() {
    static const FillOp op("aten.zeros_like.default", -1, 0);
    return op;
}

}  // namespace wgx::ops
