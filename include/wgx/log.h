// Logging: what the engine and the WebGPU implementation under it say, filtered by one level.
//
// Quiet by default: the level starts at `warn`, and a run where nothing goes wrong prints
// nothing. The environment variable WGX_LOG (off, error, warn, info, debug, trace; case does not
// matter) sets the starting level; set_log_level() changes it at any time. Messages go to stderr
// as "wgx <level>: <text>" unless a sink is installed.
//
// The WebGPU implementation's own messages (wgpu-native's, prefixed "wgpu: ") pass through the
// same level and the same sink: its filter follows set_log_level() from the first device or
// adapter list on. Expect a great many at debug and trace (shader translation details).
//
// Threads: every function here may be called from any thread.
#pragma once

#include <functional>
#include <optional>
#include <string_view>

namespace wgx {

// Levels, most severe first: a message is shown when its level is at or above the current
// level's severity (e.g. `info` shows error, warn and info).
enum class LogLevel { off = 0, error = 1, warn = 2, info = 3, debug = 4, trace = 5 };

// Sets the level for the engine and the WebGPU implementation (overrides WGX_LOG).
void set_log_level(LogLevel level);
LogLevel log_level();

// "off", "error", "warn" (or "warning"), "info", "debug", "trace", in any case; nullopt otherwise.
std::optional<LogLevel> parse_log_level(std::string_view name);

// Replaces the stderr sink; pass an empty function to restore it. The sink is called from
// whichever thread logs (the engine's or the implementation's), one call at a time, with the
// message's level and text (no trailing newline). It must not call back into the engine.
void set_log_sink(std::function<void(LogLevel, std::string_view)> sink);

}  // namespace wgx
