// The configuration layers (defaults, system and user files, AXLE_CONFIG, the
// environment, the application), their merge and publication, and the sources
// of each value. The keys themselves: config_keys.cpp.
#include <axle/config.h>

#include <axle/error.h>
#include <axle/logging.h>
#include "config_internal.h"
#include "config_keys.h"

#include <sys/auxv.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>

namespace axle {

FallbackPolicy parse_fallback_policy(std::string_view text, std::string_view where) {
  if (text == "error") return FallbackPolicy::Error;
  if (text == "warn_once") return FallbackPolicy::WarnOnce;
  if (text == "silent") return FallbackPolicy::Silent;
  throw ConfigError(
      detail::concat(where, ": invalid fallback policy '", text, "': expected 'error', 'warn_once' or 'silent'"));
}

const char* fallback_policy_name(FallbackPolicy p) {
  switch (p) {
    case FallbackPolicy::Error: return "error";
    case FallbackPolicy::WarnOnce: return "warn_once";
    case FallbackPolicy::Silent: return "silent";
  }
  return "?";
}

namespace detail {

namespace {
std::atomic<bool (*)()> g_secure_check{nullptr};
}
void set_secure_execution_check(bool (*check)()) { g_secure_check.store(check); }

bool secure_execution() {
  bool (*check)() = g_secure_check.load();
  return check ? check() : getauxval(AT_SECURE) != 0;
}

const char* secure_getenv_str(const char* name) { return secure_execution() ? nullptr : std::getenv(name); }

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_cost = SIZE_MAX;
  for (const std::string& c : candidates) {
    std::vector<size_t> prev(c.size() + 1), cur(c.size() + 1);
    for (size_t j = 0; j <= c.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= word.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= c.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (word[i - 1] == c[j - 1] ? 0 : 1)});
      std::swap(prev, cur);
    }
    if (prev[c.size()] < best_cost) {
      best_cost = prev[c.size()];
      best = c;
    }
  }
  return best;
}

}  // namespace detail

