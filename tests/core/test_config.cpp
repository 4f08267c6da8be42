// Configuration layers: parsing, unknown keys with suggestions, wrong types; the
// key table against get(), config_sources() and docs/config.md.
#include <axle/config.h>
#include <axle/error.h>
#include <axle/logging.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

using namespace axle;

static std::string error_of(const std::string& text) {
  try {
    Config::parse(text, "test.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("a valid config parses") {
  const Config c = Config::parse(R"({"plugin_paths": ["/a", "/b"], "log_level": "info",
      "fallback": {"policy": "error", "devices": {"sim": "silent"}},
      "plugins": {"reference": {"enabled": true, "rank": 3}}})",
                                 "test.json");
  REQUIRE(c.plugin_paths.has_value());
  CHECK(c.plugin_paths->size() == 2);
  CHECK(*c.fallback_policy == FallbackPolicy::Error);
  CHECK(c.fallback_by_device.at("sim") == FallbackPolicy::Silent);
  CHECK(*c.plugins.at("reference").rank == 3);
}

TEST_CASE("unknown keys name the key and the nearest valid one") {
  const std::string e = error_of(R"({"plugin_path": []})");
  CHECK(e.find("'plugin_path'") != std::string::npos);
  CHECK(e.find("did you mean 'plugin_paths'") != std::string::npos);
  CHECK(error_of(R"({"fallback": {"polcy": "error"}})").find("fallback.policy") != std::string::npos);
}

TEST_CASE("wrong types and values name the JSON path") {
  CHECK(error_of(R"({"plugin_paths": "/a"})").find("'plugin_paths' must be an array") != std::string::npos);
  CHECK(error_of(R"({"plugin_paths": [1]})").find("plugin_paths[0]") != std::string::npos);
  CHECK(error_of(R"({"log_level": "loud"})").find("loud") != std::string::npos);
  CHECK(error_of(R"({"fallback": {"policy": "sometimes"}})").find("sometimes") != std::string::npos);
  CHECK(error_of(R"({"plugins": {"x": {"rank": "high"}}})").find("plugins.x.rank") != std::string::npos);
  // Numbers out of range are ConfigErrors, never another exception or a wrapped value.
  CHECK(error_of(R"({"plugins": {"x": {"rank": 1e400}}})").find("malformed JSON") != std::string::npos);
  CHECK(error_of(R"({"plugins": {"x": {"rank": 4294967297}}})").find("plugins.x.rank") != std::string::npos);
  CHECK(error_of(R"({"plugins": {"x": {"rank": 18446744073709551615}}})").find("plugins.x.rank") != std::string::npos);
  CHECK(error_of(R"({"cpu": {"threads": 18446744073709551615}})").find("cpu.threads") != std::string::npos);
  // Invalid UTF-8 is a ConfigError too.
  CHECK(error_of("{\"log_level\": \"\xff\"}").find("malformed JSON") != std::string::npos);
  CHECK(error_of("{not json").find("malformed JSON") != std::string::npos);
  CHECK(error_of("[]").find("must be an object") != std::string::npos);
}

TEST_CASE("deeply nested or huge values are errors with short messages, not stack overflows") {
  // dump() of a value nested 300,000 deep recursed past the stack in the error path.
  const std::string deep = R"({"log_level": )" + std::string(300000, '[') + std::string(300000, ']') + "}";
  CHECK(error_of(deep).find("nested deeper than 128 levels") != std::string::npos);
  // Brackets inside strings do not count; a wrong-typed value is cut in the message.
  const std::string e = error_of(R"({"plugin_paths": ")" + std::string(100000, '[') + R"("})");
  CHECK(e.find("'plugin_paths' must be an array") != std::string::npos);
  CHECK(e.size() < 400);
  const std::string nested = R"({"plugin_paths": )" + std::string(100, '[') + std::string(100, ']') + "}";
  CHECK(error_of(nested).find("plugin_paths[0]") != std::string::npos);
}

TEST_CASE("later layers win") {
  Config base = Config::parse(R"({"log_level": "info", "fallback": {"policy": "silent"}})", "a");
  base.merge(Config::parse(R"({"log_level": "error"})", "b"));
  CHECK(*base.log_level == "error");
  CHECK(*base.fallback_policy == FallbackPolicy::Silent);
}

