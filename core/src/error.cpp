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
}  // namespace axle
