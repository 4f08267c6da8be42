// The configuration keys: one table (rows()) that names every key with its
// type, environment variable and doc, and drives parsing, merging, the
// environment layer, `config show` (flatten) and lookups (Config::get, hence a
// plugin's get_option). core/src/config.cpp holds the layers built from it.
#include "config_keys.h"

#include <axle/config.h>
#include <axle/error.h>
#include <axle/logging.h>

#include <nlohmann/json.hpp>

#include "json_limits.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace axle {

using nlohmann::json;

namespace {

[[noreturn]] void type_error(std::string_view source, const std::string& path, const char* expected, const json& v) {
  throw ConfigError(detail::concat(source, ": '", path, "' must be ", expected, ", got ", v.type_name(), " ",
                                   detail::json_excerpt(v)));
}

void check_keys(std::string_view source, const std::string& prefix, const json& obj,
                const std::vector<std::string>& allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    std::vector<std::string> full;
    for (const auto& a : allowed) full.push_back(prefix + a);
    throw ConfigError(detail::concat(source, ": unknown configuration key '", prefix, it.key(), "'; did you mean '",
                                     detail::nearest(prefix + it.key(), full), "'?"));
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

bool parse_env_bool(const char* text, const char* name) {
  const std::string t = text;
  if (t == "1" || t == "true" || t == "on" || t == "yes") return true;
  if (t == "0" || t == "false" || t == "off" || t == "no" || t.empty()) return false;
  throw ConfigError(detail::concat(name, "='", t, "': expected 1/0, true/false, on/off or yes/no"));
}

}  // namespace

// ---------------------------------------------------------------- the keys
// Every configuration key is one row of the table in rows(): its dotted name,
// type, environment variable and one-line doc, and how its value is read (from
// JSON and from the environment), merged over a lower layer, listed
// (config_sources) and looked up (Config::get, hence get_option). Parsing walks
// the JSON document along the rows' names, so the allowed keys at each level and
// the "did you mean" candidates come from the table too. docs/config.md lists
// the same keys (tests/core/test_config.cpp checks it).
namespace {

// How one type of value is read from JSON and from an environment variable, and
// written back as JSON text.
template <class T>
struct Codec {
  std::function<T(const json& v, std::string_view source, const std::string& path)> from_json;
  std::function<T(const char* text, const char* variable)> from_env;  // empty: no environment form
  std::function<std::string(const T& value)> to_json;
};

// Validates a string value; `where` is the file or the environment variable.
using StringCheck = void (*)(const std::string& value, std::string_view where);

void check_log_level(const std::string& value, std::string_view) { parse_log_level(value); }

Codec<std::string> string_codec(StringCheck check = nullptr) {
  return {[check](const json& v, std::string_view source, const std::string& path) {
            std::string s = get_string(source, path, v);
            if (check) check(s, source);
            return s;
          },
          [check](const char* text, const char* variable) {
            if (check) check(text, variable);
            return std::string(text);
          },
          [](const std::string& s) { return json(s).dump(); }};
}

// In an environment variable the strings are ':'-separated (AXLE_PLUGIN_PATH).
Codec<std::vector<std::string>> strings_codec() {
  return {[](const json& v, std::string_view source, const std::string& path) { return get_strings(source, path, v); },
          [](const char* text, const char*) {
            std::vector<std::string> items;
            std::stringstream ss(text);
            for (std::string item; std::getline(ss, item, ':');)
              if (!item.empty()) items.push_back(item);
            return items;
          },
          [](const std::vector<std::string>& v) { return json(v).dump(); }};
}

Codec<bool> bool_codec() {
  return {[](const json& v, std::string_view source, const std::string& path) { return get_bool(source, path, v); },
          [](const char* text, const char* variable) { return parse_env_bool(text, variable); },
          [](const bool& b) { return std::string(b ? "true" : "false"); }};
}

// `expected` words the range for the error ("an integer from 0 ... to 4096").
Codec<int> int_codec(int64_t lo, int64_t hi, const char* expected) {
  return {[lo, hi, expected](const json& v, std::string_view source, const std::string& path) {
            if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
              type_error(source, path, expected, v);
            return v.get<int>();
          },
          nullptr, [](const int& i) { return std::to_string(i); }};
}

Codec<FallbackPolicy> policy_codec() {
  return {[](const json& v, std::string_view source, const std::string& path) {
            return parse_fallback_policy(get_string(source, path, v), source);
          },
          [](const char* text, const char* variable) { return parse_fallback_policy(text, variable); },
          [](const FallbackPolicy& p) { return json(fallback_policy_name(p)).dump(); }};
}

using Flat = std::vector<std::pair<std::string, std::string>>;  // (dotted key, JSON text)

// One key. `name` is the text of the key's <placeholder> ("cpu" in
// plugins.cpu.rank; "" for a key without one); `sub` is the part after an
// object key's name (get("plugins.cpu.options.threads") asks for "threads").
struct Row {
  ConfigKey info;
  std::function<void(Config& c, const std::string& name, const json& v, std::string_view source,
                     const std::string& path)>
      parse;
  std::function<void(Config& c, const char* text)> from_env;  // empty when info.env is ""
  std::function<void(Config& into, const Config& over)> merge;
  std::function<void(const Config& c, Flat& out)> flatten;
  std::function<std::optional<std::string>(const Config& c, const std::string& name, std::string_view sub)> get;
};

// The parts of a key around its placeholder: "plugins." and ".rank" in "plugins.<name>.rank".
std::string before_placeholder(std::string_view key) { return std::string(key.substr(0, key.find('<'))); }
std::string after_placeholder(std::string_view key) { return std::string(key.substr(key.find('>') + 1)); }

// A key with one value: "cpu.threads" -> Config::cpu_threads.
template <class T>
Row global(ConfigKey info, std::optional<T> Config::*field, Codec<T> codec) {
  Row r;
  r.info = info;
  r.parse = [field, codec](Config& c, const std::string&, const json& v, std::string_view source,
                           const std::string& path) { c.*field = codec.from_json(v, source, path); };
  if (!info.env.empty()) {
    AXLE_INTERNAL_ASSERT(codec.from_env != nullptr, "configuration key '", info.key, "' has no environment form");
    r.from_env = [field, codec, variable = std::string(info.env)](Config& c, const char* text) {
      c.*field = codec.from_env(text, variable.c_str());
    };
  }
  r.merge = [field](Config& into, const Config& over) {
    if (over.*field) into.*field = over.*field;
  };
  r.flatten = [field, codec, key = std::string(info.key)](const Config& c, Flat& out) {
    if (c.*field) out.emplace_back(key, codec.to_json(*(c.*field)));
  };
  r.get = [field, codec](const Config& c, const std::string&, std::string_view) -> std::optional<std::string> {
    if (!(c.*field)) return std::nullopt;
    return codec.to_json(*(c.*field));
  };
  return r;
}

// A value per name the user chooses: "fallback.ops.<op>" -> Config::fallback_by_op.
template <class T>
Row per_name(ConfigKey info, std::map<std::string, T> Config::*field, Codec<T> codec) {
  Row r;
  r.info = info;
  r.parse = [field, codec](Config& c, const std::string& name, const json& v, std::string_view source,
                           const std::string& path) { (c.*field)[name] = codec.from_json(v, source, path); };
  r.merge = [field](Config& into, const Config& over) {
    for (const auto& [k, v] : over.*field) (into.*field)[k] = v;
  };
  r.flatten = [field, codec, prefix = before_placeholder(info.key)](const Config& c, Flat& out) {
    for (const auto& [k, v] : c.*field) out.emplace_back(prefix + k, codec.to_json(v));
  };
  r.get = [field, codec](const Config& c, const std::string& name, std::string_view) -> std::optional<std::string> {
    auto it = (c.*field).find(name);
    if (it == (c.*field).end()) return std::nullopt;
    return codec.to_json(it->second);
  };
  return r;
}

// One plugin's setting: "plugins.<name>.rank" -> Config::plugins[name].rank.
template <class T>
Row per_plugin(ConfigKey info, std::optional<T> PluginSettings::*field, Codec<T> codec) {
  Row r;
  r.info = info;
  r.parse = [field, codec](Config& c, const std::string& name, const json& v, std::string_view source,
                           const std::string& path) { c.plugins[name].*field = codec.from_json(v, source, path); };
  r.merge = [field](Config& into, const Config& over) {
    for (const auto& [name, p] : over.plugins)
      if (p.*field) into.plugins[name].*field = p.*field;
  };
  r.flatten = [field, codec, prefix = before_placeholder(info.key), suffix = after_placeholder(info.key)](
                  const Config& c, Flat& out) {
    for (const auto& [name, p] : c.plugins)
      if (p.*field) out.emplace_back(prefix + name + suffix, codec.to_json(*(p.*field)));
  };
  r.get = [field, codec](const Config& c, const std::string& name, std::string_view) -> std::optional<std::string> {
    auto it = c.plugins.find(name);
    if (it == c.plugins.end() || !(it->second.*field)) return std::nullopt;
    return codec.to_json(*(it->second.*field));
  };
  return r;
}

// "plugins.<name>.options": plugin-defined keys, each value kept as JSON text;
// listed one entry per option ("plugins.cpu.options.threads").
Row plugin_options(ConfigKey info) {
  Row r;
  r.info = info;
  r.parse = [](Config& c, const std::string& name, const json& v, std::string_view source, const std::string& path) {
    if (!v.is_object()) type_error(source, path, "an object", v);
    std::map<std::string, std::string>& options = c.plugins[name].options;
    for (auto it = v.begin(); it != v.end(); ++it) options[it.key()] = it.value().dump();
  };
  r.merge = [](Config& into, const Config& over) {
    for (const auto& [name, p] : over.plugins)
      for (const auto& [k, v] : p.options) into.plugins[name].options[k] = v;
  };
  r.flatten = [prefix = before_placeholder(info.key), suffix = after_placeholder(info.key)](const Config& c,
                                                                                            Flat& out) {
    for (const auto& [name, p] : c.plugins)
      for (const auto& [k, v] : p.options) out.emplace_back(prefix + name + suffix + "." + k, v);
  };
  r.get = [](const Config& c, const std::string& name, std::string_view sub) -> std::optional<std::string> {
    auto it = c.plugins.find(name);
    if (it == c.plugins.end() || it->second.options.empty()) return std::nullopt;
    const std::map<std::string, std::string>& options = it->second.options;
    if (sub.empty()) {  // the whole object
      json all = json::object();
      for (const auto& [k, v] : options) all[k] = json::parse(v);
      return all.dump();
    }
    auto o = options.find(std::string(sub));
    if (o == options.end()) return std::nullopt;
    return o->second;
  };
  return r;
}

// The table. Its order is the order keys are read in and offered as "did you mean".
const std::vector<Row>& rows() {
  static const std::vector<Row> table = {
      global({"plugin_paths", "array of strings", "AXLE_PLUGIN_PATH",
              "plugin folders searched before the default one (the variable is ':'-separated)"},
             &Config::plugin_paths, strings_codec()),
      global({"log_level", "trace|debug|info|warn|error|off", "AXLE_LOG_LEVEL", "log threshold (default warn)"},
             &Config::log_level, string_codec(&check_log_level)),
      global({"fallback.policy", "error|warn_once|silent", "AXLE_FALLBACK",
              "what happens when a device has no kernel for a call (default warn_once)"},
             &Config::fallback_policy, policy_codec()),
      per_name({"fallback.devices.<type>", "error|warn_once|silent", "", "the fallback policy for one device type"},
               &Config::fallback_by_device, policy_codec()),
      per_name({"fallback.ops.<op>", "error|warn_once|silent", "",
                "the fallback policy for one operator (add.Tensor or add); wins over the device's"},
               &Config::fallback_by_op, policy_codec()),
      global({"fallback.target", "device", "", "where the fallback runs the op (default cpu)"},
             &Config::fallback_target, string_codec()),
      global({"default_device", "string", "", "the factories' default device (cpu)"}, &Config::default_device,
             string_codec()),
      global({"default_dtype", "string", "", "the factories' default dtype (float32)"}, &Config::default_dtype,
             string_codec()),
      per_plugin({"plugins.<name>.enabled", "bool", "", "false keeps the plugin out"}, &PluginSettings::enabled,
                 bool_codec()),
      per_plugin({"plugins.<name>.rank", "int", "", "overrides the plugin's rank (higher runs first)"},
                 &PluginSettings::rank, int_codec(INT32_MIN, INT32_MAX, "an integer")),
      plugin_options({"plugins.<name>.options", "object", "", "plugin-defined settings, read through get_option"}),
      global({"cpu.threads", "int", "", "the cpu plugin's OpenMP threads; 0 = every core"}, &Config::cpu_threads,
             int_codec(0, 4096, "an integer from 0 (every core) to 4096")),
      global({"allow_world_writable_plugin_paths", "bool", "",
              "load plugins from unsafe folders and files: writable by others, owned by another user, reached through "
              "such places (refused unless true)"},
             &Config::allow_world_writable_plugin_paths, bool_codec()),
      global({"backends.allow", "array of globs", "", "only plugins whose name matches one load"},
             &Config::backends_allow, strings_codec()),
      global({"backends.deny", "array of globs", "", "plugins whose name matches one never load; wins over allow"},
             &Config::backends_deny, strings_codec()),
      global({"matmul_precision", "highest|high|medium", "AXLE_MATMUL_PRECISION",
              "float32 matmul precision, as torch.set_float32_matmul_precision"},
             &Config::matmul_precision, string_codec(&detail::check_matmul_precision)),
      global({"deterministic", "bool", "AXLE_DETERMINISTIC",
              "run-to-run identical results, as torch.use_deterministic_algorithms"},
             &Config::deterministic, bool_codec()),
      global({"log_pattern", "spdlog pattern", "", "the log lines' format"}, &Config::log_pattern, string_codec()),
      global({"log_file", "path", "AXLE_LOG_FILE", "append log lines to this file instead of stderr"},
             &Config::log_file, string_codec()),
      global({"trace.enabled", "bool", "AXLE_TRACE", "trace mode: every call is recorded and logged"},
             &Config::trace_enabled, bool_codec()),
      global({"trace.file", "path", "AXLE_TRACE_FILE", "write the Chrome-trace JSON there at exit"},
             &Config::trace_file, string_codec()),
  };
  return table;
}

// The row whose key is spelled `key` ("plugins.<name>.rank" names a row too).
// Indexed once: get_option asks Config::get for keys such as "deterministic"
// from kernels, per call.
const Row* row_named(std::string_view key) {
  static const std::map<std::string_view, const Row*, std::less<>> index = [] {
    std::map<std::string_view, const Row*, std::less<>> m;
    for (const Row& r : rows()) m.emplace(r.info.key, &r);
    return m;
  }();
  const auto it = index.find(key);
  return it == index.end() ? nullptr : it->second;
}

bool is_placeholder(std::string_view segment) { return !segment.empty() && segment.front() == '<'; }

// The next name segments under `pattern` ("", "fallback.", "plugins.<name>."), in table order.
std::vector<std::string> segments_under(std::string_view pattern) {
  std::vector<std::string> out;
  for (const Row& r : rows()) {
    if (!r.info.key.starts_with(pattern)) continue;
    const std::string_view rest = r.info.key.substr(pattern.size());
    std::string segment(rest.substr(0, rest.find('.')));
    if (std::find(out.begin(), out.end(), segment) == out.end()) out.push_back(std::move(segment));
  }
  return out;
}

// Reads the object `obj`, found at JSON path `path` ("plugins.cpu.") whose keys
// match `pattern` ("plugins.<name>."), into c; `name` is the placeholder's text so far.
void parse_object(Config& c, const json& obj, const std::string& pattern, const std::string& path,
                  const std::string& name, std::string_view source) {
  const std::vector<std::string> segments = segments_under(pattern);
  auto read = [&](const std::string& segment, const std::string& key, const json& v, const std::string& row_name) {
    const std::string child_path = path + key;
    if (const Row* r = row_named(pattern + segment)) {
      r->parse(c, row_name, v, source, child_path);
    } else {
      if (!v.is_object()) type_error(source, child_path, "an object", v);
      parse_object(c, v, pattern + segment + ".", child_path + ".", row_name, source);
    }
  };
  if (segments.size() == 1 && is_placeholder(segments[0])) {  // names the user chooses: plugins.<name>
    for (auto it = obj.begin(); it != obj.end(); ++it) read(segments[0], it.key(), it.value(), it.key());
    return;
  }
  for (const std::string& s : segments)
    AXLE_INTERNAL_ASSERT(!is_placeholder(s), "a <placeholder> must be the only key under '", pattern, "'");
  check_keys(source, path, obj, segments);
  for (const std::string& s : segments)
    if (auto it = obj.find(s); it != obj.end()) read(s, s, *it, name);
}

}  // namespace

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> keys = [] {
    std::vector<ConfigKey> out;
    for (const Row& r : rows()) out.push_back(r.info);
    return out;
  }();
  return keys;
}

