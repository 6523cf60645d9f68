// IEEE 754 binary16 ("half", PyTorch's float16) conversions on the host: constants converted for
// the float16 path, fills and pads of float16 tensors, and tests reading float16 outputs.
#pragma once

#include <cstdint>

namespace wgx {

// The binary16 bits nearest to x (ties to even); overflow gives infinity, NaN stays NaN.
uint16_t float_to_half(float x);
// The exact float value of binary16 bits (every half is representable as a float).
float half_to_float(uint16_t h);

}  // namespace wgx
