// Classification: the k most probable classes of a [1, K] output.
#pragma once

#include <span>
#include <vector>

namespace wgx::vision {

struct ClassScore {
    int cls = 0;
    double score = 0;  // softmax probability (or the model's own probability)
};

// `logits`: softmax first (in double, max-subtracted); else the values are probabilities
// already. Highest first; equal scores keep the lower class first. Throws Error when the
// output holds a NaN or an infinity (a broken model must not print a confident label).
std::vector<ClassScore> top_k(std::span<const float> output, bool logits, int k);

}  // namespace wgx::vision
