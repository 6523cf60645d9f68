// Host float <-> binary16 conversions (base/half.h): every half round-trips, and random floats
// convert to the nearest half with ties to even.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "base/half.h"

namespace wgx {
namespace {

bool is_nan_half(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

TEST(Half, EveryHalfRoundTripsThroughFloat) {
    for (uint32_t h = 0; h < 0x10000u; ++h) {
        float f = half_to_float(uint16_t(h));
        if (is_nan_half(uint16_t(h))) {
            EXPECT_TRUE(std::isnan(f)) << h;
            EXPECT_TRUE(is_nan_half(float_to_half(f))) << h;
        } else {
            EXPECT_EQ(float_to_half(f), h) << "half 0x" << std::hex << h << " -> " << f;
        }
    }
}

TEST(Half, KnownValues) {
    EXPECT_EQ(half_to_float(0x3c00), 1.0f);
    EXPECT_EQ(half_to_float(0xc000), -2.0f);
    EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
    EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));
    EXPECT_EQ(float_to_half(65519.0f), 0x7bff);  // below the midpoint to 2^16
    EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // the midpoint rounds to even: inf
    EXPECT_EQ(float_to_half(-1e9f), 0xfc00);
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0);  // half the smallest subnormal: to even
    EXPECT_EQ(float_to_half(3 * std::ldexp(1.0f, -26)), 0x0001);
    EXPECT_EQ(float_to_half(-0.0f), 0x8000);
    EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie: to even
    EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie: to even
    EXPECT_TRUE(is_nan_half(float_to_half(std::numeric_limits<float>::quiet_NaN())));
    EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
}

// The result is the nearest half: no neighbour is closer, and on a tie the result is even.
TEST(Half, RandomFloatsRoundToNearestEven) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> exponent(-27, 16);
    std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
    for (int i = 0; i < 200000; ++i) {
        float x = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1.0f : 1.0f);
        uint16_t h = float_to_half(x);
        double got = half_to_float(h);
        if (std::isinf(got)) {
            EXPECT_GE(std::fabs(double(x)), 65520.0) << x;
            continue;
        }
        double err = std::fabs(got - x);
        for (int step : {-1, 1}) {
            uint16_t n = uint16_t((h & 0x7fffu) + step) | (h & 0x8000u);
            if ((h & 0x7fffu) == 0 && step < 0) continue;
            double other = half_to_float(n);
            if (std::isinf(other)) continue;
            double other_err = std::fabs(other - x);
            ASSERT_LE(err, other_err) << x;
            if (err == other_err) ASSERT_EQ(h & 1u, 0u) << "tie not to even: " << x;
        }
    }
}

}  // namespace
}  // namespace wgx
