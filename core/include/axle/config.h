// Configuration. Layers, later wins: built-in defaults -> the system file
// (/etc/axle/config.json) -> the user file ($XDG_CONFIG_HOME/axle/config.json,
// else ~/.config/axle/config.json) -> the AXLE_CONFIG file -> environment
// variables (config_keys()' `env`) -> the embedding
// application's Config (axle::configure). Missing system/user files are empty
// layers; a malformed one is a ConfigError naming it. Environment variables are
// ignored in secure-execution (setuid) processes. An unknown key is a
// ConfigError naming the key and the nearest valid one.
//
// The keys (name, type, environment variable, doc) are one table in
// core/src/config_keys.cpp, listed by config_keys() and in docs/config.md; it drives
// parsing, merging, the environment layer, config_sources() and Config::get.
#pragma once

#include <axle/export.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace axle {

enum class FallbackPolicy { Error, WarnOnce, Silent };
AXLE_API FallbackPolicy parse_fallback_policy(std::string_view text, std::string_view where);
AXLE_API const char* fallback_policy_name(FallbackPolicy p);

struct PluginSettings {
  std::optional<bool> enabled;
  std::optional<int> rank;
  // plugins.<name>.options: plugin-defined keys, each value kept as JSON text;
  // a plugin reads them through axle_host_api.get_option.
  std::map<std::string, std::string> options;
};

// One configuration layer; unset fields leave lower layers' values in place.
// Each field holds the value of a key of config_keys() (docs/config.md says what
// each means).
struct AXLE_API Config {
  std::optional<std::vector<std::string>> plugin_paths;
  std::optional<std::string> log_level;
  std::optional<FallbackPolicy> fallback_policy;             // "fallback": {"policy": ...}
  std::map<std::string, FallbackPolicy> fallback_by_device;  // "fallback": {"devices": {...}}
  std::optional<std::string> default_device;
  std::optional<std::string> default_dtype;
  std::map<std::string, PluginSettings> plugins;  // "plugins": {name: {...}}
  std::optional<int> cpu_threads;                 // "cpu": {"threads": n}; 0 = every core
  // Plugin folders anyone may write to are skipped (a planted .so would run in
  // every axle process) unless this is true.
  std::optional<bool> allow_world_writable_plugin_paths;
  // "backends": {"allow": [globs], "deny": [globs]} on plugin names: a plugin
  // must match an allow glob (when any is given) and no deny glob to load.
  std::optional<std::vector<std::string>> backends_allow;
  std::optional<std::vector<std::string>> backends_deny;
  // "fallback": {"ops": {"conv2d": "error"}, "target": "cpu"}: the policy per
  // operator (overrides the per-device one) and the device the fallback runs on.
  std::map<std::string, FallbackPolicy> fallback_by_op;
  std::optional<std::string> fallback_target;
  // "matmul_precision": "highest" (float32 products in float32), "high"
  // (TF32 or bf16x3 allowed), "medium" (bf16 allowed), as
  // torch.set_float32_matmul_precision. Plugins read it through the host API.
  std::optional<std::string> matmul_precision;
  // "deterministic": true asks for run-to-run identical results
  // (torch.use_deterministic_algorithms). Plugins read it with get_option(NULL,
  // "deterministic"). The CUDA plugin then uses deterministic cuDNN algorithms
  // only and declines floating-point scatter_add (atomics).
  std::optional<bool> deterministic;
  // "log_pattern" (spdlog pattern) and "log_file" (append log lines to a file
  // instead of stderr).
  std::optional<std::string> log_pattern;
  std::optional<std::string> log_file;
  // "trace": {"enabled": bool, "file": path}: trace mode (axle/trace.h) and
  // the Chrome-trace file written at exit.
  std::optional<bool> trace_enabled;
  std::optional<std::string> trace_file;

  // A setting by dotted key as JSON text, if set: any key of config_keys() with
  // its <placeholder> filled in ("cpu.threads", "fallback.ops.conv2d",
  // "plugins.cpu.rank", "plugins.cpu.options" as an object,
  // "plugins.cpu.options.threads"). The host API's get_option(NULL, key).
  std::optional<std::string> get(std::string_view key) const;

  // Parses a JSON document; `source` names it in errors. Throws ConfigError.
  static Config parse(std::string_view json_text, std::string_view source);
  // Applies `over` on top of this layer.
  void merge(const Config& over);
};

// The merged configuration: defaults, then AXLE_CONFIG, then environment, then
// the application's layer. Computed on first use; configure() recomputes it.
// A snapshot (copy): safe to use while another thread calls configure().
AXLE_API Config effective_config();
// Sets the application layer. Plugin paths take effect for plugins not yet
// discovered; log level and fallback policies at once.
AXLE_API void configure(const Config& application_layer);
enum class ConfigLayer { Defaults, System, User, File, Environment, Application };
AXLE_API const char* config_layer_name(ConfigLayer layer);  // "defaults", "system file", ...
// One layer as read (plugin search combines layers in order instead of overriding).
AXLE_API Config config_layer(ConfigLayer layer);
// Every effective setting with the layer it came from (for `axle config show`).
struct ConfigEntry {
  std::string key;    // "cpu.threads", "plugins.cpu.options.threads", ...
  std::string value;  // JSON text
  ConfigLayer layer;
  std::string source;  // the file path or environment variable ("" for defaults / application)
};
AXLE_API std::vector<ConfigEntry> config_sources();
// Reads the files and environment again (the application layer is kept).
AXLE_API void reload_config();

// torch.set_float32_matmul_precision / get_float32_matmul_precision: the
// application layer's matmul_precision ("highest", "high" or "medium";
// ConfigError otherwise). Plugins read it with get_option(NULL, "matmul_precision").
AXLE_API void set_float32_matmul_precision(const std::string& precision);
AXLE_API std::string get_float32_matmul_precision();
// torch.use_deterministic_algorithms: the application layer's deterministic key.
AXLE_API void use_deterministic_algorithms(bool enabled);
AXLE_API bool are_deterministic_algorithms_enabled();

// One configuration key, a row of the table in core/src/config_keys.cpp.
struct ConfigKey {
  std::string_view key;   // dotted; a <placeholder> segment is a name the user chooses ("fallback.ops.<op>")
  std::string_view type;  // as documented: "bool", "int", "array of strings", "error|warn_once|silent", ...
  std::string_view env;   // the environment variable setting it, "" if none
  std::string_view doc;   // one line
};
// Every key, in the table's order (the order files are read in).
AXLE_API const std::vector<ConfigKey>& config_keys();
// The keys a config file may contain and the objects holding them ("plugin_paths",
// "fallback", "fallback.policy", "plugins.<name>", "plugins.<name>.rank", ...).
AXLE_API const std::vector<std::string>& known_config_keys();

namespace detail {
// Returns getenv(name) unless the process runs in secure-execution mode
// (AT_SECURE: setuid/setgid or file capabilities).
AXLE_API const char* secure_getenv_str(const char* name);
// Replaces the secure-execution check (default: getauxval(AT_SECURE) != 0);
// nullptr restores it. Tests drive the secure path without a setuid binary.
AXLE_API void set_secure_execution_check(bool (*check)());
// Levenshtein-nearest candidate (for "did you mean").
AXLE_API std::string nearest(std::string_view word, const std::vector<std::string>& candidates);
}  // namespace detail

}  // namespace axle
