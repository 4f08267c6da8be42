// Configuration layers: parsing, unknown keys with suggestions, wrong types.
#include <axle/config.h>
#include <axle/error.h>
#include <axle/logging.h>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
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
      "plugins": {"reference": {"enabled": true, "rank": 3}}})", "test.json");
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
  CHECK(error_of("{not json").find("malformed JSON") != std::string::npos);
  CHECK(error_of("[]").find("must be an object") != std::string::npos);
}

TEST_CASE("later layers win") {
  Config base = Config::parse(R"({"log_level": "info", "fallback": {"policy": "silent"}})", "a");
  base.merge(Config::parse(R"({"log_level": "error"})", "b"));
  CHECK(*base.log_level == "error");
  CHECK(*base.fallback_policy == FallbackPolicy::Silent);
}

TEST_CASE("plugin options and cpu.threads") {
  const Config c = Config::parse(R"({"plugins": {"cpu": {"options": {"threads": 2, "mode": "fast"}}},
                                     "cpu": {"threads": 3}})", "opts.json");
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

TEST_CASE("system and user files are layers between the defaults and AXLE_CONFIG; config_sources names each value's layer") {
  const std::string dir = "/tmp/axle_test_config_layers";
  std::filesystem::create_directories(dir + "/xdg/axle");
  std::ofstream(dir + "/system.json") << R"({"log_level": "info", "cpu": {"threads": 3}, "plugins": {"x": {"rank": 7}}})";
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
  CHECK(*c.cpu_threads == 2);             // AXLE_CONFIG beats the user and system files
  CHECK(*c.log_level == "error");         // the user file beats the system file
  CHECK(*c.plugins.at("x").rank == 7);    // only the system file sets it
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
      "trace": {"enabled": true, "file": "/tmp/t.json"}})", "test.json");
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
