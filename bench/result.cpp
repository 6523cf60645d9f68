#include "result.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/half.h"

namespace wgx::bench {

std::vector<float> random_values(size_t n, uint64_t seed) {
    // splitmix64: a good, cheap stream; 24 random bits per value.
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    std::vector<float> v(n);
    for (float& x : v) {
        do {
            uint64_t z = (state += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            z ^= z >> 31;
            x = static_cast<float>(static_cast<int32_t>(z >> 40) - (1 << 23)) / float(1 << 23);
        } while (x == 0.f);
    }
    return v;
}

Tensor upload(Context& ctx, DType dtype, const Shape& shape, std::vector<float>& values) {
    if (dtype != DType::f16) return ctx.tensor(dtype, shape).set_data(values);
    std::vector<uint16_t> h(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        h[i] = float_to_half(values[i]);
        values[i] = half_to_float(h[i]);
    }
    return ctx.tensor(dtype, shape).set_data(h);
}

Tensor poisoned(Context& ctx, DType dtype, const Shape& shape) {
    Tensor t = ctx.tensor(dtype, shape);
    size_t n = 1;
    for (int64_t d : shape) n *= size_t(d);
    if (dtype == DType::f16) {
        t.set_data(std::vector<uint16_t>(n, 0x7e00));
    } else {
        t.set_data(std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()));
    }
    return t;
}

std::vector<float> download(const Tensor& t) {
    if (t.dtype() != DType::f16) return t.get_data<float>();
    std::vector<float> v;
    for (uint16_t h : t.get_data<uint16_t>()) v.push_back(half_to_float(h));
    return v;
}

const char* dtype_suffix(DType dtype) { return dtype == DType::f16 ? " f16" : ""; }

std::string kernel_names(const std::vector<std::string>& labels) {
    std::string out;
    for (const std::string& label : labels) {
        size_t slash = label.find('/');
        out += (out.empty() ? "" : ", ") +
               (slash == std::string::npos ? label : label.substr(slash + 1));
    }
    return out;
}

void ErrorMeter::add(double got, double want) {
    ++count_;
    if (!std::isfinite(got)) {
        non_finite_ = true;
        return;
    }
    max_abs_diff_ = std::max(max_abs_diff_, std::abs(got - want));
    max_want_ = std::max(max_want_, std::abs(want));
}

double ErrorMeter::error() const {
    if (non_finite_) return std::numeric_limits<double>::infinity();
    return max_abs_diff_ / std::max(1.0, max_want_);
}

bool check_all(Result& r, const std::vector<float>& got, const std::vector<double>& want,
               double tolerance) {
    ErrorMeter meter;
    for (size_t i = 0; i < want.size(); ++i) meter.add(got.at(i), want[i]);
    r.error = meter.error();
    r.checked = fmt::format("all {} outputs", meter.count());
    return r.error <= tolerance;
}

void add_measured(std::vector<Result>& rows, Result r, const Measured& m) {
    r.ok = m.ok;
    r.timing = m.timing;
    r.kernel = kernel_names(m.timing.kernels);
    rows.push_back(std::move(r));
}

}  // namespace wgx::bench
