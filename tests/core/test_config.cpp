// Configuration layers: parsing, unknown keys with suggestions, wrong types.
#include <axle/config.h>
#include <axle/error.h>

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
