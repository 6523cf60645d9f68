#include "result.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

std::string kernel_names(const std::vector<std::string>& labels) {
    std::string out;
    for (const std::string& label : labels) {
        size_t slash = label.find('/');
        out += (out.empty() ? "" : ", ") + (slash == std::string::npos ? label : label.substr(slash + 1));
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

}  // namespace wgx::bench
