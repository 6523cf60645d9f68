// Filling a tensor with one value (full, full_like, zeros, ones, ...).
#pragma once

#include "ops/builtin_op.h"

namespace wgx::ops {

// Records out[:] = value, converted to out's dtype as PyTorch does (bool: nonzero; integers
// truncate toward zero).
void record_fill(Recorder& rec, const Args& args, const Tensor& out, double value);

// Ops of the form [..., out] that fill `out` with a fixed value or the number at `value_index`.
class FillOp final : public BuiltinOp {
  public:
    constexpr FillOp(std::string_view name, int value_index, double fixed = 0)
        : name_(name), value_index_(value_index), fixed_(fixed) {}
    std::string_view name() const override { return name_; }
    void record(Recorder& rec, const Args& args) const override;

  private:
    std::string_view name_;
    int value_index_;  // -1: use `fixed`
    double fixed_;
};

}  // namespace wgx::ops
