// Shared machinery of the comparison ops (eq, ne, lt, le, gt, ge; Tensor and Scalar forms):
// broadcasting inputs of one dtype, a bool output.
#pragma once

#include <optional>
#include <string_view>

#include "ops/builtin_op.h"

namespace wgx::ops {

struct CompareParams {
    uint32_t numel;
    float scalar;
    uint32_t pad0, pad1;
    uint32_t out_sizes[8];
    uint32_t a_strides[8];
    uint32_t b_strides[8];
};
static_assert(sizeof(CompareParams) == 112);

// Records out = (a <op> b); `wgsl_op` is the WGSL operator ("==", "<", ...). With `scalar`,
// b is that number (the .Scalar forms). Args: [self, other, out].
void record_compare(Recorder& rec, std::string_view op, std::string_view wgsl_op,
                    const Args& args);

// An op for one operator in one form.
class CompareOp final : public BuiltinOp {
  public:
    constexpr CompareOp(std::string_view name, std::string_view wgsl_op)
        : name_(name), wgsl_op_(wgsl_op) {}
    std::string_view name() const override { return name_; }
    bool accepts_float16() const override { return true; }
    void record(Recorder& rec, const Args& args) const override {
        record_compare(rec, name_, wgsl_op_, args);
    }

  private:
    std::string_view name_, wgsl_op_;
};

}  // namespace wgx::ops
