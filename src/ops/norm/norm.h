// Shared by layer_norm and group_norm: the row-normalisation kernel (norm_rows.wgsl), its
// uniform struct and dispatch.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "wgx/op.h"

namespace wgx::ops {

struct NormRowsParams {
    uint32_t rows;
    uint32_t row_len;
    uint32_t groups;
    uint32_t per_group;
    uint32_t hw;
    float eps;
    uint32_t pad0, pad1;
};
static_assert(sizeof(NormRowsParams) == 32);
static_assert(offsetof(NormRowsParams, eps) == 20);

// Normalises `rows` rows of `row_len` contiguous elements of x into out; weight/bias entry of
// element k of row r is (r % groups) * per_group + k / hw. mean and rstd (rows elements each)
// are written when given. Every tensor has x's dtype, float32 or float16 (checked by the
// caller); float16 is computed in f32 and rounded once on store. Reduces with subgroup
// operations where use_subgroups() says so.
void record_norm_rows(Recorder& rec, std::string_view label, const Tensor& x,
                      const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                      const Tensor& out, const std::optional<Tensor>& mean,
                      const std::optional<Tensor>& rstd, const NormRowsParams& p);

// The op's outputs, from index `first`: one tensor list (the program convention; absent entries
// allowed) or, for direct callers, `count` separate tensors or nones. out (entry 0) must exist.
std::vector<std::optional<Tensor>> output_list(const Args& args, size_t first, size_t count);

// Fails unless t is float32 (float64 is stored as float32 and accepted too) or float16, the
// latter only on a device with shader-f16. The caller then requires every other float tensor
// of the call to have t's dtype (so float16 and float32 never mix).
void expect_float(const Recorder& rec, const Args& args, const Tensor& t, std::string_view name);

}  // namespace wgx::ops
