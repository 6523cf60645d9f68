// wgx generate MODEL: an LLM export's prefill, then one submit per decode step (the same
// recording replayed), each new token streamed as it comes, and a timing line.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "bench_profile.h"
#include "commands.h"
#include "llm_common.h"
#include "text/chat.h"
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
    int warmup = 0;
    size_t top = 30;
    bool chat = false;
    std::string system;
};

// The median of a few timings (the upper one of the middle two for an even count).
double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Reply {
    std::vector<int64_t> tokens;  // the generated ids, a stop id included
    std::string text;             // what they say (with a tokenizer), a stop string cut off
    std::string reason;           // "max-new-tokens", "eos", "stop" or "context"
    double first_token_s = 0;     // since t0
};

// Samples from the logits of what `gen` was fed last, feeding each token back, until a stop
// id, the stop string, --max-new-tokens or the end of the context; the text (or, without a
// tokenizer, the ids) streamed to stdout unless --json.
Reply reply(const GenerateOptions& opt, Generator& gen, Sampler& sampler,
            const text::Tokenizer* tokenizer, const std::set<int64_t>& stop,
            std::chrono::steady_clock::time_point t0) {
    std::string reason = "max-new-tokens";
    std::optional<text::StreamDecoder> stream;
    if (tokenizer) stream.emplace(*tokenizer);
    std::vector<int64_t> tokens;
    double first_token_s = 0;
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
    return {std::move(tokens), std::move(text), std::move(reason), first_token_s};
}

// --chat: user turns from --prompt, then one per line of stdin, each rendered with the model's
// chat template over the whole conversation. The KV cache keeps what was said: when the new
// rendering begins with the text already fed, only the rest is encoded and fed; otherwise (a
// template that rewrites earlier turns) the cache starts again from the whole rendering.
int chat(const GenerateOptions& opt, Generator& gen, Sampler& sampler, const text::Tokenizer& tok,
         const std::set<int64_t>& stop) {
    const text::ChatTemplate tmpl(tok);
    std::vector<text::ChatMessage> messages;
    if (!opt.system.empty()) messages.push_back({"system", opt.system});
    std::string fed;  // the text whose tokens the cache holds
    const bool interactive = isatty(fileno(stdin)) != 0 && !opt.json;
    bool first = true;
    auto next_turn = [&](std::string& line) {
        const bool from_prompt = first && !opt.prompt.empty();
        first = false;
        if (from_prompt) {
            line = opt.prompt;
            return true;
        }
        if (interactive) {
            fmt::print(stderr, "you> ");
            std::fflush(stderr);
        }
        return static_cast<bool>(std::getline(std::cin, line));
    };
    std::string line;
    for (int turn = 1; next_turn(line);) {
        if (line.empty()) continue;
        messages.push_back({"user", line});
        const std::string rendered = tmpl.render(messages, /*add_generation_prompt=*/true);
        std::vector<int32_t> ids;
        const bool continues = !fed.empty() && rendered.starts_with(fed);
        if (continues) {
            ids = tok.encode(std::string_view(rendered).substr(fed.size()), false);
        } else {
            gen.reset();
            const std::string& bos = tok.chat().bos_token;
            const bool has_bos = !bos.empty() && rendered.starts_with(bos);
            ids = tok.encode(rendered, tok.bos_id().has_value() && !has_bos);
        }
        const int64_t needed = gen.position() + static_cast<int64_t>(ids.size());
        if (needed >= gen.context_length()) {
            throw InvalidArgument(
                fmt::format("turn {}: the conversation needs {} tokens; the context holds {}.",
                            turn, needed, gen.context_length()));
        }
        const auto t0 = std::chrono::steady_clock::now();
        gen.feed(std::vector<int64_t>(ids.begin(), ids.end()));
        const Reply r = reply(opt, gen, sampler, &tok, stop, t0);
        // The last token sampled before --max-new-tokens was not fed; its text is in the reply.
        if (r.reason == "max-new-tokens" && gen.position() < gen.context_length()) {
            gen.feed(r.tokens.back());
        }
        messages.push_back({"assistant", r.text});
        // A stop string may end the text inside a token the cache holds: read it all again.
        fed = r.reason == "stop" ? std::string() : rendered + r.text;
        if (opt.json) {
            nlohmann::json j;
            j["turn"] = turn;
            j["fed_tokens"] = ids;
            j["cache_kept"] = continues;
            j["tokens"] = r.tokens;
            j["text"] = r.text;
            j["stop_reason"] = r.reason;
            j["position"] = gen.position();
            fmt::print("{}\n", j.dump());
        } else {
            fmt::print("\n");
        }
        std::fflush(stdout);
        ++turn;
        if (r.reason == "context") break;
    }
    return 0;
}

