// aten.ones_like.default: out = 1, shaped like self; out's shape and dtype are the result's. Args: [self, dtype?, layout?, device?, pin_memory?, memory_format?, out].
#include "ops/registry.h"
#include "ops/shape/fill.h"

namespace wgx::ops {

const Op& ones_like_op() {
    static const FillOp op("aten.ones_like.default", -1, 1);
    return op;
}

}  // namespace wgx::ops
