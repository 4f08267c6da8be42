// JSON configuration layers (nlohmann/json) and their validation.
#include <axle/config.h>

#include "config_internal.h"
#include <axle/error.h>
#include <axle/logging.h>

#include <nlohmann/json.hpp>
#include <sys/auxv.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace axle {

using nlohmann::json;

FallbackPolicy parse_fallback_policy(std::string_view text, std::string_view where) {
  if (text == "error") return FallbackPolicy::Error;
  if (text == "warn_once") return FallbackPolicy::WarnOnce;
  if (text == "silent") return FallbackPolicy::Silent;
  throw ConfigError(detail::concat(where, ": invalid fallback policy '", text,
                                   "': expected 'error', 'warn_once' or 'silent'"));
}

const char* fallback_policy_name(FallbackPolicy p) {
  switch (p) {
    case FallbackPolicy::Error: return "error";
    case FallbackPolicy::WarnOnce: return "warn_once";
    case FallbackPolicy::Silent: return "silent";
  }
  return "?";
}

const std::vector<std::string>& known_config_keys() {
  static const std::vector<std::string> keys = {
      "plugin_paths",     "log_level",        "fallback",         "fallback.policy", "fallback.devices",
      "default_device",   "default_dtype",    "plugins",          "plugins.<name>.enabled",
      "plugins.<name>.rank", "plugins.<name>.options", "cpu", "cpu.threads",
      "allow_world_writable_plugin_paths", "backends", "backends.allow", "backends.deny", "fallback.ops",
      "fallback.target", "matmul_precision", "deterministic", "log_pattern", "log_file", "trace", "trace.enabled",
      "trace.file"};
  return keys;
}

namespace detail {

namespace {
std::atomic<bool (*)()> g_secure_check{nullptr};
}
void set_secure_execution_check(bool (*check)()) { g_secure_check.store(check); }

const char* secure_getenv_str(const char* name) {
  bool (*check)() = g_secure_check.load();
  if (check ? check() : getauxval(AT_SECURE) != 0) return nullptr;
  return std::getenv(name);
}

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

[[noreturn]] void type_error(std::string_view source, const std::string& path, const char* expected, const json& v) {
  throw ConfigError(detail::concat(source, ": '", path, "' must be ", expected, ", got ", v.type_name(), " ",
                                   v.dump()));
}

void check_keys(std::string_view source, const std::string& prefix, const json& obj,
                const std::vector<std::string>& allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    std::vector<std::string> full;
    for (const auto& a : allowed) full.push_back(prefix + a);
    throw ConfigError(detail::concat(source, ": unknown configuration key '", prefix, it.key(),
                                     "'; did you mean '", detail::nearest(prefix + it.key(), full), "'?"));
  }
}

std::string get_string(std::string_view source, const std::string& path, const json& v) {
  if (!v.is_string()) type_error(source, path, "a string", v);
  return v.get<std::string>();
}

std::vector<std::string> get_strings(std::string_view source, const std::string& path, const json& v) {
  if (!v.is_array()) type_error(source, path, "an array of strings", v);
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(get_string(source, path + "[" + std::to_string(i) + "]", v[i]));
  return out;
}

bool get_bool(std::string_view source, const std::string& path, const json& v) {
  if (!v.is_boolean()) type_error(source, path, "a boolean", v);
  return v.get<bool>();
}

std::string check_matmul_precision(const std::string& p, std::string_view where) {
  AXLE_CHECK(p == "highest" || p == "high" || p == "medium", ConfigError, where, ": invalid matmul precision '", p,
             "': expected highest, high or medium");
  return p;
}

bool parse_env_bool(const char* text, const char* name) {
  const std::string t = text;
  if (t == "1" || t == "true" || t == "on" || t == "yes") return true;
  if (t == "0" || t == "false" || t == "off" || t == "no" || t.empty()) return false;
  throw ConfigError(detail::concat(name, "='", t, "': expected 1/0, true/false, on/off or yes/no"));
}

}  // namespace

