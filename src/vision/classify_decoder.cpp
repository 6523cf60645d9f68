#include "vision/classify_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "wgx/error.h"

namespace wgx::vision {

std::vector<ClassScore> top_k(std::span<const float> output, bool logits, int k) {
    if (output.empty()) throw InvalidArgument("top_k: the output is empty.");
    std::vector<double> p(output.begin(), output.end());
    for (size_t i = 0; i < p.size(); ++i) {
        if (!std::isfinite(p[i])) {
            throw Error(
                fmt::format("the classifier's output {} is {} (class {}); no ranking is "
                            "possible.",
                            i, p[i], i));
        }
    }
    if (logits) {
        const double m = *std::max_element(p.begin(), p.end());
        double sum = 0;
        for (double& v : p) sum += (v = std::exp(v - m));
        for (double& v : p) v /= sum;
    }
    std::vector<int> order(p.size());
    std::iota(order.begin(), order.end(), 0);
    const size_t n = std::min<size_t>(size_t(std::max(k, 0)), p.size());
    std::partial_sort(order.begin(), order.begin() + n, order.end(),
                      [&](int a, int b) { return p[a] != p[b] ? p[a] > p[b] : a < b; });
    std::vector<ClassScore> top;
    for (size_t i = 0; i < n; ++i) top.push_back({order[i], p[order[i]]});
    return top;
}

}  // namespace wgx::vision
