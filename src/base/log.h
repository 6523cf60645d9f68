// Leveled logging for the engine. Quiet by default (warnings and errors only); the level comes
// from the WGX_LOG environment variable (off, error, warn, info, debug, trace) or set_log_level().
#pragma once

#include <fmt/format.h>

#include <string_view>

#include "wgx/log.h"

namespace wgx::log {

bool enabled(LogLevel level);
void write(LogLevel level, std::string_view message);

// Called with the new level whenever set_log_level() changes it. The GPU layer registers one to
// keep the WebGPU implementation's own filter in step (the base library knows nothing of GPUs).
void set_level_listener(void (*listener)(LogLevel));

template <typename... Args>
void error(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(LogLevel::error))
        write(LogLevel::error, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void warn(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(LogLevel::warn)) write(LogLevel::warn, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(LogLevel::info)) write(LogLevel::info, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void debug(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(LogLevel::debug))
        write(LogLevel::debug, fmt::format(f, std::forward<Args>(args)...));
}

template <typename... Args>
void trace(fmt::format_string<Args...> f, Args&&... args) {
    if (enabled(LogLevel::trace))
        write(LogLevel::trace, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace wgx::log
