// The decoder LLMs of tests/llm (python/export_llm.py: ExecuTorch's own exporter, small dims,
// seeded weights) against PyTorch eager with the same weights:
//   - teacher-forced logits: the reference's tokens fed one at a time after a prefill, every
//     step up to the last position of the cache within DESIGN §6's fp32 threshold (relative
//     L2 <= max(1e-4, 4 x PyTorch's own fp32-vs-fp64 error), and max abs error relative to the
//     row's largest logit);
//   - prefills of several lengths (1, the fixture's prompt, the bound) against the logits of
//     the position they end at;
//   - free-running greedy tokens identical to the reference's;
//   - state: reset_state() gives the first run's results again, two Runners keep their own.
// Every fixture has the three programs (model.pte, plain.pte, static.pte) as test cases: one
// that meta.json's "skipped_programs" says was not exported (and why) is skipped with that
// reason; one missing without a reason fails.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>

#include "llm_steps.h"

namespace wgx {
namespace {

namespace fs = std::filesystem;
using llm_test::max_abs_rel;
using llm_test::rel_l2;

Context& ctx() {
    static Context c = Context::create();
    return c;
}

struct Fixture {
    fs::path dir, program;
    nlohmann::json meta;
    std::vector<int64_t> tokens;
    io::NpyArray logits, logits64;
    int64_t vocab = 0;

