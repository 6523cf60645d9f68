#include "base/half.h"

#include <bit>
#include <cmath>

namespace wgx {

uint16_t float_to_half(float x) {
    uint32_t f = std::bit_cast<uint32_t>(x);
    uint32_t sign = (f >> 16) & 0x8000u;
    uint32_t mag = f & 0x7fffffffu;
    if (mag > 0x7f800000u) return uint16_t(sign | 0x7e00u);   // NaN (quiet)
    if (mag >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds past 65504: infinity
    if (mag < 0x38800000u) {
        // Below the smallest normal half: a multiple of 2^-24, rounded to nearest even (the
        // float product is exact, nearbyint rounds ties to even in the default mode).
        float units = std::fabs(x) * 16777216.f;
        return uint16_t(sign | static_cast<uint32_t>(std::nearbyint(units)));
    }
    // Round the 23-bit mantissa to 10 bits, ties to even, then rebias the exponent (127 -> 15).
    uint32_t rounded = mag + 0xfffu + ((mag >> 13) & 1u);
    return uint16_t(sign | ((rounded >> 13) - (112u << 10)));
}

float half_to_float(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        // Zero or subnormal: mant * 2^-24, exact in float.
        float v = static_cast<float>(mant) * (1.0f / 16777216.f);
        return sign ? -v : v;
    }
    if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
    return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

}  // namespace wgx
