// Shared by softmax and log_softmax: validation, the uniform struct mirrored from softmax.wgsl,
// variant choice and dispatch.
#pragma once

#include <cstdint>

#include "wgx/op.h"

namespace wgx::ops {

struct SoftmaxParams {
    uint32_t rows;
    uint32_t count;
    uint32_t inner;
    uint32_t pad;
};
static_assert(sizeof(SoftmaxParams) == 16);

// Args: [self, dim, half_to_float (bool) | dtype? (aten.softmax.int), out]. self and out are
// both float32 or both float16 (with shader-f16; computed in float32, rounded once on store);
// half_to_float must be false and dtype, when given, self's.
void record_softmax(Recorder& rec, const Args& args, bool log);

}  // namespace wgx::ops
