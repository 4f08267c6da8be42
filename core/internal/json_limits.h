// Bounds on JSON that axle reads from files and the environment (configuration,
// safetensors headers, parity recordings). nlohmann::json parses without
// recursion, but dump() and any recursive walk of the result recurse once per
// level: a document nested 100,000 deep overflows the stack there. Readers
// check json_depth() before parsing (serde_json's limit, which the safetensors
// reference loader hits as "recursion limit exceeded") and put untrusted values
// into messages through json_excerpt() only.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace axle::detail {

inline constexpr size_t kMaxJsonDepth = 128;

// The deepest nesting of arrays and objects in `text`, brackets inside strings
// not counted; stops counting once past `limit` (returns limit + 1). Malformed
// text is the parser's to report: this only bounds what it will build.
inline size_t json_depth(std::string_view text, size_t limit = kMaxJsonDepth) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// At most `n` characters of `s`, "..." marking a cut.
inline std::string excerpt(std::string_view s, size_t n = 80) {
  if (s.size() <= n) return std::string(s);
  return std::string(s.substr(0, n)) + "...";
}

// A JSON value for a message: dumped, cut to `n` characters.
inline std::string json_excerpt(const nlohmann::json& j, size_t n = 80) {
  return excerpt(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), n);
}

}  // namespace axle::detail
