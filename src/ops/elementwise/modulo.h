// fmod and remainder in an elementwise op's compute type T (binary.h, unary.h), for the ops
// whose `apply` calls fmod_t(x, y) or remainder_t(x, y).
#pragma once

#include <string>

#include "wgx/dtype.h"

namespace wgx::ops {

// WGSL of fmod_t (C's fmod: the sign of x) and remainder_t (Python's %: the sign of y) for
// tensors stored as `storage` (i32, or f32 / f16 computed in f32). Floats: fmod(x, 0), fmod of
// an infinite x and NaNs give NaN, fmod(x, inf) is x. Integers: a zero divisor gives 0 (PyTorch
// raises; a GPU kernel cannot).
std::string modulo_helpers(DType storage);

}  // namespace wgx::ops
