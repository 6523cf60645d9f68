// The demo LM (models/demo-lm, trained by python/demo_lm) through the tokenizer and the engine
// against its references (models/demo-lm/golden.json, written by check_engine.py): the prompt
// ids of Hugging Face `tokenizers`, and PyTorch eager's greedy tokens from the same checkpoint
// in float32. Held-out paragraphs (one with non-ASCII text) and chat prompts with special
// tokens.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace wgx
