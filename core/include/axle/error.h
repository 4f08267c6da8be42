// The error hierarchy of axle. Library code throws these, never aborts; messages
// name the op and the offending values. AXLE_CHECK builds the message lazily.
#pragma once

#include <axle/export.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace axle {

class AXLE_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
  ~Error() override;
};

#define AXLE_DECLARE_ERROR(Name)                                \
  class AXLE_API Name : public Error {                          \
   public:                                                      \
    explicit Name(const std::string& what) : Error(what) {}     \
    ~Name() override;                                           \
  }

AXLE_DECLARE_ERROR(ShapeError);
AXLE_DECLARE_ERROR(DTypeError);
AXLE_DECLARE_ERROR(DeviceError);
AXLE_DECLARE_ERROR(IndexError);
AXLE_DECLARE_ERROR(ValueError);
AXLE_DECLARE_ERROR(NotImplementedError);
AXLE_DECLARE_ERROR(SchemaError);
AXLE_DECLARE_ERROR(PluginError);
AXLE_DECLARE_ERROR(ConfigError);
AXLE_DECLARE_ERROR(OutOfMemoryError);
#undef AXLE_DECLARE_ERROR

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

}  // namespace axle

// AXLE_CHECK(cond, ErrorType, message parts...): throws ErrorType(message) when !cond.
#define AXLE_CHECK(cond, ErrorType, ...)                         \
  do {                                                           \
    if (!(cond)) throw ErrorType(::axle::detail::concat(__VA_ARGS__)); \
  } while (0)
