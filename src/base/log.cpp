#include "base/log.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

namespace wgx {
namespace {

LogLevel level_from_env() {
    const char* env = std::getenv("WGX_LOG");
    if (env == nullptr || *env == '\0') return LogLevel::warn;
    if (std::optional<LogLevel> level = parse_log_level(env)) return *level;
    // The sink may not be installed yet and a bad value must not go unnoticed: say it once.
    std::fprintf(stderr, "wgx: WGX_LOG=%s is not a level (off, error, warn, info, debug, trace)\n",
                 env);
    return LogLevel::warn;
}

std::atomic<LogLevel>& current_level() {
    static std::atomic<LogLevel> level{level_from_env()};
    return level;
}

std::atomic<void (*)(LogLevel)>& level_listener() {
    static std::atomic<void (*)(LogLevel)> listener{nullptr};
    return listener;
}

std::mutex& sink_mutex() {
    static std::mutex m;
    return m;
}

std::function<void(LogLevel, std::string_view)>& sink() {
    static std::function<void(LogLevel, std::string_view)> s;
    return s;
}

const char* level_name(LogLevel level) {
    switch (level) {
        case LogLevel::error: return "error";
        case LogLevel::warn: return "warning";
        case LogLevel::info: return "info";
        case LogLevel::debug: return "debug";
        case LogLevel::trace: return "trace";
        case LogLevel::off: break;
    }
    return "";
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view name) {
    std::string v(name);
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    if (v == "off" || v == "none") return LogLevel::off;
    if (v == "error") return LogLevel::error;
    if (v == "warn" || v == "warning") return LogLevel::warn;
    if (v == "info") return LogLevel::info;
    if (v == "debug") return LogLevel::debug;
    if (v == "trace") return LogLevel::trace;
    return std::nullopt;
}

void set_log_level(LogLevel level) {
    current_level().store(level);
    if (auto listener = level_listener().load()) listener(level);
}

LogLevel log_level() { return current_level().load(); }

void set_log_sink(std::function<void(LogLevel, std::string_view)> s) {
    std::lock_guard lock(sink_mutex());
    sink() = std::move(s);
}

namespace log {

void set_level_listener(void (*listener)(LogLevel)) { level_listener().store(listener); }

bool enabled(LogLevel level) {
    return level != LogLevel::off && static_cast<int>(level) <= static_cast<int>(log_level());
}

void write(LogLevel level, std::string_view message) {
    std::lock_guard lock(sink_mutex());
    if (sink()) {
        sink()(level, message);
        return;
    }
    std::fprintf(stderr, "wgx %s: %.*s\n", level_name(level), static_cast<int>(message.size()),
                 message.data());
}

}  // namespace log
}  // namespace wgx
