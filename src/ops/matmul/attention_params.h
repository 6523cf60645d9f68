// The arguments of a wgx.attention call as its kernel reads them: the Params uniform (three
// strided views, the sizes, the scale, the masked-row rule), validated against the call's
// tensors. Shared by the op (attention.cpp) and the micro-benchmark's kernel variants, which
// take the same arguments and bindings.
#pragma once

#include <cstdint>

#include "wgx/op.h"

namespace wgx::ops {

inline constexpr int64_t kAttentionMaxKeys = 256;      // attention.wgsl LK_MAX
inline constexpr int64_t kAttentionMaxHeadSize = 128;  // attention.wgsl D_MAX

struct AttentionView {
    uint32_t offset, batch, row, col;
};

struct AttentionParams {
    AttentionView q, k, v;
    uint32_t lq, lk, d, dv;
    float scale;
    uint32_t zero_masked_rows, pad0 = 0, pad1 = 0;
};
static_assert(sizeof(AttentionParams) % 16 == 0);

// A call's sizes [B, Lq, Lk, D, DV] (argument 6) and its Params: every view checked to reach
// only elements of its tensor (arguments 0-5), the scale (7) and zero_masked_rows (8). The
// sizes are checked positive and within the limits above; the grid is the caller's to check.
struct AttentionCall {
    int64_t B = 0, Lq = 0, Lk = 0, D = 0, DV = 0;
    AttentionParams params{};
};
AttentionCall attention_call(const Args& args);

}  // namespace wgx::ops
