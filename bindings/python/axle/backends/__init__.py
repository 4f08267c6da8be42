"""axle.backends: the torch.backends switches programs check or set: cudnn
(enabled, deterministic, benchmark, allow_tf32 mapped onto axle's
deterministic-algorithms and matmul-precision settings), cuda.matmul.allow_tf32,
and mps (never available)."""
import importlib.machinery as _machinery
import sys as _sys

import axle as _axle


class _Flags:
    def __init__(self, **attrs):
        object.__setattr__(self, "_attrs", dict(attrs))

    def __getattr__(self, name):
        attrs = object.__getattribute__(self, "_attrs")
        if name not in attrs:
            raise AttributeError(name)
        getter, _ = attrs[name]
        return getter()

    def __setattr__(self, name, value):
        attrs = object.__getattribute__(self, "_attrs")
        if name not in attrs:
            raise AttributeError("axle.backends has no setting '%s'" % name)
        attrs[name][1](value)


_benchmark = [False]
_enabled = [True]


def _tf32():
    return _axle.get_float32_matmul_precision() != "highest"


def _set_tf32(on):
    _axle.set_float32_matmul_precision("high" if on else "highest")


class _Cudnn(_Flags):
    def is_available(self):
        return _axle.cuda.is_available()

    def version(self):
        return None


cudnn = _Cudnn(enabled=(lambda: _enabled[0], lambda v: _enabled.__setitem__(0, bool(v))),
               deterministic=(_axle.are_deterministic_algorithms_enabled,
                              lambda v: _axle.use_deterministic_algorithms(bool(v))),
               benchmark=(lambda: _benchmark[0], lambda v: _benchmark.__setitem__(0, bool(v))),
               allow_tf32=(_tf32, _set_tf32))


class _Cuda:
    matmul = _Flags(allow_tf32=(_tf32, _set_tf32))

    @staticmethod
    def is_built():
        return _axle.cuda.device_count() > 0 or any(d["type"] == "cuda" for d in _axle.devices())


cuda = _Cuda()


class _Mps:
    @staticmethod
    def is_available():
        return False

    @staticmethod
    def is_built():
        return False


mps = _Mps()


# `import torch.backends.cudnn as cudnn` imports a submodule: the settings
# objects stand in for one each (with a module spec, so importlib finds them).
for _name in ("cudnn", "cuda", "mps"):
    object.__setattr__(globals()[_name], "__spec__", _machinery.ModuleSpec(__name__ + "." + _name, None))
    _sys.modules[__name__ + "." + _name] = globals()[_name]
del _name
