// The shared "axle" spdlog logger.
#include <axle/logging.h>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <mutex>
#include <string>

namespace axle {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::Warn)};

constexpr const char* kDefaultPattern = "[%Y-%m-%d %H:%M:%S.%e] [axle] [%^%l%$] %v";

// The logger is replaced when log_pattern / log_file change; a call logs through
// the one current when it started.
struct LoggerState {
  std::mutex mutex;
  std::shared_ptr<spdlog::logger> logger;
  std::string pattern, file;
};
LoggerState& state() {
  static auto* s = new LoggerState;  // never destroyed: plugins may log during static teardown
  return *s;
}

std::shared_ptr<spdlog::logger> make_logger(const std::string& pattern, const std::string& file) {
  std::shared_ptr<spdlog::sinks::sink> sink;
  if (file.empty())
    sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  else
    sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file, false);
  auto lg = std::make_shared<spdlog::logger>("axle", sink);
  lg->set_pattern(pattern.empty() ? kDefaultPattern : pattern);
  lg->set_level(spdlog::level::trace);  // filtering happens in log_enabled
  lg->flush_on(spdlog::level::trace);
  return lg;
}

std::shared_ptr<spdlog::logger> logger() {
  LoggerState& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.logger) s.logger = make_logger(s.pattern, s.file);
  return s.logger;
}
}  // namespace

void set_log_level(LogLevel level) { g_level.store(static_cast<int>(level), std::memory_order_relaxed); }
LogLevel log_level() { return static_cast<LogLevel>(g_level.load(std::memory_order_relaxed)); }
bool log_enabled(LogLevel level) {
  return level != LogLevel::Off && static_cast<int>(level) >= g_level.load(std::memory_order_relaxed);
}

LogLevel parse_log_level(std::string_view name) {
  static constexpr std::pair<std::string_view, LogLevel> kNames[] = {
      {"trace", LogLevel::Trace},  {"debug", LogLevel::Debug}, {"info", LogLevel::Info}, {"warn", LogLevel::Warn},
      {"warning", LogLevel::Warn}, {"error", LogLevel::Error}, {"off", LogLevel::Off}};
  for (auto& [n, l] : kNames)
    if (n == name) return l;
  throw ConfigError(detail::concat("invalid log level '", name, "': expected trace, debug, info, warn, error or off"));
}

void log_message(LogLevel level, std::string_view message) {
  static constexpr spdlog::level::level_enum kMap[] = {spdlog::level::trace, spdlog::level::debug, spdlog::level::info,
                                                       spdlog::level::warn,  spdlog::level::err,   spdlog::level::off};
  logger()->log(kMap[static_cast<int>(level)], "{}", message);
}

void configure_log_output(std::string_view pattern, std::string_view file) {
  LoggerState& s = state();
  std::lock_guard lock(s.mutex);
  if (s.logger && s.pattern == pattern && s.file == file) return;
  try {
    s.logger = make_logger(std::string(pattern), std::string(file));
  } catch (const spdlog::spdlog_ex& e) {
    throw ConfigError(detail::concat("log_file '", file, "': ", e.what()));
  }
  s.pattern = pattern;
  s.file = file;
}

}  // namespace axle
