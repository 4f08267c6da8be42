// The one list of axle's error kinds: each C++ error class (axle/error.h) with
// the plugin ABI status that becomes it and its Python class. The status
// mapping (the dispatcher's throw_status), the Python classes and their
// exception translator (bindings/python) and the conformance kit's error names
// all iterate kErrorKinds; tests/core/test_errors.cpp checks each row both ways.
// A new kind is a class in axle/error.h (and its destructor in error.cpp) plus a
// row here.
#pragma once

#include <axle/error.h>
#include <axle/plugin/axle_plugin.h>

#include <exception>
#include <iterator>
#include <string>
#include <string_view>

namespace axle {

struct ErrorKind {
  std::string_view name;                      // the C++ class, axle::<name>
  std::string_view python_name;               // the Python class, axle.<python_name> (the base Error is axle.AxleError)
  std::string_view python_base;               // the builtin Python class PyTorch raises for the same mistake
  axle_status status;                         // the plugin status that becomes this class; AXLE_OK: none
  std::string_view doc;                       // one line (the Python class's docstring)
  bool (*is)(const std::exception& e);        // e is this class or derives from it
  void (*raise)(const std::string& message);  // throws the class
};

namespace detail {
template <class E>
bool is_error(const std::exception& e) {
  return dynamic_cast<const E*>(&e) != nullptr;
}
template <class E>
void throw_error(const std::string& message) {
  throw E(message);
}
template <class E>
constexpr ErrorKind error_kind(std::string_view name, std::string_view python_name, std::string_view python_base,
                               axle_status status, std::string_view doc) {
  return {name, python_name, python_base, status, doc, &is_error<E>, &throw_error<E>};
}
}  // namespace detail

// The base class Error comes last: a more specific kind matches first.
inline constexpr ErrorKind kErrorKinds[] = {
    detail::error_kind<ShapeError>("ShapeError", "ShapeError", "RuntimeError", AXLE_ERROR_SHAPE,
                                   "Sizes that do not fit the operation (broadcasting, views, matmul)."),
    detail::error_kind<DTypeError>("DTypeError", "DTypeError", "RuntimeError", AXLE_ERROR_DTYPE,
                                   "A dtype the operation does not take or cannot cast to."),
    detail::error_kind<DeviceError>("DeviceError", "DeviceError", "RuntimeError", AXLE_ERROR_DEVICE,
                                    "An unknown or unavailable device, or tensors on different devices."),
    detail::error_kind<IndexError>("IndexError", "IndexError", "IndexError", AXLE_ERROR_INDEX,
                                   "A dimension or index out of range."),
    detail::error_kind<ValueError>("ValueError", "ValueError", "ValueError", AXLE_ERROR_INVALID_ARGUMENT,
                                   "An argument value the operation does not accept."),
    detail::error_kind<NotImplementedError>("NotImplementedError", "NotImplementedError", "NotImplementedError",
                                            AXLE_ERROR_NOT_IMPLEMENTED,
                                            "An unknown operator, or no kernel for the call and no fallback."),
    detail::error_kind<SchemaError>("SchemaError", "SchemaError", "RuntimeError", AXLE_OK,
                                    "A malformed operator schema."),
    detail::error_kind<PluginError>("PluginError", "PluginError", "RuntimeError", AXLE_OK,
                                    "A plugin that cannot be loaded."),
    detail::error_kind<ConfigError>("ConfigError", "ConfigError", "RuntimeError", AXLE_OK,
                                    "A configuration key, value, file or environment variable that is wrong."),
    detail::error_kind<OutOfMemoryError>("OutOfMemoryError", "OutOfMemoryError", "MemoryError",
                                         AXLE_ERROR_OUT_OF_MEMORY, "A device or host allocation that failed."),
    detail::error_kind<AutogradError>("AutogradError", "AutogradError", "RuntimeError", AXLE_OK,
                                      "A misuse of automatic differentiation: backward through a freed graph, a "
                                      "saved tensor changed in place, a leaf that requires grad written in place."),
    detail::error_kind<LinAlgError>("LinAlgError", "LinAlgError", "RuntimeError", AXLE_OK,
                                    "A singular or not positive-definite matrix a linear-algebra op cannot take "
                                    "(torch.linalg.LinAlgError)."),
    detail::error_kind<InternalError>("InternalError", "InternalError", "RuntimeError", AXLE_OK,
                                      "A broken invariant of axle itself: a bug to report, not a mistake of the "
                                      "caller."),
    detail::error_kind<Error>("Error", "AxleError", "Exception", AXLE_ERROR_INTERNAL,
                              "Base of every error raised by axle (and a plugin's AXLE_ERROR_INTERNAL)."),
};

// The base class's row (axle::Error, axle.AxleError).
inline const ErrorKind& base_error_kind() { return kErrorKinds[std::size(kErrorKinds) - 1]; }

// The most specific kind of `e`; nullptr when it is not an axle::Error.
inline const ErrorKind* error_kind_of(const std::exception& e) {
  for (const ErrorKind& k : kErrorKinds)
    if (k.is(e)) return &k;
  return nullptr;
}

// The kind a plugin's status becomes; the base Error for a status no kind names.
inline const ErrorKind& error_kind_for_status(axle_status status) {
  for (const ErrorKind& k : kErrorKinds)
    if (status != AXLE_OK && k.status == status) return k;
  return base_error_kind();
}

}  // namespace axle
