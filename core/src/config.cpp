// JSON configuration layers (nlohmann/json) and their validation.
#include <axle/config.h>
#include <axle/error.h>
#include <axle/logging.h>

#include <nlohmann/json.hpp>
#include <sys/auxv.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
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
      "allow_world_writable_plugin_paths"};
  return keys;
}

namespace detail {

const char* secure_getenv_str(const char* name) {
  if (getauxval(AT_SECURE) != 0) return nullptr;
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

}  // namespace

Config Config::parse(std::string_view json_text, std::string_view source) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw ConfigError(detail::concat(source, ": malformed JSON: ", e.what()));
  }
  if (!doc.is_object()) type_error(source, "<root>", "an object", doc);
  check_keys(source, "", doc, {"plugin_paths", "log_level", "fallback", "default_device", "default_dtype", "plugins", "cpu",
                                  "allow_world_writable_plugin_paths"});
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
    check_keys(source, "fallback.", f, {"policy", "devices"});
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
}

namespace {

struct Layers {
  std::mutex mutex;
  bool loaded = false;
  Config defaults, system, user, file, env, app, effective;
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
  return c;
}

void recompute(Layers& l) {
  Config e = l.defaults;
  e.merge(l.system);
  e.merge(l.user);
  e.merge(l.file);
  e.merge(l.env);
  e.merge(l.app);
  l.effective = e;
  set_log_level(parse_log_level(*l.effective.log_level));
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
    l.loaded = true;
    recompute(l);
  }
  return l;
}

}  // namespace

Config effective_config() {
  Layers& l = layers();
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

void configure(const Config& application_layer) {
  if (application_layer.log_level) parse_log_level(*application_layer.log_level);
  Layers& l = layers();
  std::lock_guard lock(l.mutex);
  Layers& ll = loaded_layers();
  ll.app.merge(application_layer);
  recompute(ll);
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
      const std::string from = layer != ConfigLayer::Environment ? source
                               : key == "plugin_paths"           ? "AXLE_PLUGIN_PATH"
                               : key == "log_level"              ? "AXLE_LOG_LEVEL"
                                                                 : "AXLE_FALLBACK";
      auto it = std::find_if(out.begin(), out.end(), [&](const ConfigEntry& e) { return e.key == key; });
      if (it == out.end()) out.push_back({key, value, layer, from});
      else *it = {key, value, layer, from};
    }
  }
  std::sort(out.begin(), out.end(), [](const ConfigEntry& a, const ConfigEntry& b) { return a.key < b.key; });
  return out;
}

void reload_config() {
  Layers& l = layers();
  std::lock_guard lock(l.mutex);
  const Config app = l.app;
  l.loaded = false;
  loaded_layers();
  l.app = app;
  recompute(l);
}

}  // namespace axle
