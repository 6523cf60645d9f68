// aten.full_like.default: out = fill_value, shaped like self; out's shape and dtype are the result's. Args: [self, fill_value, dtype?, layout?, device?, pin_memory?, memory_format?, out].
#include "ops/registry.h"
#include "ops/shape/fill.h"

namespace wgx::ops {

const Op& full_like_op() {
    static const FillOp op("aten.full_like.default", 1, 0);
    return op;
}

}  // namespace wgx::ops