// One prefill chunk of the prompt (as many of its tokens as a run takes, at position 0; the
// cache rows it writes are written again by any later prefill): its median wall time and the GPU
// time of every op. None when a fixed-size export takes more tokens than the prompt has.
struct PrefillProfile {
    int64_t tokens = 0;
    double wall_ms = 0;
    ProfileSummary profile;
};

std::optional<PrefillProfile> profile_prefill(Runner& runner, const Generator& gen,
                                              const std::vector<int64_t>& prompt, int runs) {
    const bool fixed = !runner.program().inputs()[0].dynamic_bound;
    const auto n = static_cast<int64_t>(prompt.size());
    if (fixed && n < gen.max_chunk()) return std::nullopt;
    PrefillProfile out;
    out.tokens = std::min(gen.max_chunk(), n);
    const int64_t pos[1] = {0};
    const std::vector<HostTensor> chunk = {
        HostTensor::of<int64_t>(
            std::span<const int64_t>(prompt.data(), static_cast<size_t>(out.tokens)),
            {1, out.tokens}),
        HostTensor::of<int64_t>(std::span<const int64_t>(pos), {1})};
    std::vector<double> walls;
    for (int i = 0; i < runs; ++i) {
        const auto ts = std::chrono::steady_clock::now();
        runner.run(chunk);
        runner.context().sync();
        walls.push_back(seconds_since(ts) * 1e3);
    }
    out.wall_ms = median(walls);
    out.profile = profile_runs([&] { return runner.profile(chunk); }, runs);
    return out;
}