TEST_CASE("plugin options and cpu.threads") {
  const Config c = Config::parse(R"({"plugins": {"cpu": {"options": {"threads": 2, "mode": "fast"}}},
                                     "cpu": {"threads": 3}})",
                                 "opts.json");
  CHECK(c.plugins.at("cpu").options.at("threads") == "2");
  CHECK(c.plugins.at("cpu").options.at("mode") == "\"fast\"");  // kept as JSON text
  CHECK(*c.cpu_threads == 3);
  CHECK(*c.get("cpu.threads") == "3");
  CHECK(!c.get("cpu.nothing"));
  CHECK(error_of(R"({"cpu": {"threads": -1}})").find("cpu.threads") != std::string::npos);
  CHECK(error_of(R"({"cpu": {"thread": 1}})").find("threads") != std::string::npos);
  CHECK(error_of(R"({"plugins": {"cpu": {"options": 3}}})").find("plugins.cpu.options") != std::string::npos);
  Config base = c;
  base.merge(Config::parse(R"({"plugins": {"cpu": {"options": {"threads": 1}}}})", "over.json"));
  CHECK(base.plugins.at("cpu").options.at("threads") == "1");
  CHECK(base.plugins.at("cpu").options.at("mode") == "\"fast\"");
}

TEST_CASE(
    "system and user files are layers between the defaults and AXLE_CONFIG; config_sources names each value's layer") {
  const std::string dir = "/tmp/axle_test_config_layers";
  std::filesystem::create_directories(dir + "/xdg/axle");
  std::ofstream(dir + "/system.json")
      << R"({"log_level": "info", "cpu": {"threads": 3}, "plugins": {"x": {"rank": 7}}})";
  std::ofstream(dir + "/xdg/axle/config.json") << R"({"log_level": "error", "cpu": {"threads": 5}})";
  std::ofstream(dir + "/file.json") << R"({"cpu": {"threads": 2}})";
  const char* level_env = std::getenv("AXLE_LOG_LEVEL");  // meson sets it: the environment layer would win
  const std::string saved_level = level_env ? level_env : "";
  unsetenv("AXLE_LOG_LEVEL");
  setenv("AXLE_SYSTEM_CONFIG", (dir + "/system.json").c_str(), 1);
  setenv("XDG_CONFIG_HOME", (dir + "/xdg").c_str(), 1);
  setenv("AXLE_CONFIG", (dir + "/file.json").c_str(), 1);
  reload_config();
  const Config c = effective_config();
  CHECK(*c.cpu_threads == 2);           // AXLE_CONFIG beats the user and system files
  CHECK(*c.log_level == "error");       // the user file beats the system file
  CHECK(*c.plugins.at("x").rank == 7);  // only the system file sets it
  auto find = [](const std::string& key) {
    for (const ConfigEntry& e : config_sources())
      if (e.key == key) return e;
    return ConfigEntry{};
  };
  CHECK(find("cpu.threads").layer == ConfigLayer::File);
  CHECK(find("cpu.threads").source == dir + "/file.json");
  CHECK(find("log_level").layer == ConfigLayer::User);
  CHECK(find("plugins.x.rank").layer == ConfigLayer::System);
  CHECK(find("plugins.x.rank").value == "7");
  CHECK(find("fallback.policy").layer == ConfigLayer::Defaults);
  // A malformed system file is a ConfigError naming it.
  std::ofstream(dir + "/system.json") << "{oops";
  CHECK_THROWS_WITH_AS(reload_config(), doctest::Contains("system.json"), ConfigError);
  unsetenv("AXLE_SYSTEM_CONFIG");
  unsetenv("XDG_CONFIG_HOME");
  setenv("AXLE_CONFIG", "", 1);
  if (!saved_level.empty()) setenv("AXLE_LOG_LEVEL", saved_level.c_str(), 1);
  reload_config();
  CHECK(!effective_config().cpu_threads);
  std::filesystem::remove_all(dir);
}

TEST_CASE("issue 8 keys: backends, per-op fallback and target, matmul precision, deterministic, log, trace") {
  const Config c = Config::parse(R"({"backends": {"allow": ["ref*", "cpu"], "deny": ["cuda*"]},
      "fallback": {"ops": {"conv2d": "error"}, "target": "cpu"}, "matmul_precision": "high",
      "deterministic": true, "log_pattern": "%v", "log_file": "/tmp/x.log",
      "trace": {"enabled": true, "file": "/tmp/t.json"}})",
                                 "test.json");
  CHECK(c.backends_allow->size() == 2);
  CHECK(c.backends_deny->at(0) == "cuda*");
  CHECK(c.fallback_by_op.at("conv2d") == FallbackPolicy::Error);
  CHECK(*c.fallback_target == "cpu");
  CHECK(*c.matmul_precision == "high");
  CHECK(*c.get("matmul_precision") == "\"high\"");
  CHECK(*c.deterministic);
  CHECK(*c.get("deterministic") == "true");
  CHECK(*c.log_file == "/tmp/x.log");
  CHECK(*c.trace_enabled);
  CHECK(*c.trace_file == "/tmp/t.json");
  CHECK(error_of(R"({"backends": {"allow": "cpu"}})").find("'backends.allow' must be an array of strings") !=
        std::string::npos);
  CHECK(error_of(R"({"backends": {"deny": [1]}})").find("'backends.deny[0]' must be a string") != std::string::npos);
  CHECK(error_of(R"({"matmul_precision": "fast"})").find("invalid matmul precision 'fast'") != std::string::npos);
  CHECK(error_of(R"({"deterministic": "yes"})").find("'deterministic' must be a boolean") != std::string::npos);
  CHECK(error_of(R"({"trace": {"enable": true}})").find("did you mean 'trace.enabled'") != std::string::npos);
  CHECK(error_of(R"({"fallback": {"ops": {"conv2d": "loud"}}})").find("loud") != std::string::npos);
}

