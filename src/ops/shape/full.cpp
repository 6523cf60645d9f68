// aten.full.default: out = fill_value everywhere; out's shape and dtype are the result's. Args: [size, fill_value, dtype?, layout?, device?, pin_memory?, out].
#include "ops/registry.h"
#include "ops/shape/fill.h"

namespace wgx::ops {

const Op& full_op() {
    static const FillOp op("aten.full.default", 1, 0);
    return op;
}

}  // namespace wgx::ops
