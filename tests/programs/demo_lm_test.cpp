// The demo LM (models/demo-lm, trained by python/demo_lm) through the tokenizer and the engine
// against its references (models/demo-lm/golden.json, written by check_engine.py): the prompt
// ids of Hugging Face `tokenizers`, and PyTorch eager's greedy tokens from the same checkpoint
// in float32. Held-out paragraphs (one with non-ASCII text) and chat prompts with special
// tokens.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "text/chat.h"
#include "text/tokenizer.h"
#include "wgx/wgx.h"

namespace wgx {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(WGX_SOURCE_DIR) / "models" / "demo-lm";

TEST(DemoLm, PromptIdsAndGreedyTokensMatchTheReferences) {
    if (!fs::exists(kDir / "model.pte")) GTEST_SKIP() << "no " << (kDir / "model.pte");
    nlohmann::json golden;
    std::ifstream(kDir / "golden.json") >> golden;
    ASSERT_GE(golden.size(), 4u);
    const text::Tokenizer tok = text::Tokenizer::load(kDir);
    Context ctx = Context::create();
    Runner runner(ctx, Program::load(kDir / "model.pte"));
    Generator gen(runner, 256);
    Sampler greedy({});
    for (const auto& g : golden) {
        const std::string prompt = g["prompt"];
        const std::vector<int32_t> ids = tok.encode(prompt, /*add_bos=*/true);
        const auto want_ids = g["prompt_tokens"].get<std::vector<int32_t>>();
        EXPECT_EQ(ids, want_ids) << prompt;
        const auto want = g["tokens"].get<std::vector<int64_t>>();
        gen.reset();
        gen.feed(std::vector<int64_t>(ids.begin(), ids.end()));
        std::vector<int64_t> got;
        while (got.size() < want.size()) {
            got.push_back(greedy.pick(gen.logits()));
            if (tok.is_eos(static_cast<int32_t>(got.back()))) break;
            gen.feed(got.back());
        }
        // A step whose top two logits are closer than float32 noise could go either way on
        // another GPU; the references' smallest margins are 1e-3 and above.
        EXPECT_EQ(got, want) << prompt << " (smallest eager top-two margin "
                             << g["min_top2_margin"].get<double>() << ")";
    }
}

// The chat template renders as Python's jinja2 (what Hugging Face's apply_chat_template uses)
// renders it; the strings below are jinja2's output for the same messages.
TEST(DemoLm, ChatTemplateRendersAsJinja2Does) {
    if (!fs::exists(kDir / "tokenizer_config.json")) GTEST_SKIP() << "no demo-lm tokenizer";
    const text::Tokenizer tok = text::Tokenizer::load(kDir);
    const text::ChatTemplate tmpl(tok);
    const std::vector<text::ChatMessage> messages = {{"user", "What is a list?"},
                                                     {"assistant", "A sequence."},
                                                     {"user", "And a tuple? ünïcode"}};
    EXPECT_EQ(tmpl.render(messages, true),
              "<|bos|><|user|>What is a list?<|end|><|assistant|>A sequence.<|end|><|user|>And a "
              "tuple? ünïcode<|end|><|assistant|>");
    EXPECT_EQ(tmpl.render(std::span(messages).first(2), false),
              "<|bos|><|user|>What is a list?<|end|><|assistant|>A sequence.<|end|>");
}

// A second turn fed after the first one's cache (only the new part of the rendering) gives the
// same reply as the whole conversation fed from an empty cache.
TEST(DemoLm, SecondTurnOverTheKeptCacheEqualsAFreshPrefill) {
    if (!fs::exists(kDir / "model.pte")) GTEST_SKIP() << "no " << (kDir / "model.pte");
    const text::Tokenizer tok = text::Tokenizer::load(kDir);
    const text::ChatTemplate tmpl(tok);
    Context ctx = Context::create();
    Runner runner(ctx, Program::load(kDir / "model.pte"));
    Generator gen(runner, 256);
    Sampler greedy({});
    auto encode = [&](std::string_view text) {
        const std::vector<int32_t> ids = tok.encode(text, false);
        return std::vector<int64_t>(ids.begin(), ids.end());
    };
    auto answer = [&](size_t most) {
        std::vector<int64_t> out;
        while (out.size() < most) {
            out.push_back(greedy.pick(gen.logits()));
            if (tok.is_eos(static_cast<int32_t>(out.back()))) break;
            gen.feed(out.back());
        }
        return out;
    };
    std::vector<text::ChatMessage> messages = {{"user", "What is a decorator?"}};
    const std::string first = tmpl.render(messages, true);
    gen.feed(encode(first));
    std::vector<int64_t> reply = answer(64);
    ASSERT_TRUE(tok.is_eos(static_cast<int32_t>(reply.back()))) << "the first reply did not end";
    reply.pop_back();
    const std::vector<int32_t> reply_ids(reply.begin(), reply.end());
    messages.push_back({"assistant", tok.decode(reply_ids)});
    messages.push_back({"user", "And a class?"});
    const std::string second = tmpl.render(messages, true);
    ASSERT_TRUE(second.starts_with(first + messages[1].content));
    gen.feed(encode(std::string_view(second).substr(first.size() + messages[1].content.size())));
    const std::vector<int64_t> kept = answer(16);
    gen.reset();
    gen.feed(encode(second));
    EXPECT_EQ(answer(16), kept);
}

}  // namespace
}  // namespace wgx
