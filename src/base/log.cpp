#include "base/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace wgx {
namespace {

LogLevel level_from_env() {
    const char* env = std::getenv("WGX_LOG");
    if (env == nullptr) return LogLevel::warn;
    std::string_view v(env);
    if (v == "off") return LogLevel::off;
    if (v == "error") return LogLevel::error;
    if (v == "warn") return LogLevel::warn;
    if (v == "info") return LogLevel::info;
    if (v == "debug") return LogLevel::debug;
    if (v == "trace") return LogLevel::trace;
    std::fprintf(stderr, "wgx: WGX_LOG=%s is not a level (off, error, warn, info, debug, trace)\n",
                 env);
    return LogLevel::warn;
}

std::atomic<LogLevel>& current_level() {
    static std::atomic<LogLevel> level{level_from_env()};
    return level;
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

void set_log_level(LogLevel level) { current_level().store(level); }
LogLevel log_level() { return current_level().load(); }

void set_log_sink(std::function<void(LogLevel, std::string_view)> s) {
    std::lock_guard lock(sink_mutex());
    sink() = std::move(s);
}

namespace log {

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
