// Replays every input the fuzzer once crashed on (tests/fuzz/regressions) through the fuzz
// harness, so each fixed finding stays fixed, in sanitizer builds especially; and every
// exported model fixture, whose graphs the harness also takes through the load-time passes
// (which must leave a graph that checks).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "fuzz_one_input.h"

namespace {

// One file through the harness.
void replay(const std::filesystem::path& path) {
    SCOPED_TRACE(path.string());
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    wgx::fuzz::fuzz_one_input(bytes.data(), bytes.size());
}

TEST(FuzzRegressions, ReplayAll) {
    const std::filesystem::path dir = WGX_FUZZ_REGRESSIONS_DIR;
    if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no " << dir;
    size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
        replay(entry.path());
        ++count;
    }
    EXPECT_GT(count, 0u);
}

TEST(FuzzRegressions, ModelFixturesThroughTheHarness) {
    const auto models = std::filesystem::path(WGX_FIXTURES_DIR) / ".." / "models";
    ASSERT_TRUE(std::filesystem::is_directory(models)) << models;
    size_t count = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(models)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".pte") continue;
        replay(entry.path());
        ++count;
    }
    EXPECT_GE(count, 40u);  // delegated and plain programs of every model fixture
}

}  // namespace