const std::vector<std::string>& known_config_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    auto add = [&](std::string_view k) {
      if (std::find(out.begin(), out.end(), k) == out.end()) out.emplace_back(k);
    };
    for (const Row& r : rows()) {
      for (size_t dot = r.info.key.find('.'); dot != std::string_view::npos; dot = r.info.key.find('.', dot + 1))
        add(r.info.key.substr(0, dot));  // the objects holding it: "fallback", "plugins", "plugins.<name>"
      add(r.info.key);
    }
    return out;
  }();
  return keys;
}

Config Config::parse(std::string_view json_text, std::string_view source) {
  // Bounded before parsing: messages dump values, and dump() recurses.
  if (detail::json_depth(json_text) > detail::kMaxJsonDepth)
    throw ConfigError(
        detail::concat(source, ": malformed JSON: nested deeper than ", detail::kMaxJsonDepth, " levels"));
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    throw ConfigError(detail::concat(source, ": malformed JSON: ", e.what()));
  }
  if (!doc.is_object()) type_error(source, "<root>", "an object", doc);
  Config c;
  parse_object(c, doc, "", "", "", source);
  return c;
}

std::optional<std::string> Config::get(std::string_view key) const {
  if (const Row* r = row_named(key); r && r->info.key.find('<') == std::string_view::npos) return r->get(*this, "", "");
  for (const Row& r : rows()) {
    const std::string_view k = r.info.key;
    const size_t open = k.find('<');
    if (open == std::string_view::npos) continue;  // answered above
    // "plugins.<name>.rank": the name runs from the prefix to the suffix;
    // an object key may go on with ".<sub-key>".
    const std::string_view prefix = k.substr(0, open), suffix = k.substr(k.find('>') + 1);
    if (!key.starts_with(prefix) || key.size() == prefix.size()) continue;
    std::string_view name = key.substr(prefix.size()), sub;
    if (!suffix.empty()) {
      const size_t at = name.find(suffix);
      if (at == 0 || at == std::string_view::npos) continue;
      sub = name.substr(at + suffix.size());
      name = name.substr(0, at);
      if (!sub.empty() && (sub.front() != '.' || r.info.type != "object")) continue;
      if (!sub.empty()) sub.remove_prefix(1);
    }
    // Names may contain dots ("fallback.ops.add.Tensor"; an option called
    // "rank"), so a miss goes on to the next row.
    if (std::optional<std::string> v = r.get(*this, std::string(name), sub)) return v;
  }
  return std::nullopt;
}

void Config::merge(const Config& over) {
  for (const Row& r : rows()) r.merge(*this, over);
}

namespace detail {

void check_matmul_precision(const std::string& p, std::string_view where) {
  AXLE_CHECK(p == "highest" || p == "high" || p == "medium", ConfigError, where, ": invalid matmul precision '", p,
             "': expected highest, high or medium");
}

Config config_from_environment() {
  Config c;
  for (const Row& r : rows()) {
    if (!r.from_env) continue;
    const char* text = secure_getenv_str(std::string(r.info.env).c_str());
    if (text && *text) r.from_env(c, text);
  }
  return c;
}

std::vector<std::pair<std::string, std::string>> flatten_config(const Config& c) {
  Flat out;
  for (const Row& r : rows()) r.flatten(c, out);
  return out;
}

std::string_view env_variable_of(std::string_view key) {
  const Row* row = row_named(key);
  return row ? row->info.env : std::string_view();
}

}  // namespace detail

}  // namespace axle
