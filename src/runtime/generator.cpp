#include "wgx/generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string_view>

#include "base/half.h"

namespace wgx {

Sampler::Sampler(SamplingOptions options) : options_(options), rng_(options.seed) {
    if (options_.temperature &&
        (*options_.temperature < 0 || !std::isfinite(*options_.temperature))) {
        throw InvalidArgument(
            fmt::format("temperature {} must be a finite number >= 0.", *options_.temperature));
    }
    if (options_.top_k < 0) {
        throw InvalidArgument(fmt::format("top-k {} must be >= 0.", options_.top_k));
    }
    if (!(options_.top_p > 0 && options_.top_p <= 1)) {
        throw InvalidArgument(fmt::format("top-p {} must be in (0, 1].", options_.top_p));
    }
}

namespace {

// The first index of the largest logit, as std::max_element finds it (NaNs never win but at
// index 0), in two passes the compiler vectorises: the largest value in eight lanes, then where
// it first is. std::max_element's one pass, comparing against the best so far through memory,
// took 0.48 ms for a 128256-token vocabulary on the H200's host: an eighth of a decode step.
int64_t first_max_index(std::span<const float> v) {
    constexpr size_t kLanes = 8;
    std::array<float, kLanes> lane;
    lane.fill(v[0]);
    size_t i = 0;
    for (; i + kLanes <= v.size(); i += kLanes) {
        for (size_t j = 0; j < kLanes; ++j) lane[j] = v[i + j] > lane[j] ? v[i + j] : lane[j];
    }
    float best = lane[0];
    for (size_t j = 1; j < kLanes; ++j) best = lane[j] > best ? lane[j] : best;
    for (; i < v.size(); ++i) best = v[i] > best ? v[i] : best;
    for (size_t k = 0; k < v.size(); ++k) {
        if (v[k] == best) return static_cast<int64_t>(k);
    }
    return 0;  // best is NaN: v[0] was, and nothing was larger
}

}  // namespace

int64_t Sampler::pick(std::span<const float> logits) {
    if (logits.empty()) throw InvalidArgument("sampling from empty logits.");
    if (!options_.temperature || *options_.temperature == 0) return first_max_index(logits);
    // Most likely first; keep top_k, then the smallest prefix whose mass reaches top_p.
    std::vector<int64_t> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    const size_t k = options_.top_k > 0
                         ? std::min<size_t>(static_cast<size_t>(options_.top_k), order.size())
                         : order.size();
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
    order.resize(k);
    std::vector<double> p(k);
    const double top = logits[order[0]];
    double sum = 0;
    for (size_t i = 0; i < k; ++i) {
        p[i] = std::exp((logits[order[i]] - top) / *options_.temperature);
        sum += p[i];
    }
    double mass = 0;
    size_t keep = 0;
    while (keep < k && mass < options_.top_p * sum) mass += p[keep++];
    std::uniform_real_distribution<double> u(0.0, mass);
    double r = u(rng_);
    for (size_t i = 0; i < keep; ++i) {
        r -= p[i];
        if (r <= 0) return order[i];
    }
    return order[keep - 1];
}

Generator::Generator(Runner& runner, int64_t context_length)
    : runner_(runner), context_(context_length) {
    const Program& program = runner.program();
    const auto& in = program.inputs();
    const auto& out = program.outputs();
    const bool tokens_ok = in.size() == 2 && in[0].dtype == DType::i64 && in[0].shape.size() == 2 &&
                           in[0].shape[0] == 1;
    const bool pos_ok = in.size() == 2 && in[1].dtype == DType::i64 && in[1].shape == Shape{1};
    const bool logits_ok = out.size() == 1 &&
                           (out[0].dtype == DType::f32 || out[0].dtype == DType::f16) &&
                           out[0].shape.size() == 2 && out[0].shape[0] == 1;
    if (!tokens_ok || !pos_ok || !logits_ok) {
        throw InvalidArgument(fmt::format(
            "{}: not an LLM export with a KV cache (inputs tokens int64 [1, S] and input_pos "
            "int64 [1], output logits float32 or float16 [1, vocab]).",
            program.origin()));
    }
    if (context_ < 1) {
        throw InvalidArgument(
            fmt::format("{}: context length {} must be positive.", program.origin(), context_));
    }
    max_chunk_ = in[0].shape[1];  // the bound, or the one size of a static export
}

const std::vector<float>& Generator::feed(std::span<const int64_t> tokens) {
    if (tokens.empty()) throw InvalidArgument("no tokens to feed.");
    const auto n = static_cast<int64_t>(tokens.size());
    if (position_ + n > context_) {
        throw InvalidArgument(
            fmt::format("{} tokens at position {} do not fit the context of {} positions.", n,
                        position_, context_));
    }
    const bool fixed = !runner_.program().inputs()[0].dynamic_bound;
    for (int64_t done = 0; done < n;) {
        const int64_t chunk = fixed ? max_chunk_ : std::min(max_chunk_, n - done);
        if (fixed && n - done < chunk) {
            throw InvalidArgument(fmt::format(
                "{}: the program takes exactly {} tokens per run (exported without dynamic "
                "shapes); feed them one at a time or in chunks of {}.",
                runner_.program().origin(), chunk, chunk));
        }
        const int64_t pos[1] = {position_};
        std::vector<Tensor> out = runner_.run(
            {HostTensor::of<int64_t>(
                 tokens.subspan(static_cast<size_t>(done), static_cast<size_t>(chunk)), {1, chunk}),
             HostTensor::of<int64_t>(std::span<const int64_t>(pos), {1})});
        position_ += chunk;
        done += chunk;
        if (done == n) {
            prepare_next_step();
            read_logits(out.at(0));
        }
    }
    return logits_;
}

// While the GPU runs the step just submitted, the host finds the next decode step's sizes (they
// depend on its position, not on its token), so that the next feed submits without doing it
// first. A failure here is the next run's to report, with its own inputs.
void Generator::prepare_next_step() {
    // WGX_PREPARE_AHEAD=0 leaves it to the next run, to compare the two. Read once.
    static const bool enabled = [] {
        const char* env = std::getenv("WGX_PREPARE_AHEAD");
        return env == nullptr || std::string_view(env) != "0";
    }();
    if (!enabled) return;
    const bool fixed = !runner_.program().inputs()[0].dynamic_bound;
    if (position_ >= context_ || (fixed && max_chunk_ != 1)) return;
    const int64_t token[1] = {0};
    const int64_t pos[1] = {position_};
    const std::vector<HostTensor> step = {
        HostTensor::of<int64_t>(std::span<const int64_t>(token), {1, 1}),
        HostTensor::of<int64_t>(std::span<const int64_t>(pos), {1})};
    try {
        runner_.prepare(step);
    } catch (const Error&) {}
}

// A -d fp16 export returns float16 logits; sampling takes them as floats.
void Generator::read_logits(const Tensor& out) {
    if (out.dtype() == DType::f32) {
        logits_ = out.get_data<float>();
        return;
    }
    const std::vector<uint16_t> half = out.get_data<uint16_t>();
    logits_.resize(half.size());
    std::transform(half.begin(), half.end(), logits_.begin(), half_to_float);
}

void Generator::reset() {
    runner_.reset_state();
    position_ = 0;
    logits_.clear();
}

}  // namespace wgx