namespace {
bool always_secure() { return true; }
}  // namespace

TEST_CASE("environment variables are ignored in secure-execution processes (injected AT_SECURE)") {
  setenv("AXLE_MATMUL_PRECISION", "medium", 1);
  reload_config();
  CHECK(effective_config().matmul_precision.value_or("") == "medium");
  detail::set_secure_execution_check(&always_secure);
  reload_config();
  // Secure mode also ignores AXLE_SYSTEM_CONFIG / XDG_CONFIG_HOME, so the
  // machine's own /etc/axle/config.json may apply here: only the environment
  // layer is checked, not the resulting values.
  for (const ConfigEntry& e : config_sources()) {
    CAPTURE(e.key);
    CHECK(e.layer != ConfigLayer::Environment);
  }
  CHECK(detail::secure_getenv_str("AXLE_MATMUL_PRECISION") == nullptr);
  detail::set_secure_execution_check(nullptr);
  unsetenv("AXLE_MATMUL_PRECISION");
  reload_config();
  CHECK(!effective_config().matmul_precision.has_value());
}

TEST_CASE("matmul precision and deterministic mode through the API, as torch's setters") {
  CHECK(get_float32_matmul_precision() == "highest");
  set_float32_matmul_precision("high");
  CHECK(get_float32_matmul_precision() == "high");
  CHECK_THROWS_AS(set_float32_matmul_precision("fastest"), ConfigError);
  CHECK(!are_deterministic_algorithms_enabled());
  use_deterministic_algorithms(true);
  CHECK(are_deterministic_algorithms_enabled());
  set_float32_matmul_precision("highest");
  use_deterministic_algorithms(false);
}

TEST_CASE("log_file and log_pattern route log lines; a bad env value is a ConfigError naming it") {
  const std::string path = "/tmp/axle_test_log_file.log";
  std::filesystem::remove(path);
  configure_log_output("%l|%v", path);
  log_message(LogLevel::Error, "hello from the test");
  configure_log_output("", "");
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  CHECK(line == "error|hello from the test");
  CHECK_THROWS_AS(configure_log_output("", "/dev/null/x.log"), ConfigError);
  std::filesystem::remove(path);
  setenv("AXLE_DETERMINISTIC", "maybe", 1);
  CHECK_THROWS_WITH_AS(reload_config(), doctest::Contains("AXLE_DETERMINISTIC='maybe'"), ConfigError);
  unsetenv("AXLE_DETERMINISTIC");
  reload_config();
}