Config Config::parse(std::string_view json_text, std::string_view source) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw ConfigError(detail::concat(source, ": malformed JSON: ", e.what()));
  }
  if (!doc.is_object()) type_error(source, "<root>", "an object", doc);
  check_keys(source, "", doc,
             {"plugin_paths", "log_level", "fallback", "default_device", "default_dtype", "plugins", "cpu",
              "allow_world_writable_plugin_paths", "backends", "matmul_precision", "deterministic", "log_pattern",
              "log_file", "trace"});
  Config c;
  if (doc.contains("plugin_paths")) {
    const json& v = doc["plugin_paths"];
    if (!v.is_array()) type_error(source, "plugin_paths", "an array of strings", v);
    std::vector<std::string> paths;
    for (size_t i = 0; i < v.size(); ++i) paths.push_back(get_string(source, "plugin_paths[" + std::to_string(i) + "]", v[i]));
    c.plugin_paths = paths;
  }
  if (doc.contains("log_level")) {
    c.log_level = get_string(source, "log_level", doc["log_level"]);
    parse_log_level(*c.log_level);  // validate now
  }
  if (doc.contains("fallback")) {
    const json& f = doc["fallback"];
    if (!f.is_object()) type_error(source, "fallback", "an object", f);
    check_keys(source, "fallback.", f, {"policy", "devices", "ops", "target"});
    if (f.contains("ops")) {
      const json& o = f["ops"];
      if (!o.is_object()) type_error(source, "fallback.ops", "an object", o);
      for (auto it = o.begin(); it != o.end(); ++it)
        c.fallback_by_op[it.key()] =
            parse_fallback_policy(get_string(source, "fallback.ops." + it.key(), it.value()), source);
    }
    if (f.contains("target")) c.fallback_target = get_string(source, "fallback.target", f["target"]);
    if (f.contains("policy"))
      c.fallback_policy = parse_fallback_policy(get_string(source, "fallback.policy", f["policy"]), source);
    if (f.contains("devices")) {
      const json& d = f["devices"];
      if (!d.is_object()) type_error(source, "fallback.devices", "an object", d);
      for (auto it = d.begin(); it != d.end(); ++it)
        c.fallback_by_device[it.key()] =
            parse_fallback_policy(get_string(source, "fallback.devices." + it.key(), it.value()), source);
    }
  }
  if (doc.contains("default_device")) c.default_device = get_string(source, "default_device", doc["default_device"]);
  if (doc.contains("default_dtype")) c.default_dtype = get_string(source, "default_dtype", doc["default_dtype"]);
  if (doc.contains("plugins")) {
    const json& p = doc["plugins"];
    if (!p.is_object()) type_error(source, "plugins", "an object", p);
    for (auto it = p.begin(); it != p.end(); ++it) {
      const std::string path = "plugins." + it.key();
      if (!it.value().is_object()) type_error(source, path, "an object", it.value());
      check_keys(source, path + ".", it.value(), {"enabled", "rank", "options"});
      PluginSettings s;
      if (it.value().contains("enabled")) {
        const json& e = it.value()["enabled"];
        if (!e.is_boolean()) type_error(source, path + ".enabled", "a boolean", e);
        s.enabled = e.get<bool>();
      }
      if (it.value().contains("rank")) {
        const json& r = it.value()["rank"];
        if (!r.is_number_integer()) type_error(source, path + ".rank", "an integer", r);
        s.rank = r.get<int>();
      }
      if (it.value().contains("options")) {
        const json& o = it.value()["options"];
        if (!o.is_object()) type_error(source, path + ".options", "an object", o);
        for (auto opt = o.begin(); opt != o.end(); ++opt) s.options[opt.key()] = opt.value().dump();
      }
      c.plugins[it.key()] = s;
    }
  }
  if (doc.contains("allow_world_writable_plugin_paths")) {
    const json& w = doc["allow_world_writable_plugin_paths"];
    if (!w.is_boolean()) type_error(source, "allow_world_writable_plugin_paths", "a boolean", w);
    c.allow_world_writable_plugin_paths = w.get<bool>();
  }
  if (doc.contains("backends")) {
    const json& b = doc["backends"];
    if (!b.is_object()) type_error(source, "backends", "an object", b);
    check_keys(source, "backends.", b, {"allow", "deny"});
    if (b.contains("allow")) c.backends_allow = get_strings(source, "backends.allow", b["allow"]);
    if (b.contains("deny")) c.backends_deny = get_strings(source, "backends.deny", b["deny"]);
  }
  if (doc.contains("matmul_precision"))
    c.matmul_precision = check_matmul_precision(get_string(source, "matmul_precision", doc["matmul_precision"]), source);
  if (doc.contains("deterministic")) c.deterministic = get_bool(source, "deterministic", doc["deterministic"]);
  if (doc.contains("log_pattern")) c.log_pattern = get_string(source, "log_pattern", doc["log_pattern"]);
  if (doc.contains("log_file")) c.log_file = get_string(source, "log_file", doc["log_file"]);
  if (doc.contains("trace")) {
    const json& t = doc["trace"];
    if (!t.is_object()) type_error(source, "trace", "an object", t);
    check_keys(source, "trace.", t, {"enabled", "file"});
    if (t.contains("enabled")) c.trace_enabled = get_bool(source, "trace.enabled", t["enabled"]);
    if (t.contains("file")) c.trace_file = get_string(source, "trace.file", t["file"]);
  }
  if (doc.contains("cpu")) {
    const json& h = doc["cpu"];
    if (!h.is_object()) type_error(source, "cpu", "an object", h);
    check_keys(source, "cpu.", h, {"threads"});
    if (h.contains("threads")) {
      const json& t = h["threads"];
      if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() > 4096)
        type_error(source, "cpu.threads", "an integer from 0 (every core) to 4096", t);
      c.cpu_threads = t.get<int>();
    }
  }
  return c;
}

