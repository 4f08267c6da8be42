// The error hierarchy of axle. Library code throws these, never aborts; messages
// name the op and the offending values. AXLE_CHECK builds the message lazily.
// Each class is also a row of kErrorKinds (axle/error_kinds.h): its plugin
// status and Python class come from there.
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

#define AXLE_DECLARE_ERROR(Name)                            \
  class AXLE_API Name : public Error {                      \
   public:                                                  \
    explicit Name(const std::string& what) : Error(what) {} \
    ~Name() override;                                       \
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
// A misuse of automatic differentiation (backward through a freed graph, an
// in-place change of a saved tensor, a leaf written in place): torch's RuntimeErrors.
AXLE_DECLARE_ERROR(AutogradError);
// A linear-algebra input the factorization cannot take: a singular matrix, one
// not positive-definite (torch.linalg.LinAlgError, a RuntimeError).
AXLE_DECLARE_ERROR(LinAlgError);
// A broken invariant of axle itself (AXLE_INTERNAL_ASSERT): a bug, not a mistake of the caller.
AXLE_DECLARE_ERROR(InternalError);
#undef AXLE_DECLARE_ERROR

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  ((os << args), ...);  // nothing for no arguments
  return os.str();
}
// Throws InternalError naming the condition and where it failed (AXLE_INTERNAL_ASSERT).
[[noreturn]] AXLE_API void internal_assert_failed(const char* condition, const char* file, int line,
                                                  const std::string& message);
}  // namespace detail

}  // namespace axle

// AXLE_CHECK(cond, ErrorType, message parts...): throws ErrorType(message) when !cond.
#define AXLE_CHECK(cond, ErrorType, ...)                               \
  do {                                                                 \
    if (!(cond)) throw ErrorType(::axle::detail::concat(__VA_ARGS__)); \
  } while (0)

// AXLE_INTERNAL_ASSERT(cond, message parts...): throws InternalError when !cond,
// as TORCH_INTERNAL_ASSERT. For invariants of axle itself that no call can
// break; what a caller can get wrong is an AXLE_CHECK with a user error class.
#define AXLE_INTERNAL_ASSERT(cond, ...)                                                                       \
  do {                                                                                                        \
    if (!(cond))                                                                                              \
      ::axle::detail::internal_assert_failed(#cond, __FILE__, __LINE__, ::axle::detail::concat(__VA_ARGS__)); \
  } while (0)