TEST_CASE("get (the host API's get_option) answers every key of the table") {
  const Config c = Config::parse(R"({"plugin_paths": ["/a"], "log_level": "info",
      "fallback": {"policy": "error", "devices": {"sim": "silent"}, "ops": {"add.Tensor": "warn_once"}, "target": "cpu"},
      "default_device": "cpu", "default_dtype": "float64",
      "plugins": {"x": {"enabled": false, "rank": 3, "options": {"mode": "fast", "rank": 2}}},
      "cpu": {"threads": 0}, "allow_world_writable_plugin_paths": true,
      "backends": {"allow": ["ref*"], "deny": ["cuda*"]}, "matmul_precision": "medium", "deterministic": false,
      "log_pattern": "%v", "log_file": "/tmp/x.log", "trace": {"enabled": true, "file": "/tmp/t.json"}})",
                                 "all.json");
  const std::map<std::string, std::string> expected = {
      {"plugin_paths", R"(["/a"])"},
      {"log_level", R"("info")"},
      {"fallback.policy", R"("error")"},
      {"fallback.devices.sim", R"("silent")"},
      {"fallback.ops.add.Tensor", R"("warn_once")"},
      {"fallback.target", R"("cpu")"},
      {"default_device", R"("cpu")"},
      {"default_dtype", R"("float64")"},
      {"plugins.x.enabled", "false"},
      {"plugins.x.rank", "3"},
      {"plugins.x.options", R"({"mode":"fast","rank":2})"},
      {"plugins.x.options.mode", R"("fast")"},
      {"plugins.x.options.rank", "2"},  // an option named like a plugin key
      {"cpu.threads", "0"},
      {"allow_world_writable_plugin_paths", "true"},
      {"backends.allow", R"(["ref*"])"},
      {"backends.deny", R"(["cuda*"])"},
      {"matmul_precision", R"("medium")"},
      {"deterministic", "false"},
      {"log_pattern", R"("%v")"},
      {"log_file", R"("/tmp/x.log")"},
      {"trace.enabled", "true"},
      {"trace.file", R"("/tmp/t.json")"},
  };
  for (const auto& [key, value] : expected) {
    CAPTURE(key);
    REQUIRE(c.get(key).has_value());
    CHECK(*c.get(key) == value);
  }
  // Every key of the table (its <placeholder> filled in) is answered above.
  for (const ConfigKey& k : config_keys()) {
    std::string key(k.key);
    for (const char* name : {"<type>", "<op>", "<name>"})
      if (const size_t at = key.find(name); at != std::string::npos)
        key.replace(at, std::string_view(name).size(),
                    std::string_view(name) == "<op>"     ? "add.Tensor"
                    : std::string_view(name) == "<type>" ? "sim"
                                                         : "x");
    CAPTURE(key);
    CHECK(expected.count(key) == 1);
  }
  for (const char* unset : {"nothing", "fallback", "fallback.ops", "fallback.ops.mul", "plugins.x", "plugins.y.rank",
                            "plugins.x.options.nothing", "plugins.x.rankx", "cpu", "cpu.threadsx"}) {
    CAPTURE(unset);
    CHECK(!c.get(unset));
  }
  CHECK(!Config{}.get("fallback.policy"));
}

TEST_CASE("config_sources lists each key as get() spells it, with its environment variable") {
  setenv("AXLE_FALLBACK", "silent", 1);
  reload_config();
  bool found = false;
  for (const ConfigEntry& e : config_sources()) {
    if (e.key != "fallback.policy") continue;
    found = true;
    CHECK(e.layer == ConfigLayer::Environment);
    CHECK(e.source == "AXLE_FALLBACK");
    CHECK(e.value == "\"silent\"");
    CHECK(e.value == *effective_config().get("fallback.policy"));
  }
  CHECK(found);
  unsetenv("AXLE_FALLBACK");
  reload_config();
}

TEST_CASE("docs/config.md lists exactly the table's keys") {
  std::ifstream in(std::string(AXLE_TEST_SOURCE_DIR) + "/docs/config.md");
  REQUIRE(in.good());
  // The key column of the table: every `name` in a row's first cell.
  std::multiset<std::string> documented;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const std::string cell = line.substr(1, line.find('|', 1) - 1);
    for (size_t open = cell.find('`'); open != std::string::npos; open = cell.find('`', open)) {
      const size_t close = cell.find('`', open + 1);
      documented.insert(cell.substr(open + 1, close - open - 1));
      open = close + 1;
    }
  }
  std::multiset<std::string> table;
  for (const ConfigKey& k : config_keys()) table.insert(std::string(k.key));
  for (const std::string& k : documented) {
    CAPTURE(k);
    CHECK(table.count(k) == 1);  // documented but not a key (or documented twice)
    CHECK(documented.count(k) == 1);
  }
  for (const std::string& k : table) {
    CAPTURE(k);
    CHECK(documented.count(k) == 1);  // a key docs/config.md does not list
  }
}

TEST_CASE("the key table: names, types, docs, environment variables") {
  std::set<std::string_view> keys, variables;
  for (const ConfigKey& k : config_keys()) {
    CAPTURE(k.key);
    CHECK(keys.insert(k.key).second);
    CHECK(!k.type.empty());
    CHECK(!k.doc.empty());
    if (!k.env.empty()) CHECK(variables.insert(k.env).second);
    const auto& known = known_config_keys();
    CHECK(std::find(known.begin(), known.end(), k.key) != known.end());
  }
  CHECK(variables == std::set<std::string_view>{"AXLE_PLUGIN_PATH", "AXLE_LOG_LEVEL", "AXLE_FALLBACK",
                                                "AXLE_MATMUL_PRECISION", "AXLE_DETERMINISTIC", "AXLE_LOG_FILE",
                                                "AXLE_TRACE", "AXLE_TRACE_FILE"});
}
