// Float16 test helpers: inputs rounded to float16 on the host, float16 tensors made from them and
// read back, and the comparison of a result computed in float32 and stored rounded to float16.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/half.h"
#include "test_util.h"

// Skips the calling test on a device without shader-f16, where float16 kernels cannot compile
// (a device capability, not a failed check).
#define WGX_SKIP_WITHOUT_F16()                                 \
    if (!::wgx::test::ctx().device_info().features.shader_f16) \
    GTEST_SKIP() << "the device has no shader-f16"

namespace wgx::test {

// `v` with every value rounded to the nearest float16, so a float64 reference sees exactly what
// a float16 tensor of `v` holds.
inline std::vector<float> round_to_half(std::vector<float> v) {
    for (float& x : v) x = half_to_float(float_to_half(x));
    return v;
}

// A float16 tensor holding `v` (each value rounded to float16).
inline Tensor half_tensor(const Shape& s, const std::vector<float>& v) {
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = float_to_half(v[i]);
    return ctx().tensor(DType::f16, s).set_data(h);
}

// A float16 output filled with NaN, so unwritten elements show up.
inline Tensor half_output(const Shape& s) {
    Tensor t = ctx().tensor(DType::f16, s);
    t.set_data(std::vector<uint16_t>(static_cast<size_t>(numel(s)), 0x7e00));
    return t;
}

// A float16 tensor's values as floats (exact).
inline std::vector<float> read_half(const Tensor& t) {
    std::vector<float> v;
    for (uint16_t h : t.get_data<uint16_t>()) v.push_back(half_to_float(h));
    return v;
}

// Whether `got` (a float16 result) matches `want` (the float64 reference) to within `tol` (the
// op's own float32 error) plus the one rounding to float16: 2^-11 relative, and 2^-24 absolute
// near zero (subnormals). A reference beyond float16's range must round to an infinity of its
// sign; a NaN reference needs a NaN.
inline bool half_close(float got, double want, double tol) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::abs(want) >= 65520.0) return std::isinf(got) && (got > 0) == (want > 0);
    if (!std::isfinite(got)) return false;
    return std::abs(double(got) - want) <=
           tol + std::ldexp(std::abs(want) + tol, -11) + std::ldexp(1.0, -24);
}

// Records `name` on `c` (a context whose device lacks shader-f16) and expects an InvalidArgument
// naming the op and shader-f16.
inline void expect_refused_without_f16(Context& c, std::string_view name, std::vector<Arg> args) {
    try {
        c.record(op(name), args);
        ADD_FAILURE() << name << ": float16 accepted without shader-f16";
    } catch (const InvalidArgument& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find(std::string(name)), std::string::npos) << msg;
        EXPECT_NE(msg.find("shader-f16"), std::string::npos) << msg;
    }
}

}  // namespace wgx::test
