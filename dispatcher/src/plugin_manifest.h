// Internal to libaxle: a plugin manifest (the JSON file next to a plugin's
// `.so`, read without running the plugin's code) parsed from its text. Split
// from plugin_discovery.cpp so the fuzz target tests/fuzz/fuzz_manifest.cpp
// can call the reader without a file or a plugin search.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace axle {

struct Manifest {
  std::string name, version, library;
  int abi_major = 0, abi_minor = 0, rank = 0;
  std::vector<std::string> device_types;
};

// The manifest in `text`; `source` (its path) names it in errors. Throws
// PluginError for malformed JSON, a missing "axle_plugin_manifest": 1, and
// missing or mistyped fields.
Manifest parse_manifest(std::string_view text, std::string_view source);

}  // namespace axle
