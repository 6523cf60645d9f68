// Engine log level. Messages go to stderr unless a sink is installed. The WebGPU
// implementation's own messages are routed through the same levels.
#pragma once

#include <functional>
#include <string_view>

namespace wgx {

enum class LogLevel { off = 0, error = 1, warn = 2, info = 3, debug = 4, trace = 5 };

// Overrides the level read from the WGX_LOG environment variable.
void set_log_level(LogLevel level);
LogLevel log_level();

// Replaces the stderr sink; pass an empty function to restore it. The sink may be called
// from any thread.
void set_log_sink(std::function<void(LogLevel, std::string_view)> sink);

}  // namespace wgx
