// Logging through one spdlog logger named "axle", shared with plugins via the
// host API. Level from config / AXLE_LOG_LEVEL (trace, debug, info, warn, error, off).
#pragma once

#include <axle/error.h>
#include <axle/export.h>

#include <string_view>

namespace axle {

enum class LogLevel { Trace = 0, Debug = 1, Info = 2, Warn = 3, Error = 4, Off = 5 };

AXLE_API void set_log_level(LogLevel level);
AXLE_API LogLevel log_level();
// Throws ConfigError naming the text and the valid names.
AXLE_API LogLevel parse_log_level(std::string_view name);
AXLE_API bool log_enabled(LogLevel level);
AXLE_API void log_message(LogLevel level, std::string_view message);
// Where log lines go and how they look (config keys log_pattern / log_file):
// an spdlog pattern ("" = "[%Y-%m-%d %H:%M:%S.%e] [axle] [%l] %v") and a file
// the lines are appended to ("" = stderr). Throws ConfigError if the file
// cannot be opened or the pattern is invalid.
AXLE_API void configure_log_output(std::string_view pattern, std::string_view file);

}  // namespace axle

#define AXLE_LOG(level, ...)                                                                         \
  do {                                                                                               \
    if (::axle::log_enabled(level)) ::axle::log_message(level, ::axle::detail::concat(__VA_ARGS__)); \
  } while (0)
