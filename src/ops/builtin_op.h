// The base of every built-in op: it marks the op as the engine's own, so its kernels are
// compiled with the built-in shader-check setting (Op::builtin).
#pragma once

#include "wgx/op.h"

namespace wgx::ops {

class BuiltinOp : public Op {
  public:
    bool builtin() const final { return true; }
};

}  // namespace wgx::ops
