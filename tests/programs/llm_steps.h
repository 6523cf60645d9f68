// What the LLM program tests share: feeding a fixture's tokens through a Runner, and the error
// measures of the logits they compare.
#pragma once

#include <cmath>
#include <cstring>
#include <filesystem>
#include <span>
#include <vector>

#include "base/half.h"
#include "io/npy.h"
#include "wgx/wgx.h"

namespace wgx::llm_test {

inline std::vector<int64_t> read_tokens(const std::filesystem::path& npy) {
    const io::NpyArray t = io::read_npy(npy);
    std::vector<int64_t> tokens(t.data.size() / 8);
    std::memcpy(tokens.data(), t.data.data(), t.data.size());
    return tokens;
}

inline double rel_l2(const std::vector<float>& got, const std::vector<double>& want) {
    double num = 0, den = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        num += (got[i] - want[i]) * (got[i] - want[i]);
        den += want[i] * want[i];
    }
    return std::sqrt(num / den);
}

inline double max_abs_rel(const std::vector<float>& got, const std::vector<double>& want) {
    double err = 0, scale = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        err = std::max(err, std::abs(got[i] - want[i]));
        scale = std::max(scale, std::abs(want[i]));
    }
    return err / scale;
}

// The logits as floats (a -d fp16 export returns float16).
inline std::vector<float> logits_of(const Tensor& t) {
    if (t.dtype() != DType::f16) return t.get_data<float>();
    std::vector<float> out;
    for (uint16_t h : t.get_data<uint16_t>()) out.push_back(half_to_float(h));
    return out;
}

// Runs tokens [from, from + n) at position `from` (one run; one run per token for a static
// export, which takes exactly one); returns the logits of the last one.
inline std::vector<float> step(Runner& r, const std::vector<int64_t>& tokens, int64_t from,
                               int64_t n) {
    const int64_t per_run = r.program().inputs().at(0).dynamic_bound ? n : 1;
    std::vector<Tensor> out;
    for (int64_t at = from; at < from + n; at += per_run) {
        std::span<const int64_t> toks(tokens.data() + at, static_cast<size_t>(per_run));
        const int64_t pos[1] = {at};
        out = r.run({HostTensor::of<int64_t>(toks, {1, per_run}),
                     HostTensor::of<int64_t>(std::span<const int64_t>(pos), {1})});
    }
    return logits_of(out.at(0));
}

}  // namespace wgx::llm_test
