// Configuration layers: parsing, unknown keys with suggestions, wrong types.
#include <axle/config.h>
#include <axle/error.h>

#include <doctest/doctest.h>

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
