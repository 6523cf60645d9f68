// Checks of float16 GEMM and convolution results (float16 storage, float32 accumulation): the
// error bound such a result must meet against a float64 reference computed on exactly its
// float16 inputs (tensors and reads: half_test_util.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "half_test_util.h"

namespace wgx::test {

// random_floats rounded to float16 (what a float16 tensor of them holds), still without zeros.
inline std::vector<float> f16_random(size_t n, uint32_t seed) {
    std::vector<float> v = round_to_half(random_floats(n, seed));
    for (float& x : v) {
        if (x == 0.f) x = 1.f;
    }
    return v;
}

// The worst |got - want| / bound over the elements (<= 1 passes; a non-finite result gives
// infinity), where per element
//   bound = 2^-11 |want| + terms * 2^-23 * magnitude + 2^-24.
// 2^-11 |want| is the single rounding of the float32 result to float16 (half an ulp of an
// 11-bit significand); 2^-24 covers it for subnormal results (half their spacing is 2^-25).
// `magnitude` is the sum of the absolute values of everything added into the element (each
// product times |alpha|, the bias, the residual): float32 accumulation of `terms` such values
// errs by at most about terms * 2^-24 * magnitude, doubled for the epilogue's few further float32
// operations. Accumulating in float16 instead would err by up to 2^-11 * magnitude per step,
// far beyond this bound.
inline double f16_error_ratio(const std::vector<float>& got, const std::vector<double>& want,
                              const std::vector<double>& magnitude, int64_t terms) {
    EXPECT_EQ(got.size(), want.size());
    EXPECT_EQ(magnitude.size(), want.size());
    double worst = 0.0;
    for (size_t i = 0; i < std::min({got.size(), want.size(), magnitude.size()}); ++i) {
        if (!std::isfinite(got[i])) return std::numeric_limits<double>::infinity();
        const double bound = std::ldexp(std::abs(want[i]), -11) +
                             double(terms) * std::ldexp(magnitude[i], -23) + std::ldexp(1.0, -24);
        worst = std::max(worst, std::abs(double(got[i]) - want[i]) / bound);
    }
    return worst;
}

}  // namespace wgx::test
