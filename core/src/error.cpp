// Out-of-line destructors anchor the error classes' vtables and typeinfo in libaxle.
#include <axle/error.h>

namespace axle {
Error::~Error() = default;
ShapeError::~ShapeError() = default;
DTypeError::~DTypeError() = default;
DeviceError::~DeviceError() = default;
IndexError::~IndexError() = default;
ValueError::~ValueError() = default;
NotImplementedError::~NotImplementedError() = default;
SchemaError::~SchemaError() = default;
PluginError::~PluginError() = default;
ConfigError::~ConfigError() = default;
OutOfMemoryError::~OutOfMemoryError() = default;
AutogradError::~AutogradError() = default;
LinAlgError::~LinAlgError() = default;
InternalError::~InternalError() = default;

void detail::internal_assert_failed(const char* condition, const char* file, int line, const std::string& message) {
  throw InternalError(concat("internal assert failed at ", file, ":", line, ": ", condition,
                             message.empty() ? "" : ": ", message, " (a bug in axle; please report it)"));
}
}  // namespace axle