    // `pte`: one of the fixture's programs (model.pte delegated, plain.pte without delegate).
    explicit Fixture(const fs::path& pte) : dir(pte.parent_path()), program(pte) {
        std::ifstream(dir / "meta.json") >> meta;
        tokens = llm_test::read_tokens(dir / "tokens.npy");
        logits = io::read_npy(dir / "logits.npy");
        logits64 = io::read_npy(dir / "logits64.npy");
        vocab = logits.shape.at(1);
    }
    int64_t prompt_len() const { return meta["prompt_len"].get<int64_t>(); }
    int64_t max_seq_len() const { return meta["max_seq_len"].get<int64_t>(); }
    std::vector<double> row64(int64_t t) const {
        const double* p = reinterpret_cast<const double*>(logits64.data.data()) + t * vocab;
        return std::vector<double>(p, p + vocab);
    }
    std::vector<double> row32(int64_t t) const {
        const float* p = reinterpret_cast<const float*>(logits.data.data()) + t * vocab;
        return std::vector<double>(p, p + vocab);
    }
};

// The programs named `files` of every fixture directory, sorted.
std::vector<fs::path> programs_named(std::initializer_list<const char*> files) {
    std::vector<fs::path> out;
    const fs::path root = fs::path(WGX_TESTS_DIR) / "llm";
    if (!fs::is_directory(root)) return out;
    for (const auto& e : fs::directory_iterator(root)) {
        if (!fs::exists(e.path() / "meta.json")) continue;
        for (const char* file : files) {
            if (fs::exists(e.path() / file)) out.push_back(e.path() / file);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The three programs of every fixture directory, present or not (see WGX_REQUIRE_PROGRAM).
std::vector<fs::path> fixture_programs() {
    std::vector<fs::path> out;
    const fs::path root = fs::path(WGX_TESTS_DIR) / "llm";
    if (!fs::is_directory(root)) return out;
    for (const auto& e : fs::directory_iterator(root)) {
        if (!fs::exists(e.path() / "meta.json")) continue;
        for (const char* file : {"model.pte", "plain.pte", "static.pte"}) {
            out.push_back(e.path() / file);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Why `pte` is missing when its fixture says so, or nullopt (it exists, or nothing says why).
std::optional<std::string> skip_reason(const fs::path& pte) {
    if (fs::exists(pte)) return std::nullopt;
    nlohmann::json meta;
    std::ifstream(pte.parent_path() / "meta.json") >> meta;
    const auto& skipped = meta.value("skipped_programs", nlohmann::json::object());
    const auto it = skipped.find(pte.filename().string());
    if (it == skipped.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
}

// Skips a test of a program that its fixture did not export (naming it and the reason); fails
// one that is missing with no reason given.
#define WGX_REQUIRE_PROGRAM(pte)                                                \
    do {                                                                        \
        if (const auto why = skip_reason(pte)) {                                \
            GTEST_SKIP() << (pte).filename().string() << " of "                 \
                         << (pte).parent_path().filename().string()             \
                         << " is not exported: " << *why;                       \
        }                                                                       \
        ASSERT_TRUE(fs::exists(pte)) << (pte) << " is missing and meta.json's " \
                                     << "skipped_programs does not say why";    \
    } while (0)

// Runs tokens [from, from + n) of the fixture at position `from`; the logits of the last one.
std::vector<float> step(Runner& r, const Fixture& f, int64_t from, int64_t n) {
    return llm_test::step(r, f.tokens, from, n);
}

class LlmFixture : public ::testing::TestWithParam<fs::path> {};

// The threshold of DESIGN §6 for one position: relative L2 <= max(1e-4, 4 x PyTorch's fp32 error
// on that row); max abs error relative to the row's largest magnitude within 10 x that.
void expect_row_close(const Fixture& f, const std::vector<float>& got, int64_t t,
                      const std::string& what) {
    ASSERT_EQ(got.size(), static_cast<size_t>(f.vocab)) << what;
    const std::vector<double> want = f.row64(t);
    std::vector<float> torch32(f.vocab);
    const std::vector<double> r32 = f.row32(t);
    for (int64_t i = 0; i < f.vocab; ++i) torch32[i] = static_cast<float>(r32[i]);
    const double torch_err = rel_l2(torch32, want);
    const double limit = std::max(1e-4, 4 * torch_err);
    const double e = rel_l2(got, want);
    EXPECT_LE(e, limit) << what << " position " << t;
    EXPECT_LE(max_abs_rel(got, want), 10 * limit) << what << " position " << t;
}

TEST_P(LlmFixture, TeacherForcedLogitsMatchEagerAtEveryStep) {
    WGX_REQUIRE_PROGRAM(GetParam());
    const Fixture f(GetParam());
    Runner r(ctx(), Program::load(f.program));
    ASSERT_TRUE(r.has_state());
    const int64_t p = f.prompt_len();
    expect_row_close(f, step(r, f, 0, p), p - 1, "prefill");
    const int64_t steps = static_cast<int64_t>(f.tokens.size()) - p;
    ASSERT_GE(steps, 32);
    for (int64_t t = p; t < static_cast<int64_t>(f.tokens.size()); ++t) {
        expect_row_close(f, step(r, f, t, 1), t, "decode");
    }
    // The cache position is a live integer: every decode step replays one recording.
    const bool dynamic = r.program().inputs().at(0).dynamic_bound;
    EXPECT_EQ(r.recordings(), dynamic ? 2u : 1u) << "a prompt length (if any) and one token";
}

TEST_P(LlmFixture, PrefillsOfSeveralLengthsEndAtTheirPositionsLogits) {
    WGX_REQUIRE_PROGRAM(GetParam());
    const Fixture f(GetParam());
    Runner r(ctx(), Program::load(f.program));
    const bool dynamic = r.program().inputs().at(0).dynamic_bound;
    const int64_t bound = dynamic ? r.program().inputs().at(0).shape.at(1) : f.max_seq_len() - 1;
    EXPECT_EQ(bound, f.max_seq_len() - 1);
    // 1, the prompt, 64 where the bound allows it (smollm2's context is 96), and the bound.
    std::vector<int64_t> lengths{1, f.prompt_len()};
    if (bound > 64 && static_cast<int64_t>(f.tokens.size()) > 64) lengths.push_back(64);
    lengths.push_back(std::min<int64_t>(bound, f.tokens.size()));
    for (int64_t n : lengths) {
        r.reset_state();
        expect_row_close(f, step(r, f, 0, n), n - 1, "prefill of " + std::to_string(n));
    }
    // A prefill in two parts: the second starts where the first ended, over its cache.
    r.reset_state();
    step(r, f, 0, 3);
    expect_row_close(f, step(r, f, 3, 5), 7, "second prefill");
}

TEST_P(LlmFixture, GreedyTokensMatchEager) {
    WGX_REQUIRE_PROGRAM(GetParam());
    const Fixture f(GetParam());
    Runner r(ctx(), Program::load(f.program));
    const int64_t p = f.prompt_len();
    std::vector<int64_t> generated(f.tokens.begin(), f.tokens.begin() + p);
    std::vector<float> logits = step(r, f, 0, p);
    while (generated.size() < f.tokens.size()) {
        const int64_t next = std::max_element(logits.begin(), logits.end()) - logits.begin();
        generated.push_back(next);
        const int64_t pos[1] = {static_cast<int64_t>(generated.size()) - 1};
        const int64_t tok[1] = {next};
        logits = r.run({HostTensor::of<int64_t>(std::span<const int64_t>(tok), {1, 1}),
                        HostTensor::of<int64_t>(std::span<const int64_t>(pos), {1})})
                     .at(0)
                     .get_data<float>();
    }
    EXPECT_EQ(generated, f.tokens);
}

TEST_P(LlmFixture, ResetAndTwoRunnersKeepTheirOwnState) {
    WGX_REQUIRE_PROGRAM(GetParam());
    const Fixture f(GetParam());
    Program program = Program::load(f.program);
    Runner a(ctx(), program), b(ctx(), program);
    const std::vector<float> first = step(a, f, 0, 4);
    // b runs a different prefix; a's cache must not see it.
    step(b, f, 10, 6);
    expect_row_close(f, step(a, f, 4, 1), 4, "after another runner ran");
    a.reset_state();
    EXPECT_EQ(step(a, f, 0, 4), first);
    // A position beyond the cache is an error, not a write out of bounds.
    const int64_t pos[1] = {f.max_seq_len()};
    const int64_t tok[1] = {1};
    EXPECT_THROW(a.run({HostTensor::of<int64_t>(std::span<const int64_t>(tok), {1, 1}),
                        HostTensor::of<int64_t>(std::span<const int64_t>(pos), {1})}),
                 Error);
}

TEST_P(LlmFixture, GeneratorFeedsChunksAndSamplesGreedily) {
    WGX_REQUIRE_PROGRAM(GetParam());
    const Fixture f(GetParam());
    Runner r(ctx(), Program::load(f.program));
    Generator gen(r, f.max_seq_len());
    const bool dynamic = r.program().inputs().at(0).dynamic_bound;
    EXPECT_EQ(gen.max_chunk(), dynamic ? f.max_seq_len() - 1 : 1);
    const int64_t p = f.prompt_len();
    Sampler greedy({});
    std::vector<int64_t> tokens(f.tokens.begin(), f.tokens.begin() + p);
    gen.feed(tokens);
    while (tokens.size() < f.tokens.size()) {
        tokens.push_back(greedy.pick(gen.logits()));
        gen.feed(tokens.back());
    }
    EXPECT_EQ(tokens, f.tokens);
    EXPECT_EQ(gen.position(), static_cast<int64_t>(f.tokens.size()));
    // What does not fit the context is refused before anything runs.
    const std::vector<int64_t> rest(static_cast<size_t>(f.max_seq_len()) - tokens.size() + 1, 1);
    EXPECT_THROW(gen.feed(rest), InvalidArgument);
    EXPECT_EQ(gen.position(), static_cast<int64_t>(f.tokens.size()));
    gen.reset();
    EXPECT_EQ(gen.position(), 0);
    expect_row_close(f, gen.feed(std::span<const int64_t>(f.tokens).first(3)), 2, "after reset");
}

TEST(Sampler, GreedyTopKAndSeeds) {
    const std::vector<float> logits = {0.1f, 2.0f, -1.0f, 1.9f, 0.5f};
    EXPECT_EQ(Sampler({}).pick(logits), 1);
    EXPECT_EQ(Sampler({.temperature = 0.0}).pick(logits), 1);
    // Greedy is the first of equal maxima, past the eight-lane blocks too; a NaN never wins
    // unless it comes first, as with std::max_element.
    std::vector<float> many(1003, -3.f);
    many[517] = 4.f, many[998] = 4.f, many[3] = std::nanf("");
    EXPECT_EQ(Sampler({}).pick(many), 517);
    many[1001] = 5.f;
    EXPECT_EQ(Sampler({}).pick(many), 1001);
    many[0] = std::nanf("");
    EXPECT_EQ(Sampler({}).pick(many), 0);
    // top-k 1 and a tiny top-p leave only the most likely token.
    EXPECT_EQ(Sampler({.temperature = 5.0, .top_k = 1, .seed = 7}).pick(logits), 1);
    EXPECT_EQ(Sampler({.temperature = 5.0, .top_p = 1e-6, .seed = 7}).pick(logits), 1);
    // Sampling at a high temperature from the top two gives both, the same way for one seed.
    Sampler a({.temperature = 10.0, .top_k = 2, .seed = 3}),
        b({.temperature = 10.0, .top_k = 2, .seed = 3});
    std::set<int64_t> seen;
    for (int i = 0; i < 200; ++i) {
        const int64_t x = a.pick(logits);
        EXPECT_EQ(x, b.pick(logits));
        seen.insert(x);
    }
    EXPECT_EQ(seen, (std::set<int64_t>{1, 3}));
    EXPECT_THROW(Sampler({.temperature = -1.0}), InvalidArgument);
    EXPECT_THROW(Sampler({.top_p = 0.0}), InvalidArgument);
    EXPECT_THROW(Sampler({}).pick({}), InvalidArgument);
}

// The float16 programs (fp16.pte: -d fp16; force16.pte: --vulkan-force-fp16) and our own
// float16 mode (ProgramOptions::float16) on model.pte. Float16 rounds every stored value to 11
// significant bits and the logits follow from two layers of them; PyTorch's own float16 model on
// the CPU (logits16.npy) shows how far that legitimately moves them. The threshold per position:
// relative L2 against float64 at most 4 x PyTorch's float16 error there (at least 2e-3), and the
// largest abs error within 10 x that of the row's largest logit. Free-running tokens may differ
// (a margin below float16's error is a legitimate tie), so only teacher-forced logits are
// compared, at every step.
struct Float16Case {
    fs::path program;
    bool float16_option = false;  // run model.pte with ProgramOptions::float16
    std::string skipped;          // why this case is not run (meta.json's float16_option)
};

void PrintTo(const Float16Case& c, std::ostream* os) {
    *os << c.program.string() << (c.float16_option ? " with ProgramOptions::float16" : "");
}

// Every fixture with float16 goldens has the three cases, present or not (WGX_REQUIRE_PROGRAM
// skips those meta.json says were not exported). A fixture without model.pte names in
// meta.json's "float16_option" the program our float16 mode runs instead, or why it does not.
std::vector<Float16Case> float16_cases() {
    std::vector<Float16Case> out;
    for (const fs::path& golden : programs_named({"logits16.npy"})) {
        const fs::path dir = golden.parent_path();
        for (const char* file : {"model.pte", "fp16.pte", "force16.pte"}) {
            out.push_back({dir / file, std::string(file) == "model.pte"});
        }
        nlohmann::json meta;
        std::ifstream(dir / "meta.json") >> meta;
        if (meta.contains("float16_option")) {
            const auto& o = meta["float16_option"];
            out.push_back({dir / o.value("program", std::string("plain.pte")), true,
                           o.value("skipped", std::string())});
        }
    }
    return out;
}

class LlmFloat16 : public ::testing::TestWithParam<Float16Case> {};

TEST_P(LlmFloat16, TeacherForcedLogitsWithinFloat16sError) {
    if (!ctx().device_info().features.shader_f16) GTEST_SKIP() << "the adapter lacks shader-f16";
    const Float16Case& c = GetParam();
    if (!c.skipped.empty()) {
        GTEST_SKIP() << "ProgramOptions::float16 on " << c.program
                     << " is not tested: " << c.skipped;
    }
    WGX_REQUIRE_PROGRAM(c.program);
    const Fixture f(c.program);
    const io::NpyArray l16 = io::read_npy(f.dir / "logits16.npy");
    ProgramOptions options;
    options.float16 = c.float16_option;
    Runner r(ctx(), Program::load(f.program, options));
    double worst = 0, worst_torch = 0;
    for (int64_t t = 0; t < static_cast<int64_t>(f.tokens.size()); ++t) {
        const int64_t n = t < f.prompt_len() ? f.prompt_len() : 1;
        if (t < f.prompt_len() && t != f.prompt_len() - 1) continue;
        const std::vector<float> got = step(r, f, t + 1 - n, n);
        ASSERT_EQ(got.size(), static_cast<size_t>(f.vocab));
        const std::vector<double> want = f.row64(t);
        const float* p16 = reinterpret_cast<const float*>(l16.data.data()) + t * f.vocab;
        const double torch_err = rel_l2(std::vector<float>(p16, p16 + f.vocab), want);
        const double limit = 4 * std::max(2e-3, torch_err);
        const double e = rel_l2(got, want);
        EXPECT_LE(e, limit) << "position " << t << " (PyTorch float16: " << torch_err << ")";
        EXPECT_LE(max_abs_rel(got, want), 10 * limit) << "position " << t;
        worst = std::max(worst, e);
        worst_torch = std::max(worst_torch, torch_err);
    }
    RecordProperty("worst_rel_l2", std::to_string(worst));
    RecordProperty("torch_float16_worst_rel_l2", std::to_string(worst_torch));
}

std::string float16_name(const ::testing::TestParamInfo<Float16Case>& info) {
    const fs::path& p = info.param.program;
    return p.parent_path().filename().string() + "_" + p.stem().string() +
           (info.param.float16_option ? "_float16_option" : "");
}

INSTANTIATE_TEST_SUITE_P(Llm, LlmFloat16, ::testing::ValuesIn(float16_cases()), float16_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LlmFloat16);

std::string fixture_name(const ::testing::TestParamInfo<fs::path>& info) {
    // llama3_2_model, llama3_2_plain
    return info.param.parent_path().filename().string() + "_" + info.param.stem().string();
}

INSTANTIATE_TEST_SUITE_P(Llm, LlmFixture, ::testing::ValuesIn(fixture_programs()), fixture_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LlmFixture);

}  // namespace
}  // namespace wgx
