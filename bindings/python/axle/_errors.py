"""axle's exception classes: each derives from AxleError and from the builtin
exception PyTorch raises for the same mistake, so code written for torch catches them."""


class AxleError(Exception):
    """Base of every error raised by axle."""


class ShapeError(AxleError, RuntimeError):
    pass


class DTypeError(AxleError, RuntimeError):
    pass


class DeviceError(AxleError, RuntimeError):
    pass


class IndexError(AxleError, IndexError):  # noqa: A001 - shadows the builtin on purpose
    pass


class ValueError(AxleError, ValueError):  # noqa: A001
    pass


class NotImplementedError(AxleError, NotImplementedError):  # noqa: A001
    pass


class SchemaError(AxleError, RuntimeError):
    pass


class PluginError(AxleError, RuntimeError):
    pass


class ConfigError(AxleError, RuntimeError):
    pass


class OutOfMemoryError(AxleError, MemoryError):
    pass


class TypeError(AxleError, TypeError):  # noqa: A001
    """Arguments of the wrong Python type (no overload matches)."""
