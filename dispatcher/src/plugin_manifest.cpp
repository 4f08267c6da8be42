// The plugin manifest reader (plugin_manifest.h).
#include "plugin_manifest.h"

#include <axle/error.h>

#include <nlohmann/json.hpp>

#include <climits>
#include <cstdint>

namespace axle {

using nlohmann::json;

namespace {

// An int field: a JSON integer in int's range (get<int>() would truncate
// 4294967297 to 1, and 1e20 to anything, an undefined conversion).
int int_field(const json& j, const char* key, std::string_view source) {
  const json& v = j.at(key);
  AXLE_CHECK(v.is_number_integer(), PluginError, "invalid manifest ", source, ": \"", key, "\" is not an integer");
  const bool fits = v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(INT_MAX)
                                           : v.get<int64_t>() >= INT_MIN && v.get<int64_t>() <= INT_MAX;
  AXLE_CHECK(fits, PluginError, "invalid manifest ", source, ": \"", key, "\" is outside int's range");
  return static_cast<int>(v.get<int64_t>());
}

}  // namespace

Manifest parse_manifest(std::string_view text, std::string_view source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw PluginError(detail::concat("malformed manifest ", source, ": ", e.what()));
  }
  try {
    AXLE_CHECK(j.is_object() && j.contains("axle_plugin_manifest") && j.at("axle_plugin_manifest") == 1, PluginError,
               "manifest ", source, " lacks \"axle_plugin_manifest\": 1");
    Manifest m;
    m.name = j.at("name").get<std::string>();
    m.version = j.at("version").get<std::string>();
    m.abi_major = int_field(j, "abi_major", source);
    m.abi_minor = int_field(j, "abi_minor", source);
    m.device_types = j.at("device_types").get<std::vector<std::string>>();
    m.rank = int_field(j, "rank", source);
    m.library = j.at("library").get<std::string>();
    return m;
  } catch (const json::exception& e) {
    throw PluginError(detail::concat("invalid manifest ", source, ": ", e.what()));
  }
}

}  // namespace axle
