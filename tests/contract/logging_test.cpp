// The logging contract (include/wgx/log.h): one level for the engine and the WebGPU
// implementation, a replaceable sink, quiet by default.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "fixture_run.h"

namespace wgx::contract {
namespace {

struct Captured {
    LogLevel level;
    std::string text;
};

// Installs a capturing sink for the test's lifetime and restores the level and stderr after.
class CaptureLogs {
  public:
    CaptureLogs() : saved_(log_level()) {
        set_log_sink([this](LogLevel level, std::string_view text) {
            std::lock_guard lock(mutex_);
            lines_.push_back({level, std::string(text)});
        });
    }
    ~CaptureLogs() {
        set_log_sink({});
        set_log_level(saved_);
    }
    std::vector<Captured> take() {
        std::lock_guard lock(mutex_);
        return std::exchange(lines_, {});
    }

  private:
    LogLevel saved_;
    std::mutex mutex_;
    std::vector<Captured> lines_;
};

size_t count_if(const std::vector<Captured>& lines, std::string_view prefix, LogLevel at_most) {
    size_t n = 0;
    for (const auto& l : lines) {
        if (l.text.rfind(prefix, 0) == 0 &&
            static_cast<int>(l.level) <= static_cast<int>(at_most)) {
            ++n;
        }
    }
    return n;
}

TEST(Logging, ParsesLevelNames) {
    EXPECT_EQ(parse_log_level("off"), LogLevel::off);
    EXPECT_EQ(parse_log_level("error"), LogLevel::error);
    EXPECT_EQ(parse_log_level("WARN"), LogLevel::warn);
    EXPECT_EQ(parse_log_level("warning"), LogLevel::warn);
    EXPECT_EQ(parse_log_level("Info"), LogLevel::info);
    EXPECT_EQ(parse_log_level("debug"), LogLevel::debug);
    EXPECT_EQ(parse_log_level("trace"), LogLevel::trace);
    EXPECT_EQ(parse_log_level("verbose"), std::nullopt);
    EXPECT_EQ(parse_log_level(""), std::nullopt);
}

TEST(Logging, TheLevelFiltersEngineMessages) {
    CaptureLogs capture;
    set_log_level(LogLevel::warn);
    Context quiet = Context::create();
    EXPECT_TRUE(capture.take().empty()) << "a healthy start logs nothing at warn";

    set_log_level(LogLevel::info);
    Context chatty = Context::create();
    std::vector<Captured> lines = capture.take();
    ASSERT_EQ(count_if(lines, "adapter: ", LogLevel::info), 1u);
    for (const auto& l : lines) {
        EXPECT_LE(static_cast<int>(l.level), static_cast<int>(LogLevel::info)) << l.text;
        if (l.text.rfind("adapter: ", 0) == 0) {
            EXPECT_NE(l.text.find(chatty.device_info().adapter.name), std::string::npos) << l.text;
        }
    }

    set_log_level(LogLevel::off);
    quiet.lose_device_for_testing();  // a warning, not shown when logging is off
    EXPECT_TRUE(capture.take().empty());
}

TEST(Logging, WebGpuMessagesFollowTheLevelSetAfterTheDeviceExists) {
    CaptureLogs capture;
    set_log_level(LogLevel::warn);
    Context ctx = Context::create();
    std::filesystem::path dir = fixture_dir("conv");
    const Program program = Program::load(dir / "vulkan.pte");
    const auto inputs = read_inputs(dir, program);

    // The device already exists; raising the level must reach the implementation's own filter.
    set_log_level(LogLevel::debug);
    run_program(ctx, program, inputs);  // compiles the program's shaders
    std::vector<Captured> lines = capture.take();
    EXPECT_GT(count_if(lines, "wgpu: ", LogLevel::debug), 0u)
        << "no wgpu-native message arrived at debug (" << lines.size() << " lines in all)";
    for (const auto& l : lines) EXPECT_NE(l.level, LogLevel::trace) << l.text;

    // Back to warn: compiling new shaders in a new context says nothing.
    set_log_level(LogLevel::warn);
    Context other = Context::create();
    run_program(other, program, inputs);
    EXPECT_TRUE(capture.take().empty());
}

}  // namespace
}  // namespace wgx::contract
