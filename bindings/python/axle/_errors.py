"""axle's exception classes, made from the C++ list of error kinds
(core/include/axle/error_kinds.h, ``axle._C._error_kinds()``): AxleError is the
base; every other class derives from it and from the builtin exception PyTorch
raises for the same mistake, so code written for torch catches them."""
import builtins as _builtins

from . import _C

__all__ = []


def _define(kind, bases):
    cls = type(kind["python_name"], bases, {"__doc__": kind["doc"], "__module__": __name__})
    globals()[cls.__name__] = cls
    __all__.append(cls.__name__)
    return cls


_kinds = _C._error_kinds()
AxleError = _define(next(k for k in _kinds if k["name"] == "Error"), (Exception,))
for _kind in _kinds:
    if _kind["name"] != "Error":
        _define(_kind, (AxleError, getattr(_builtins, _kind["python_base"])))
del _kind


class TypeError(AxleError, _builtins.TypeError):  # noqa: A001 - shadows the builtin on purpose
    """Arguments of the wrong Python type (no overload matches). Raised by the bindings only: no C++ class."""


__all__.append("TypeError")