int generate(const GlobalOptions& global, const GenerateOptions& opt) {
    if (opt.chat) {
        if (opt.profile) throw InvalidArgument("--profile times one decode step; not with --chat.");
        if (opt.tokenizer.empty() || !opt.prompt_tokens.empty()) {
            throw InvalidArgument(
                "--chat needs --tokenizer (with a chat template) and takes text turns: "
                "--prompt TEXT and/or lines on stdin, not --prompt-tokens.");
        }
    } else if (opt.prompt.empty() == opt.prompt_tokens.empty()) {
        throw InvalidArgument(
            "give a prompt: --prompt TEXT (with --tokenizer) or --prompt-tokens 1,2,3.");
    } else if (!opt.system.empty()) {
        throw InvalidArgument("--system is the system message of --chat.");
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
    if (!opt.prompt.empty() && !opt.chat) {
        // A model's BOS starts the prompt when its tokenizer has one (the tokenizer.json
        // post-processor that says so is not read by the library; docs/TOKENIZERS.md).
        for (int32_t id : tokenizer->encode(opt.prompt, tokenizer->bos_id().has_value())) {
            prompt.push_back(id);
        }
        if (prompt.empty()) throw InvalidArgument("--prompt encodes to no tokens.");
    } else if (!opt.prompt_tokens.empty()) {
        prompt = parse_tokens(opt.prompt_tokens, "--prompt-tokens");
    }
    SamplingOptions sampling;
    if (!opt.temperature.empty())
        sampling.temperature = parse_number(opt.temperature, "--temperature");
    sampling.top_k = opt.top_k;
    sampling.top_p = parse_number(opt.top_p, "--top-p");
    sampling.seed = opt.seed;
    Sampler sampler(sampling);

    const std::vector<ConstantMethod> methods = Program::constant_methods(opt.model);
    const int64_t context = context_length(methods, opt.model);
    std::set<int64_t> stop = eos_ids(methods);
    if (stop.empty() && tokenizer)
        stop.insert(tokenizer->eos_ids().begin(), tokenizer->eos_ids().end());
    const int64_t vocab = constant_int(methods, "get_vocab_size").value_or(-1);
    if (tokenizer && vocab > 0 && static_cast<int64_t>(tokenizer->vocab_size()) > vocab) {
        throw InvalidArgument(fmt::format("{} has {} tokens; the model's vocabulary {}.",
                                          opt.tokenizer, tokenizer->vocab_size(), vocab));
    }
    check_token_ids(prompt, vocab, "prompt");
    if (static_cast<int64_t>(prompt.size()) >= context) {
        throw InvalidArgument(fmt::format(
            "the prompt has {} tokens; the context holds {} (room is needed for one more).",
            prompt.size(), context));
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
    Generator gen(runner, context);
    if (!opt.json) {
        fmt::print(stderr, "device: {}; context {} tokens, prefill chunks of up to {}\n",
                   ctx.device_info().adapter.name, context, gen.max_chunk());
    }

    if (opt.chat) return chat(opt, gen, sampler, *tokenizer, stop);

    // Warm-up rounds record the prefill's and a decode step's work (pipelines, bind groups)
    // before the timed round, then forget what they fed.
    for (int i = 0; i < opt.warmup; ++i) {
        gen.feed(prompt);
        if (gen.position() < gen.context_length()) gen.feed(prompt.front());
        gen.reset();
    }
    const auto t0 = std::chrono::steady_clock::now();
    gen.feed(prompt);
    const double prefill_s = seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    const Reply r = reply(opt, gen, sampler, tokenizer ? &*tokenizer : nullptr, stop, t0);
    const std::vector<int64_t>& tokens = r.tokens;
    const std::string& text = r.text;
    const std::string& reason = r.reason;
    const double first_token_s = r.first_token_s;
    const double decode_s = seconds_since(t1);
    const double prefill_tps = static_cast<double>(prompt.size()) / prefill_s;
    const auto decode_steps = static_cast<double>(tokens.size() - 1);
    const double decode_tps = decode_steps > 0 ? decode_steps / decode_s : 0.0;
    std::optional<ProfileSummary> profile;
    std::optional<PrefillProfile> prefill;
    double step_ms = 0, host_ms = 0, step_read_ms = 0, sample_ms = 0, pipelined_ms = 0;
    RunTimes host_phases;  // medians of each phase
    if (opt.profile) {
        // One more decode step, run again and again at the same position (each run writes the
        // same cache row): its median wall time and the GPU time of every op.
        const int64_t pos[1] = {std::min(gen.position(), gen.context_length() - 1)};
        const int64_t tok[1] = {tokens.back()};
        const std::vector<HostTensor> step = {
            HostTensor::of<int64_t>(std::span<const int64_t>(tok), {1, 1}),
            HostTensor::of<int64_t>(std::span<const int64_t>(pos), {1})};
        // What a generated token costs beside the step: the logits read back, then sampled.
        // And the host's share of the step: run() returns once the work is submitted.
        std::vector<double> walls, host_walls, read_walls, sample_walls;
        std::vector<double> prepare_walls, write_walls, submit_walls, ahead_walls;
        for (int i = 0; i < opt.profile_runs; ++i) {
            auto ts = std::chrono::steady_clock::now();
            runner.run(step);
            host_walls.push_back(seconds_since(ts) * 1e3);
            const RunTimes phases = runner.last_run_times();
            prepare_walls.push_back(phases.prepare_ms);
            write_walls.push_back(phases.write_ms);
            submit_walls.push_back(phases.submit_ms);
            ahead_walls.push_back(phases.encode_ahead_ms);
            ctx.sync();
            walls.push_back(seconds_since(ts) * 1e3);
            ts = std::chrono::steady_clock::now();
            const std::vector<Tensor> out = runner.run(step);
            (void)out.at(0).get_bytes();
            read_walls.push_back(seconds_since(ts) * 1e3);
            ts = std::chrono::steady_clock::now();
            (void)sampler.pick(gen.logits());
            sample_walls.push_back(seconds_since(ts) * 1e3);
        }
        // The same step submitted profile_runs times without a wait between: the GPU's time for
        // a step (without timestamps) when the host keeps ahead of it, or the host's when not.
        {
            const auto ts = std::chrono::steady_clock::now();
            for (int i = 0; i < opt.profile_runs; ++i) runner.run(step);
            ctx.sync();
            pipelined_ms = seconds_since(ts) * 1e3 / opt.profile_runs;
        }
        step_ms = median(walls);
        host_ms = median(host_walls);
        host_phases = {median(prepare_walls), median(write_walls), median(submit_walls),
                       median(ahead_walls)};
        step_read_ms = median(read_walls);
        sample_ms = median(sample_walls);
        profile = profile_runs([&] { return runner.profile(step); }, opt.profile_runs);
        prefill = profile_prefill(runner, gen, prompt, std::min(opt.profile_runs, 5));
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
        j["warmup"] = opt.warmup;
        // The engine's GPU buffers after the run: constants, pools, caches (no driver overhead).
        j["gpu_allocated_bytes"] = ctx.allocated_bytes();
        if (profile) {
            j["decode_step_ms"] = step_ms;
            j["decode_step_host_ms"] = host_ms;
            j["decode_step_pipelined_ms"] = pipelined_ms;
            j["decode_step_host_phases_ms"] = {{"prepare", host_phases.prepare_ms},
                                               {"write_inputs", host_phases.write_ms},
                                               {"submit", host_phases.submit_ms},
                                               {"encode_ahead", host_phases.encode_ahead_ms}};
            j["decode_step_with_logits_ms"] = step_read_ms;
            j["sample_ms"] = sample_ms;
            j["decode_profile"] = profile_json(*profile);
        }
        if (prefill) {
            j["prefill_chunk_tokens"] = prefill->tokens;
            j["prefill_chunk_ms"] = prefill->wall_ms;
            j["prefill_profile"] = profile_json(prefill->profile);
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
            fmt::print(stderr,
                       "\none decode step at position {}: median {:.3f} ms ({:.3f} ms of it on the "
                       "host before the wait); {:.3f} ms a step when {} are submitted without "
                       "waiting; with its logits read back {:.3f} ms; sampling {:.3f} ms\n",
                       std::min(gen.position(), gen.context_length() - 1), step_ms, host_ms,
                       pipelined_ms, opt.profile_runs, step_read_ms, sample_ms);
            fmt::print(stderr,
                       "the host's share by phase (medians): sizes and recording {:.3f} ms, "
                       "inputs written {:.3f} ms, submission {:.3f} ms, the next step encoded "
                       "ahead {:.3f} ms\n",
                       host_phases.prepare_ms, host_phases.write_ms, host_phases.submit_ms,
                       host_phases.encode_ahead_ms);
            std::fflush(stderr);
            print_profile(*profile, step_ms, opt.top);
        }
        if (prefill) {
            fmt::print(stderr, "\none prefill chunk of {} tokens at position 0: median {:.3f} ms\n",
                       prefill->tokens, prefill->wall_ms);
            std::fflush(stderr);
            print_profile(prefill->profile, prefill->wall_ms, opt.top);
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
    cmd.flag("--chat", opt.chat,
             "Chat: turns from --prompt and stdin lines, the model's chat template applied, the "
             "KV cache kept across turns");
    cmd.option("--system", opt.system, "The system message of --chat");
    cmd.flag("--f16", opt.float16,
             "Keep float32 tensors in float16 on the GPU (needs shader-f16; logits stay float32)");
    cmd.option("--warmup", opt.warmup,
               "Feed the prompt and one decode step this many times (then reset) before the "
               "timed generation, so that its rates leave out the first recording",
               {.show_default = true, .range = std::pair{0, 100}});
    cmd.flag("--profile", opt.profile,
             "After generating, time one more decode step and one prefill chunk of the prompt: GPU "
             "time per op from timestamps");
    cmd.option("--profile-runs", opt.profile_runs, "Runs of that step for --profile (median)",
               {.show_default = true, .range = std::pair{1, 10000}});
    cmd.option("--top", opt.top, "Rows of the --profile table", {.show_default = true});
    cmd.on_run([&global] { return generate(global, opt); });
}

}  // namespace wgx::cli