std::optional<std::string> Config::get(std::string_view key) const {
  if (key == "cpu.threads" && cpu_threads) return std::to_string(*cpu_threads);
  if (key == "matmul_precision" && matmul_precision) return json(*matmul_precision).dump();
  if (key == "deterministic" && deterministic) return *deterministic ? "true" : "false";
  return std::nullopt;
}

void Config::merge(const Config& over) {
  if (over.plugin_paths) plugin_paths = over.plugin_paths;
  if (over.log_level) log_level = over.log_level;
  if (over.fallback_policy) fallback_policy = over.fallback_policy;
  for (const auto& [k, v] : over.fallback_by_device) fallback_by_device[k] = v;
  if (over.default_device) default_device = over.default_device;
  if (over.default_dtype) default_dtype = over.default_dtype;
  for (const auto& [k, v] : over.plugins) {
    if (v.enabled) plugins[k].enabled = v.enabled;
    if (v.rank) plugins[k].rank = v.rank;
    for (const auto& [ok, ov] : v.options) plugins[k].options[ok] = ov;
  }
  if (over.cpu_threads) cpu_threads = over.cpu_threads;
  if (over.allow_world_writable_plugin_paths) allow_world_writable_plugin_paths = over.allow_world_writable_plugin_paths;
  if (over.backends_allow) backends_allow = over.backends_allow;
  if (over.backends_deny) backends_deny = over.backends_deny;
  for (const auto& [k, v] : over.fallback_by_op) fallback_by_op[k] = v;
  if (over.fallback_target) fallback_target = over.fallback_target;
  if (over.matmul_precision) matmul_precision = over.matmul_precision;
  if (over.deterministic) deterministic = over.deterministic;
  if (over.log_pattern) log_pattern = over.log_pattern;
  if (over.log_file) log_file = over.log_file;
  if (over.trace_enabled) trace_enabled = over.trace_enabled;
  if (over.trace_file) trace_file = over.trace_file;
}

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
  if (const char* x = detail::secure_getenv_str("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/axle/config.json";
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

Config read_env_layer() {
  Config c;
  if (const char* p = detail::secure_getenv_str("AXLE_PLUGIN_PATH"); p && *p) {
    std::vector<std::string> paths;
    std::stringstream ss(p);
    for (std::string item; std::getline(ss, item, ':');)
      if (!item.empty()) paths.push_back(item);
    c.plugin_paths = paths;
  }
  if (const char* l = detail::secure_getenv_str("AXLE_LOG_LEVEL"); l && *l) {
    parse_log_level(l);
    c.log_level = l;
  }
  if (const char* f = detail::secure_getenv_str("AXLE_FALLBACK"); f && *f)
    c.fallback_policy = parse_fallback_policy(f, "AXLE_FALLBACK");
  if (const char* t = detail::secure_getenv_str("AXLE_TRACE"); t && *t) c.trace_enabled = parse_env_bool(t, "AXLE_TRACE");
  if (const char* t = detail::secure_getenv_str("AXLE_TRACE_FILE"); t && *t) c.trace_file = t;
  if (const char* f = detail::secure_getenv_str("AXLE_LOG_FILE"); f && *f) c.log_file = f;
  if (const char* m = detail::secure_getenv_str("AXLE_MATMUL_PRECISION"); m && *m)
    c.matmul_precision = check_matmul_precision(m, "AXLE_MATMUL_PRECISION");
  if (const char* d = detail::secure_getenv_str("AXLE_DETERMINISTIC"); d && *d)
    c.deterministic = parse_env_bool(d, "AXLE_DETERMINISTIC");
  return c;
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
    l.env = read_env_layer();
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

namespace {
// One layer as (key, JSON value) pairs, in the keys' documented spelling.
std::vector<std::pair<std::string, std::string>> flatten(const Config& c) {
  std::vector<std::pair<std::string, std::string>> out;
  auto str = [](const std::string& v) { return json(v).dump(); };
  if (c.plugin_paths) out.emplace_back("plugin_paths", json(*c.plugin_paths).dump());
  if (c.log_level) out.emplace_back("log_level", str(*c.log_level));
  if (c.fallback_policy) out.emplace_back("fallback.policy", str(fallback_policy_name(*c.fallback_policy)));
  for (const auto& [d, p] : c.fallback_by_device) out.emplace_back("fallback.devices." + d, str(fallback_policy_name(p)));
  if (c.default_device) out.emplace_back("default_device", str(*c.default_device));
  if (c.default_dtype) out.emplace_back("default_dtype", str(*c.default_dtype));
  for (const auto& [name, p] : c.plugins) {
    if (p.enabled) out.emplace_back("plugins." + name + ".enabled", *p.enabled ? "true" : "false");
    if (p.rank) out.emplace_back("plugins." + name + ".rank", std::to_string(*p.rank));
    for (const auto& [k, v] : p.options) out.emplace_back("plugins." + name + ".options." + k, v);
  }
  if (c.cpu_threads) out.emplace_back("cpu.threads", std::to_string(*c.cpu_threads));
  if (c.allow_world_writable_plugin_paths)
    out.emplace_back("allow_world_writable_plugin_paths", *c.allow_world_writable_plugin_paths ? "true" : "false");
  if (c.backends_allow) out.emplace_back("backends.allow", json(*c.backends_allow).dump());
  if (c.backends_deny) out.emplace_back("backends.deny", json(*c.backends_deny).dump());
  for (const auto& [op, p] : c.fallback_by_op) out.emplace_back("fallback.ops." + op, str(fallback_policy_name(p)));
  if (c.fallback_target) out.emplace_back("fallback.target", str(*c.fallback_target));
  if (c.matmul_precision) out.emplace_back("matmul_precision", str(*c.matmul_precision));
  if (c.deterministic) out.emplace_back("deterministic", *c.deterministic ? "true" : "false");
  if (c.log_pattern) out.emplace_back("log_pattern", str(*c.log_pattern));
  if (c.log_file) out.emplace_back("log_file", str(*c.log_file));
  if (c.trace_enabled) out.emplace_back("trace.enabled", *c.trace_enabled ? "true" : "false");
  if (c.trace_file) out.emplace_back("trace.file", str(*c.trace_file));
  return out;
}
}  // namespace

std::vector<ConfigEntry> config_sources() {
  Layers& l = layers();
  std::lock_guard lock(l.mutex);
  Layers& ll = loaded_layers();
  const std::pair<ConfigLayer, const Config*> order[] = {
      {ConfigLayer::Defaults, &ll.defaults}, {ConfigLayer::System, &ll.system},
      {ConfigLayer::User, &ll.user},         {ConfigLayer::File, &ll.file},
      {ConfigLayer::Environment, &ll.env},   {ConfigLayer::Application, &ll.app}};
  std::vector<ConfigEntry> out;
  for (const auto& [layer, config] : order) {
    const std::string source = layer == ConfigLayer::System ? ll.system_path
                               : layer == ConfigLayer::User ? ll.user_path
                               : layer == ConfigLayer::File ? ll.file_path
                                                            : "";
    for (auto& [key, value] : flatten(*config)) {
      static const std::map<std::string, std::string> kEnvNames = {
          {"plugin_paths", "AXLE_PLUGIN_PATH"},   {"log_level", "AXLE_LOG_LEVEL"},
          {"fallback.policy", "AXLE_FALLBACK"},  {"trace.enabled", "AXLE_TRACE"},
          {"trace.file", "AXLE_TRACE_FILE"},     {"log_file", "AXLE_LOG_FILE"},
          {"matmul_precision", "AXLE_MATMUL_PRECISION"}, {"deterministic", "AXLE_DETERMINISTIC"}};
      const auto env = kEnvNames.find(key);
      const std::string from = layer != ConfigLayer::Environment ? source
                               : env != kEnvNames.end()          ? env->second
                                                                 : "";
      auto it = std::find_if(out.begin(), out.end(), [&](const ConfigEntry& e) { return e.key == key; });
      if (it == out.end()) out.push_back({key, value, layer, from});
      else *it = {key, value, layer, from};
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
  change.matmul_precision = check_matmul_precision(precision, "set_float32_matmul_precision");
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
