// wgx score MODEL: teacher forcing over a given token sequence. The first --prompt-length
// tokens are fed as a prefill, then every later one alone, as generation would feed it; the
// logits after each feed are scored against the token that follows: the log-likelihood per
// token, the perplexity, how often the most likely token was the next one, and optionally all
// the logits as a .npy file (what the LLM correctness checks compare with PyTorch's).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "io/npy.h"
#include "llm_common.h"
#include "text/tokenizer.h"
#include "wgx/wgx.h"

namespace wgx::cli {
namespace {

struct ScoreOptions {
    std::string model;
    std::string tokens;
    std::string text;
    std::string tokenizer;
    int prompt_length = 1;
    std::string logits_out;
    bool float16 = false;
    bool json = false;
};

// -log softmax(logits)[target], in double precision over a float row.
double negative_log_likelihood(const std::vector<float>& logits, int64_t target) {
    const double top = *std::max_element(logits.begin(), logits.end());
    double sum = 0;
    for (float v : logits) sum += std::exp(static_cast<double>(v) - top);
    return std::log(sum) + top - static_cast<double>(logits[static_cast<size_t>(target)]);
}

int64_t argmax(const std::vector<float>& logits) {
    return std::max_element(logits.begin(), logits.end()) - logits.begin();
}

int score(const GlobalOptions& global, const ScoreOptions& opt) {
    if (opt.text.empty() == opt.tokens.empty()) {
        throw InvalidArgument(
            "give the sequence: --tokens 1,2,3 or --text TEXT (with --tokenizer).");
    }
    if (!opt.text.empty() && opt.tokenizer.empty()) {
        throw InvalidArgument("--text needs --tokenizer FILE.");
    }
    std::vector<int64_t> tokens;
    if (!opt.text.empty()) {
        const auto tokenizer = text::Tokenizer::load(opt.tokenizer);
        for (int32_t id : tokenizer.encode(opt.text, tokenizer.bos_id().has_value())) {
            tokens.push_back(id);
        }
    } else {
        tokens = parse_tokens(opt.tokens, "--tokens");
    }
    const auto n = static_cast<int64_t>(tokens.size());
    if (opt.prompt_length < 1 || opt.prompt_length >= n) {
        throw InvalidArgument(fmt::format(
            "--prompt-length {} must be at least 1 and below the sequence's {} tokens (at least "
            "one token is scored).",
            opt.prompt_length, n));
    }
    const std::vector<ConstantMethod> methods = Program::constant_methods(opt.model);
    const int64_t context = context_length(methods, opt.model);
    const int64_t vocab = constant_int(methods, "get_vocab_size").value_or(-1);
    check_token_ids(tokens, vocab, "sequence");
    // The last token is only a target: the sequence less one is what the cache holds.
    if (n - 1 > context) {
        throw InvalidArgument(fmt::format(
            "the sequence has {} tokens; the context holds {} (the last one is never fed).", n,
            context));
    }

    Context ctx = Context::create(global.device);
    ProgramOptions program_options;
    program_options.float16 = opt.float16;
    Runner runner(ctx, Program::load(opt.model, program_options));
    Generator gen(runner, context);

    // Row r holds the logits after the token at position prompt_length - 1 + r, which predict
    // the token after it.
    const int64_t rows = n - opt.prompt_length;
    std::vector<float> all;
    std::vector<double> nll;
    std::vector<int64_t> best;
    size_t width = 0;
    auto take = [&](const std::vector<float>& logits) {
        if (width == 0) {
            width = logits.size();
            if (!opt.logits_out.empty()) all.reserve(width * static_cast<size_t>(rows));
        }
        const int64_t target = tokens[static_cast<size_t>(gen.position())];
        if (target >= static_cast<int64_t>(logits.size())) {
            throw InvalidArgument(
                fmt::format("token {} is outside the model's {} logits.", target, logits.size()));
        }
        nll.push_back(negative_log_likelihood(logits, target));
        best.push_back(argmax(logits));
        if (!opt.logits_out.empty()) all.insert(all.end(), logits.begin(), logits.end());
    };
    const auto t0 = std::chrono::steady_clock::now();
    take(gen.feed(std::span<const int64_t>(tokens.data(), static_cast<size_t>(opt.prompt_length))));
    for (int64_t i = opt.prompt_length; i < n - 1; ++i)
        take(gen.feed(tokens[static_cast<size_t>(i)]));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    double sum = 0;
    int64_t hits = 0;
    for (int64_t r = 0; r < rows; ++r) {
        sum += nll[static_cast<size_t>(r)];
        hits += best[static_cast<size_t>(r)] == tokens[static_cast<size_t>(opt.prompt_length + r)];
    }
    const double mean = sum / static_cast<double>(rows);
    if (!opt.logits_out.empty()) {
        io::NpyArray a;
        a.dtype = DType::f32;
        a.shape = {rows, static_cast<int64_t>(width)};
        a.data.resize(all.size() * sizeof(float));
        std::memcpy(a.data.data(), all.data(), a.data.size());
        io::write_npy(opt.logits_out, a);
    }
    if (opt.json) {
        nlohmann::json j;
        j["tokens"] = tokens;
        j["prompt_length"] = opt.prompt_length;
        j["scored_tokens"] = rows;
        j["nll"] = nll;
        j["argmax"] = best;
        j["mean_nll"] = mean;
        j["perplexity"] = std::exp(mean);
        j["argmax_hits"] = hits;
        j["seconds"] = seconds;
        fmt::print("{}\n", j.dump());
    } else {
        fmt::print(
            "{} tokens scored after a prompt of {}: mean negative log-likelihood {:.4f}, "
            "perplexity {:.3f}; the most likely token was the next one {} times ({:.1f} "
            "s)\n",
            rows, opt.prompt_length, mean, std::exp(mean), hits, seconds);
    }
    return 0;
}

}  // namespace

void add_score_command(Cli& cli, GlobalOptions& global) {
    static ScoreOptions opt;
    Command cmd = cli.subcommand(
        "score", "Teacher-force a token sequence through an LLM export: perplexity and logits");
    cmd.option("model", opt.model, "The .pte file (ExecuTorch's export_llama output)",
               {.required = true});
    cmd.option("--tokens", opt.tokens, "The sequence as token ids: 1,2,3");
    cmd.option("--text", opt.text, "The sequence as text (needs --tokenizer)");
    cmd.option("--tokenizer", opt.tokenizer,
               "tokenizer.json (or its directory), tiktoken or SentencePiece file");
    cmd.option("--prompt-length", opt.prompt_length,
               "Tokens fed as one prefill before the rest are fed one at a time",
               {.show_default = true});
    cmd.option("--logits-out", opt.logits_out,
               "Write every scored row's logits to this .npy (float32 [scored, vocab])");
    cmd.flag("--f16", opt.float16, "Keep float32 tensors in float16 on the GPU (needs shader-f16)");
    cmd.flag("--json", opt.json, "Print one JSON object (nll, argmax, perplexity)");
    cmd.on_run([&global] { return score(global, opt); });
}

}  // namespace wgx::cli
