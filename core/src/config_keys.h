// Private to the core: what the configuration layers (config.cpp) take from the
// table of keys (config_keys.cpp).
#pragma once

#include <axle/config.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace axle::detail {

// ConfigError "<where>: invalid matmul precision ..." unless p is highest, high or medium.
void check_matmul_precision(const std::string& p, std::string_view where);
// The environment layer: every key that has a variable, read from it when it is
// set and non-empty. ConfigError names the variable of a bad value.
Config config_from_environment();
// A layer as (dotted key, JSON text) pairs, in the keys' documented spelling.
std::vector<std::pair<std::string, std::string>> flatten_config(const Config& c);
// The environment variable of a key without a <placeholder> ("" when it has none).
std::string_view env_variable_of(std::string_view key);

}  // namespace axle::detail
