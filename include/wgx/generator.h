// Text generation over an LLM export: a small loop over a Runner that feeds tokens at the
// cache position (a prompt in chunks of the program's bound, then one token per step, each one
// submit that replays the same recording) and picks the next token from the logits.
//
// The program is what ExecuTorch's LLM exporter writes with a KV cache: inputs tokens int64
// [1, <= S] and input_pos int64 [1], output float32 (or float16) logits [1, vocab] for the last
// token fed.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "wgx/runner.h"

namespace wgx {

struct SamplingOptions {
    // None (or 0): greedy, the most likely token. Else the logits divided by it, softmaxed, cut
    // to top_k (0: all) and to the smallest set whose probability reaches top_p, then sampled.
    std::optional<double> temperature;
    int64_t top_k = 0;
    double top_p = 1.0;
    uint64_t seed = 0;
};

// Picks a token from logits (throws InvalidArgument for empty logits or bad options).
class Sampler {
  public:
    explicit Sampler(SamplingOptions options);
    int64_t pick(std::span<const float> logits);

  private:
    SamplingOptions options_;
    std::mt19937_64 rng_;
};

class Generator {
  public:
    // Checks that the runner's program has the signature above. `context_length` is the number
    // of cache positions (the export's get_max_context_len); tokens beyond it are refused.
    Generator(Runner& runner, int64_t context_length);

    // Feeds tokens at the current position, in chunks of at most the program's bound, and
    // returns the logits after the last. A run past the context is an InvalidArgument naming
    // the numbers; nothing is fed then.
    const std::vector<float>& feed(std::span<const int64_t> tokens);
    const std::vector<float>& feed(int64_t token) {
        return feed(std::span<const int64_t>(&token, 1));
    }
    // The logits of the last feed.
    const std::vector<float>& logits() const { return logits_; }
    // The next cache position (tokens fed since the last reset).
    int64_t position() const { return position_; }
    int64_t context_length() const { return context_; }
    // The longest chunk one run takes (the program's bound on the tokens input).
    int64_t max_chunk() const { return max_chunk_; }
    // Forgets everything fed: position 0 and the cache's initial contents.
    void reset();

  private:
    void read_logits(const Tensor& out);
    void prepare_next_step();

    Runner& runner_;
    int64_t context_ = 0;
    int64_t max_chunk_ = 0;
    int64_t position_ = 0;
    std::vector<float> logits_;
};

}  // namespace wgx
