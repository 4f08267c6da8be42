// The shared "axle" spdlog logger.
#include <axle/logging.h>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>

namespace axle {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::Warn)};

spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> l = [] {
    auto lg = spdlog::stderr_color_mt("axle");
    lg->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [axle] [%^%l%$] %v");
    lg->set_level(spdlog::level::trace);  // filtering happens in log_enabled
    return lg;
  }();
  return *l;
}
}  // namespace

void set_log_level(LogLevel level) { g_level.store(static_cast<int>(level), std::memory_order_relaxed); }
LogLevel log_level() { return static_cast<LogLevel>(g_level.load(std::memory_order_relaxed)); }
bool log_enabled(LogLevel level) {
  return level != LogLevel::Off && static_cast<int>(level) >= g_level.load(std::memory_order_relaxed);
}

LogLevel parse_log_level(std::string_view name) {
  static constexpr std::pair<std::string_view, LogLevel> kNames[] = {
      {"trace", LogLevel::Trace}, {"debug", LogLevel::Debug}, {"info", LogLevel::Info}, {"warn", LogLevel::Warn},
      {"warning", LogLevel::Warn}, {"error", LogLevel::Error}, {"off", LogLevel::Off}};
  for (auto& [n, l] : kNames)
    if (n == name) return l;
  throw ConfigError(detail::concat("invalid log level '", name, "': expected trace, debug, info, warn, error or off"));
}

void log_message(LogLevel level, std::string_view message) {
  static constexpr spdlog::level::level_enum kMap[] = {spdlog::level::trace, spdlog::level::debug,
                                                       spdlog::level::info,  spdlog::level::warn,
                                                       spdlog::level::err,   spdlog::level::off};
  logger().log(kMap[static_cast<int>(level)], "{}", message);
}

}  // namespace axle