namespace {

struct Layers {
  std::mutex mutex;
  bool loaded = false;
  Config defaults, system, user, file, env, app;
  std::shared_ptr<const Config> effective;  // merged; replaced (never mutated) on every change
  std::string system_path, user_path, file_path;
};

Layers& layers() {
  static auto* l = new Layers;
  return *l;
}

// An optional file layer: a missing file is an empty layer.
Config read_optional_file(const std::string& path) {
  if (path.empty()) return {};
  std::ifstream in(path);
  if (!in.good()) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return Config::parse(ss.str(), path);
}

// AXLE_SYSTEM_CONFIG overrides the system path (tests; ignored under AT_SECURE).
std::string system_config_path() {
  const char* p = detail::secure_getenv_str("AXLE_SYSTEM_CONFIG");
  return p && *p ? p : "/etc/axle/config.json";
}
std::string user_config_path() {
  if (const char* x = detail::secure_getenv_str("XDG_CONFIG_HOME"); x && *x)
    return std::string(x) + "/axle/config.json";
  if (const char* h = detail::secure_getenv_str("HOME"); h && *h) return std::string(h) + "/.config/axle/config.json";
  return {};
}

Config read_file_layer() {
  const char* path = detail::secure_getenv_str("AXLE_CONFIG");
  if (!path || !*path) return {};
  std::ifstream in(path);
  AXLE_CHECK(in.good(), ConfigError, "AXLE_CONFIG names '", path, "', which cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  return Config::parse(ss.str(), path);
}

// The effective configuration as published by recompute: kernels read it per
// call (get_option) from many threads without the layers' lock. Never destroyed
// (late destructors may still read it).
std::atomic<std::shared_ptr<const Config>>& published() {
  static auto* slot = new std::atomic<std::shared_ptr<const Config>>;
  return *slot;
}

// Merges the layers (with `app` as the application layer) and applies the log
// settings; only when all of that succeeded is the result published, so a
// failure (an unwritable log_file) leaves the previous state intact.
void recompute(Layers& l, const Config& app) {
  Config e = l.defaults;
  e.merge(l.system);
  e.merge(l.user);
  e.merge(l.file);
  e.merge(l.env);
  e.merge(app);
  AXLE_INTERNAL_ASSERT(e.log_level.has_value(), "the defaults layer sets log_level");
  const LogLevel level = parse_log_level(*e.log_level);
  configure_log_output(e.log_pattern.value_or(""), e.log_file.value_or(""));
  set_log_level(level);
  l.app = app;
  l.effective = std::make_shared<const Config>(std::move(e));
  published().store(l.effective, std::memory_order_release);
}

Layers& loaded_layers() {
  Layers& l = layers();
  if (!l.loaded) {
    l.defaults.log_level = "warn";
    l.defaults.fallback_policy = FallbackPolicy::WarnOnce;
    l.system_path = system_config_path();
    l.user_path = user_config_path();
    const char* f = detail::secure_getenv_str("AXLE_CONFIG");
    l.file_path = f ? f : "";
    l.system = read_optional_file(l.system_path);
    l.user = read_optional_file(l.user_path);
    l.file = read_file_layer();
    l.env = detail::config_from_environment();
    recompute(l, l.app);
    l.loaded = true;
  }
  return l;
}

}  // namespace

Config effective_config() {
  Layers& l = layers();
  std::lock_guard lock(l.mutex);
  return *loaded_layers().effective;
}

std::shared_ptr<const Config> detail::config_snapshot() {
  if (std::shared_ptr<const Config> c = published().load(std::memory_order_acquire)) return c;
  Layers& l = layers();  // first use: read the layers
  std::lock_guard lock(l.mutex);
  return loaded_layers().effective;
}

Config config_layer(ConfigLayer which) {
  Layers& l = layers();
  std::lock_guard lock(l.mutex);
  Layers& ll = loaded_layers();
  switch (which) {
    case ConfigLayer::Defaults: return ll.defaults;
    case ConfigLayer::System: return ll.system;
    case ConfigLayer::User: return ll.user;
    case ConfigLayer::File: return ll.file;
    case ConfigLayer::Environment: return ll.env;
    case ConfigLayer::Application: return ll.app;
  }
  return {};
}

namespace {
std::mutex g_listeners_mutex;
std::vector<void (*)()> g_listeners;
void notify_listeners() {
  std::vector<void (*)()> fns;
  {
    std::lock_guard lock(g_listeners_mutex);
    fns = g_listeners;
  }
  for (auto fn : fns) fn();
}
}  // namespace

void detail::add_config_listener(void (*fn)()) {
  std::lock_guard lock(g_listeners_mutex);
  g_listeners.push_back(fn);
}

void configure(const Config& application_layer) {
  {
    Layers& l = layers();
    std::lock_guard lock(l.mutex);
    Layers& ll = loaded_layers();
    Config app = ll.app;
    app.merge(application_layer);
    recompute(ll, app);
  }
  notify_listeners();
}

const char* config_layer_name(ConfigLayer layer) {
  switch (layer) {
    case ConfigLayer::Defaults: return "defaults";
    case ConfigLayer::System: return "system file";
    case ConfigLayer::User: return "user file";
    case ConfigLayer::File: return "AXLE_CONFIG file";
    case ConfigLayer::Environment: return "environment";
    case ConfigLayer::Application: return "application";
  }
  return "?";
}

std::vector<ConfigEntry> config_sources() {
  Layers& l = layers();
  std::lock_guard lock(l.mutex);
  Layers& ll = loaded_layers();
  const std::pair<ConfigLayer, const Config*> order[] = {
      {ConfigLayer::Defaults, &ll.defaults}, {ConfigLayer::System, &ll.system},   {ConfigLayer::User, &ll.user},
      {ConfigLayer::File, &ll.file},         {ConfigLayer::Environment, &ll.env}, {ConfigLayer::Application, &ll.app}};
  std::vector<ConfigEntry> out;
  for (const auto& [layer, config] : order) {
    const std::string source = layer == ConfigLayer::System ? ll.system_path
                               : layer == ConfigLayer::User ? ll.user_path
                               : layer == ConfigLayer::File ? ll.file_path
                                                            : "";
    for (auto& [key, value] : detail::flatten_config(*config)) {
      const std::string from = layer != ConfigLayer::Environment ? source : std::string(detail::env_variable_of(key));
      auto it = std::find_if(out.begin(), out.end(), [&k = key](const ConfigEntry& e) { return e.key == k; });
      if (it == out.end())
        out.push_back({key, value, layer, from});
      else
        *it = {key, value, layer, from};
    }
  }
  std::sort(out.begin(), out.end(), [](const ConfigEntry& a, const ConfigEntry& b) { return a.key < b.key; });
  return out;
}

void reload_config() {
  {
    Layers& l = layers();
    std::lock_guard lock(l.mutex);
    l.loaded = false;  // the application layer is kept; the rest is read again
    loaded_layers();
  }
  notify_listeners();
}

void set_float32_matmul_precision(const std::string& precision) {
  Config change;
  detail::check_matmul_precision(precision, "set_float32_matmul_precision");
  change.matmul_precision = precision;
  configure(change);
}
std::string get_float32_matmul_precision() { return effective_config().matmul_precision.value_or("highest"); }
void use_deterministic_algorithms(bool enabled) {
  Config change;
  change.deterministic = enabled;
  configure(change);
}
bool are_deterministic_algorithms_enabled() { return effective_config().deterministic.value_or(false); }

}  // namespace axle
