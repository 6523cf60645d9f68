// wgx generate MODEL: an LLM export's prefill, then one submit per decode step (the same
// recording replayed), each new token streamed as it comes, and a timing line.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "bench_profile.h"
#include "commands.h"
#include "text/tokenizer.h"
#include "wgx/wgx.h"

namespace wgx::cli {
namespace {

struct GenerateOptions {
    std::string model;
    std::string prompt_tokens;
    std::string prompt;
    std::string tokenizer;
    std::string stop_text;
    int max_new_tokens = 64;
    std::string temperature;
    int top_k = 0;
    std::string top_p = "1";
    uint32_t seed = 0;
    bool json = false;
    bool float16 = false;
    bool profile = false;
    int profile_runs = 10;
    size_t top = 30;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double parse_number(const std::string& text, const char* what) {
    try {
        size_t used = 0;
        const double v = std::stod(text, &used);
        if (used == text.size()) return v;
    } catch (const std::exception&) {}
    throw InvalidArgument(fmt::format("{} \"{}\" is not a number.", what, text));
}

// "1,2,3" -> {1, 2, 3}.
std::vector<int64_t> parse_tokens(const std::string& text) {
    std::vector<int64_t> out;
    size_t at = 0;
    while (at <= text.size()) {
        const size_t comma = std::min(text.find(',', at), text.size());
        const std::string item = text.substr(at, comma - at);
        try {
            size_t used = 0;
            out.push_back(std::stoll(item, &used));
            if (used != item.size()) throw std::invalid_argument(item);
        } catch (const std::exception&) {
            throw InvalidArgument(
                fmt::format("--prompt-tokens: \"{}\" is not a token id (expected 1,2,3).", item));
        }
        at = comma + 1;
    }
    return out;
}

// One integer that a constant method returns, if the file has that method.
std::optional<int64_t> constant_int(const std::vector<ConstantMethod>& methods,
                                    std::string_view name) {
    for (const auto& m : methods) {
        if (m.name == name && m.values.size() == 1) {
            if (const auto* v = std::get_if<int64_t>(&m.values[0])) return *v;
        }
    }
    return std::nullopt;
}

std::set<int64_t> eos_ids(const std::vector<ConstantMethod>& methods) {
    std::set<int64_t> out;
    for (const auto& m : methods) {
        if (m.name != "get_eos_ids" && m.name != "get_eos_id") continue;
        for (const auto& v : m.values) {
            if (const auto* id = std::get_if<int64_t>(&v)) out.insert(*id);
        }
    }
    return out;
}

int generate(const GlobalOptions& global, const GenerateOptions& opt) {
    if (opt.prompt.empty() == opt.prompt_tokens.empty()) {
        throw InvalidArgument(
            "give a prompt: --prompt TEXT (with --tokenizer) or --prompt-tokens 1,2,3.");
    }
    if ((!opt.prompt.empty() || !opt.stop_text.empty()) && opt.tokenizer.empty()) {
        throw InvalidArgument("--prompt and --stop are text: they need --tokenizer FILE.");
    }
    if (opt.max_new_tokens < 1) {
        throw InvalidArgument(
            fmt::format("--max-new-tokens {} must be at least 1.", opt.max_new_tokens));
    }
    std::optional<text::Tokenizer> tokenizer;
    if (!opt.tokenizer.empty()) tokenizer = text::Tokenizer::load(opt.tokenizer);
    std::vector<int64_t> prompt;
    if (!opt.prompt.empty()) {
        // A model's BOS starts the prompt when its tokenizer has one (the tokenizer.json
        // post-processor that says so is not read by the library; docs/TOKENIZERS.md).
        for (int32_t id : tokenizer->encode(opt.prompt, tokenizer->bos_id().has_value())) {
            prompt.push_back(id);
        }
        if (prompt.empty()) throw InvalidArgument("--prompt encodes to no tokens.");
    } else {
        prompt = parse_tokens(opt.prompt_tokens);
    }
    SamplingOptions sampling;
    if (!opt.temperature.empty())
        sampling.temperature = parse_number(opt.temperature, "--temperature");
    sampling.top_k = opt.top_k;
    sampling.top_p = parse_number(opt.top_p, "--top-p");
    sampling.seed = opt.seed;
    Sampler sampler(sampling);

    const std::vector<ConstantMethod> methods = Program::constant_methods(opt.model);
    const std::optional<int64_t> context = constant_int(methods, "get_max_context_len").has_value()
                                               ? constant_int(methods, "get_max_context_len")
                                               : constant_int(methods, "get_max_seq_len");
    if (!context) {
        throw InvalidArgument(fmt::format(
            "{} does not say its context length (no get_max_context_len or get_max_seq_len "
            "method): is it an LLM export?",
            opt.model));
    }
    std::set<int64_t> stop = eos_ids(methods);
    if (stop.empty() && tokenizer)
        stop.insert(tokenizer->eos_ids().begin(), tokenizer->eos_ids().end());
    const int64_t vocab = constant_int(methods, "get_vocab_size").value_or(-1);
    if (tokenizer && vocab > 0 && static_cast<int64_t>(tokenizer->vocab_size()) > vocab) {
        throw InvalidArgument(fmt::format("{} has {} tokens; the model's vocabulary {}.",
                                          opt.tokenizer, tokenizer->vocab_size(), vocab));
    }
    for (int64_t t : prompt) {
        if (t < 0 || (vocab > 0 && t >= vocab)) {
            throw InvalidArgument(
                fmt::format("prompt token {} is outside the vocabulary of {}.", t, vocab));
        }
    }
    if (static_cast<int64_t>(prompt.size()) >= *context) {
        throw InvalidArgument(fmt::format(
            "the prompt has {} tokens; the context holds {} (room is needed for one more).",
            prompt.size(), *context));
    }

    Context ctx = Context::create(global.device);
    if (opt.profile && !ctx.device_info().features.timestamp_query) {
        throw InvalidArgument(
            fmt::format("--profile needs GPU timestamps; {} does not offer the timestamp-query "
                        "feature.",
                        ctx.device_info().adapter.name));
    }
    ProgramOptions program_options;
    program_options.float16 = opt.float16;
    Runner runner(ctx, Program::load(opt.model, program_options));
    Generator gen(runner, *context);
    if (!opt.json) {
        fmt::print(stderr, "device: {}; context {} tokens, prefill chunks of up to {}\n",
                   ctx.device_info().adapter.name, *context, gen.max_chunk());
    }

    const auto t0 = std::chrono::steady_clock::now();
    gen.feed(prompt);
    const double prefill_s = seconds_since(t0);
    std::vector<int64_t> tokens;
    const auto t1 = std::chrono::steady_clock::now();
    double first_token_s = 0;
    std::string reason = "max-new-tokens";
    std::optional<text::StreamDecoder> stream;
    if (tokenizer) stream.emplace(*tokenizer);
    std::string text;    // what the tokens say so far
    size_t printed = 0;  // bytes of `text` written to stdout
    // Writes `text` up to `end`, never into a UTF-8 character.
    auto print_up_to = [&](size_t end) {
        while (end > printed && end < text.size() &&
               (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
            --end;
        }
        if (end > printed && !opt.json) {
            fmt::print("{}", text.substr(printed, end - printed));
            std::fflush(stdout);
            printed = end;
        }
    };
    while (true) {
        const int64_t next = sampler.pick(gen.logits());
        if (tokens.empty()) first_token_s = seconds_since(t0);
        tokens.push_back(next);
        const bool eos = stop.count(next) != 0;
        if (stream) {
            if (!eos) text += stream->push(static_cast<int32_t>(next));
            // A stop string ends the text before it; until it can no longer begin in what
            // came, its length less one byte is held back.
            if (!opt.stop_text.empty()) {
                if (const size_t at = text.find(opt.stop_text); at != std::string::npos) {
                    text.resize(at);
                    print_up_to(text.size());
                    reason = "stop";
                    break;
                }
                print_up_to(text.size() > opt.stop_text.size() - 1
                                ? text.size() - (opt.stop_text.size() - 1)
                                : 0);
            } else {
                print_up_to(text.size());
            }
        } else if (!opt.json) {
            fmt::print("{}{}", tokens.size() == 1 ? "" : " ", next);
            std::fflush(stdout);
        }
        if (eos) {
            reason = "eos";
            break;
        }
        if (static_cast<int>(tokens.size()) >= opt.max_new_tokens) break;
        if (gen.position() >= gen.context_length()) {
            reason = "context";
            break;
        }
        gen.feed(next);
    }
    if (stream && reason != "stop") {
        text += stream->flush();
        print_up_to(text.size());
    }
    const double decode_s = seconds_since(t1);
    const double prefill_tps = static_cast<double>(prompt.size()) / prefill_s;
    const auto decode_steps = static_cast<double>(tokens.size() - 1);
    const double decode_tps = decode_steps > 0 ? decode_steps / decode_s : 0.0;
    std::optional<ProfileSummary> profile;
    double step_ms = 0;
    if (opt.profile) {
        // One more decode step, run again and again at the same position (each run writes the
        // same cache row): its median wall time and the GPU time of every op.
        const int64_t pos[1] = {std::min(gen.position(), gen.context_length() - 1)};
        const int64_t tok[1] = {tokens.back()};
        const std::vector<HostTensor> step = {
            HostTensor::of<int64_t>(std::span<const int64_t>(tok), {1, 1}),
            HostTensor::of<int64_t>(std::span<const int64_t>(pos), {1})};
        std::vector<double> walls;
        for (int i = 0; i < opt.profile_runs; ++i) {
            const auto ts = std::chrono::steady_clock::now();
            runner.run(step);
            ctx.sync();
            walls.push_back(seconds_since(ts) * 1e3);
        }
        std::nth_element(walls.begin(), walls.begin() + walls.size() / 2, walls.end());
        step_ms = walls[walls.size() / 2];
        profile = profile_runs([&] { return runner.profile(step); }, opt.profile_runs);
    }
    if (opt.json) {
        nlohmann::json j;
        j["prompt_tokens"] = prompt;
        j["tokens"] = tokens;
        if (tokenizer) {
            j["text"] = text;
        } else {
            j["text"] = nullptr;  // ids only, without a tokenizer
        }
        j["stop_reason"] = reason;
        j["time_to_first_token_ms"] = first_token_s * 1e3;
        j["prefill_tokens_per_s"] = prefill_tps;
        j["decode_tokens_per_s"] = decode_tps;
        if (profile) {
            j["decode_step_ms"] = step_ms;
            j["decode_profile"] = profile_json(*profile);
        }
        fmt::print("{}\n", j.dump());
    } else {
        fmt::print("\n");
        std::fflush(stdout);
        fmt::print(stderr,
                   "time: first token after {:.1f} ms; prefill {} tokens, {:.1f} tok/s; decode {} "
                   "tokens, {:.1f} tok/s (stopped: {})\n",
                   first_token_s * 1e3, prompt.size(), prefill_tps, tokens.size() - 1, decode_tps,
                   reason);
        if (profile) {
            fmt::print(stderr, "\none decode step at position {}: median {:.3f} ms\n",
                       std::min(gen.position(), gen.context_length() - 1), step_ms);
            std::fflush(stderr);
            print_profile(*profile, step_ms, opt.top);
        }
    }
    return 0;
}

}  // namespace

void add_generate_command(Cli& cli, GlobalOptions& global) {
    static GenerateOptions opt;
    Command cmd = cli.subcommand("generate", "Generate tokens with an LLM export (KV cache)");
    cmd.option("model", opt.model, "The .pte file (ExecuTorch's export_llama output)",
               {.required = true});
    cmd.option("--prompt-tokens", opt.prompt_tokens, "The prompt as token ids: 1,2,3");
    cmd.option("--prompt", opt.prompt, "The prompt as text (needs --tokenizer)");
    cmd.option("--tokenizer", opt.tokenizer,
               "tokenizer.json (or its directory), tiktoken or SentencePiece file");
    cmd.option("--stop", opt.stop_text,
               "Stop where the text reaches this string (needs --tokenizer)");
    cmd.option("--max-new-tokens", opt.max_new_tokens, "Tokens to generate at most",
               {.show_default = true});
    cmd.option("--temperature", opt.temperature, "Sample at this temperature (default: greedy)");
    cmd.option("--top-k", opt.top_k, "Sample among the k most likely (0: all)",
               {.show_default = true});
    cmd.option("--top-p", opt.top_p, "Sample within this probability mass", {.show_default = true});
    cmd.option("--seed", opt.seed, "Seed of the sampling", {.show_default = true});
    cmd.flag("--json", opt.json, "Print one JSON object (tokens, rates) instead of a stream");
    cmd.flag("--f16", opt.float16,
             "Keep float32 tensors in float16 on the GPU (needs shader-f16; logits stay float32)");
    cmd.flag("--profile", opt.profile,
             "After generating, time one more decode step: GPU time per op from timestamps");
    cmd.option("--profile-runs", opt.profile_runs, "Runs of that step for --profile (median)",
               {.show_default = true, .range = std::pair{1, 10000}});
    cmd.option("--top", opt.top, "Rows of the --profile table", {.show_default = true});
    cmd.on_run([&global] { return generate(global, opt); });
}

}  // namespace wgx::cli
