"""axle: a small tensor runtime with plug-in device backends, torch-like from Python.

The operators are not listed here by hand: every operator declared in the C++
dispatcher becomes ``axle.<name>`` (and a Tensor method when its first argument is
``Tensor self``) at import, from the declarations' schemas.
"""
import builtins as _builtins  # ops named like builtins (all, any, max, ...) shadow them in this module

from . import _errors
# AxleError, ShapeError, ..., InternalError, TypeError: the C++ list of error kinds (axle/error_kinds.h).
from ._errors import *  # noqa: F401,F403
from . import _C
from . import autograd
from . import return_types
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from ._C import Tensor, devices, explain, fallback_stats, from_dlpack, from_numpy, load_plugin, plugins
from ._size import Size
from ._C import Event, Stream, current_stream, set_stream, synchronize
from ._C import empty_cache, max_memory_allocated, memory_allocated, memory_reserved, memory_stats
from ._C import (Recording, are_deterministic_algorithms_enabled, clear_trace, config_sources, export_chrome_trace,
                 get_float32_matmul_precision, record, set_float32_matmul_precision, trace_enabled, trace_events,
                 use_deterministic_algorithms)

__version__ = _C.version()
_C._set_size_type(Size)  # Tensor.shape and Tensor.size() return axle.Size

_builtin_int, _builtin_float, _builtin_bool = int, float, bool


class dtype:
    """A tensor element type (``axle.float32`` ...); ``_axle_dtype`` is the C++ enum value."""

    __slots__ = ("name", "_axle_dtype", "is_floating_point", "itemsize")

    def __init__(self, name, index, is_floating_point, itemsize):
        self.name, self._axle_dtype = name, index
        self.is_floating_point, self.itemsize = is_floating_point, itemsize

    def __repr__(self):
        return "axle." + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


_DTYPES = [("float32", True, 4), ("float64", True, 8), ("float16", True, 2), ("bfloat16", True, 2),
           ("int8", False, 1), ("uint8", False, 1), ("int16", False, 2), ("int32", False, 4),
           ("int64", False, 8), ("bool", False, 1)]
_dtype_list = [dtype(n, i, f, s) for i, (n, f, s) in enumerate(_DTYPES)]
float32, float64, float16, bfloat16, int8, uint8, int16, int32, int64, bool = _dtype_list  # noqa: A001
float, double, half, short, int, long = float32, float64, float16, int16, int32, int64  # noqa: A001


class memory_format:
    """``axle.channels_last`` and friends, as torch.memory_format."""

    __slots__ = ("_axle_memory_format",)

    def __init__(self, name):
        self._axle_memory_format = name

    def __repr__(self):
        return "axle." + self._axle_memory_format

    def __reduce__(self):
        return (_memory_format_by_name, (self._axle_memory_format,))


contiguous_format, channels_last, preserve_format = (memory_format(n) for n in (
    "contiguous_format", "channels_last", "preserve_format"))


def _memory_format_by_name(name):
    return globals()[name]


def _dtype_by_name(name):
    return globals()[name]


class device:
    """``axle.device("cuda:0")``: a device type (provided by a plugin) and an index."""

    __slots__ = ("type", "index", "_axle_device")

    def __init__(self, spec, index=None):
        if isinstance(spec, device):
            spec = spec._axle_device
        if index is not None:
            spec = "%s:%d" % (spec, index)
        text = _C._check_device(spec)
        self._axle_device = text
        self.type, _, idx = text.partition(":")
        self.index = _builtin_int(idx) if idx else None

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self):
        return hash((self.type, self.index or 0))

    def __str__(self):
        return self._axle_device

    def __repr__(self):
        if self.index is None:
            return "device(type=%r)" % self.type
        return "device(type=%r, index=%d)" % (self.type, self.index)


def get_default_dtype():
    return _dtype_list[_C._get_default_dtype()]


def set_default_dtype(d):
    _C._set_default_dtype(d._axle_dtype)


def set_default_device(d):
    _C._set_default_device(str(device(d)))


def promote_types(type1, type2):
    for i, (name, d) in enumerate((("type1", type1), ("type2", type2))):
        if not isinstance(d, dtype):
            raise TypeError("promote_types(): argument '%s' (position %d) must be axle.dtype, not %s" %
                            (name, i + 1, _builtins.type(d).__name__))
    return _dtype_list[_C._promote_types(type1._axle_dtype, type2._axle_dtype)]


# ---------------------------------------------------------------- operators from the declarations
_FACTORY_OPS = {"empty", "full", "zeros", "ones", "arange", "rand", "randn"}  # get torch's call forms below
_op_groups = {g.name: g for g in _C._op_groups() if "::" not in g.name}


def _make_function(group):
    lines = []
    for schema, _ in group.docs():
        full = schema.split("(", 1)[0]
        lines.append(schema + "\n    " + _C._op_doc(full))
    return _C._builtin(group, "\n".join(lines))


def _takes_varargs_ints(group):
    """True when an overload's only positional argument after self is an int[]: the method
    then also takes torch's varargs form, t.repeat(2, 3) for t.repeat((2, 3))."""
    for args, _ in group.signatures():
        positional = [a for a in args[1:] if not a[2]]
        if len(positional) == 1 and positional[0][1].startswith("int["):
            return True
    return False


def _make_method(fn, varargs_ints=False):
    def method(self, *args, **kwargs):
        if varargs_ints and len(args) > 1 and _builtins.all(type(a) is _builtin_int for a in args):
            args = (args,)
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


_nn_functional = {}  # name -> function, for axle.nn.functional (ops flagged kNNFunctional / kNNOnly)
_nn_only = {name for name, only in _C._nn_functional_ops() if only}
for _name, _group in _op_groups.items():
    if _name in _FACTORY_OPS:
        continue
    _fn = return_types.wrap(_name, [_schema for _schema, _ in _group.docs()], _make_function(_group))
    if _name in _nn_only:  # torch.nn.functional.<name> only
        _nn_functional[_name] = _fn
        continue
    globals()[_name] = _fn
    if _group.has_self and not hasattr(Tensor, _name):
        setattr(Tensor, _name, _make_method(_fn, _takes_varargs_ints(_group)))
del _name, _group, _fn

# Creation ops generated from their declarations also take torch's requires_grad= keyword.
def _with_requires_grad(fn):
    def creation(*args, requires_grad=False, **kwargs):
        return _requiring_grad(fn(*args, **kwargs), requires_grad)

    creation.__name__ = creation.__qualname__ = fn.__name__
    creation.__doc__ = fn.__doc__
    return creation


for _name in ("zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like", "eye", "linspace"):
    if _name in globals():
        globals()[_name] = _with_requires_grad(globals()[_name])
del _name


def _requiring_grad(t, requires_grad):
    return t.requires_grad_() if requires_grad else t


def _size_args(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return size


def empty(*size, dtype=None, device=None, requires_grad=False, **kwargs):
    return _requiring_grad(_op_groups["empty"](_size_args(size), dtype=dtype, device=device, **kwargs), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False, **kwargs):
    return _requiring_grad(_op_groups["zeros"](_size_args(size), dtype=dtype, device=device, **kwargs), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, **kwargs):
    return _requiring_grad(_op_groups["ones"](_size_args(size), dtype=dtype, device=device, **kwargs), requires_grad)


def full(*args, dtype=None, device=None, requires_grad=False, **kwargs):
    """full(size, fill_value, *, dtype=None, device=None, requires_grad=False)"""
    return _requiring_grad(_op_groups["full"](*args, dtype=dtype, device=device, **kwargs), requires_grad)


def arange(*args, dtype=None, device=None, requires_grad=False, **kwargs):
    """arange(end) or arange(start, end, step=1), with dtype=, device= and requires_grad= keywords."""
    if len(args) == 1 and "end" not in kwargs:
        args = (0,) + args
    return _requiring_grad(_op_groups["arange"](*args, dtype=dtype, device=device, **kwargs), requires_grad)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, **kwargs):
    t = _op_groups["rand"](_size_args(size), generator=generator, dtype=dtype, device=device, **kwargs)
    return _requiring_grad(t, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, **kwargs):
    t = _op_groups["randn"](_size_args(size), generator=generator, dtype=dtype, device=device, **kwargs)
    return _requiring_grad(t, requires_grad)


Generator = _C.Generator
default_generator = _C.default_generator("cpu")


def manual_seed(seed):
    """Seeds every device type's default generator; returns the CPU one."""
    return _C.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A tensor from nested sequences of numbers, a numpy array or scalar (its
    dtype kept, as torch.tensor), or a copy of a Tensor."""
    if type(data).__module__ == "numpy":
        import numpy

        a = numpy.asarray(data)
        if not a.flags.c_contiguous:
            a = numpy.ascontiguousarray(a)  # (which makes 0-d arrays 1-d: only when needed)
        t = from_numpy(a if a.flags.writeable else a.copy()).clone()  # a read-only array is copied
        if dtype is not None:
            t = t.to(dtype)
        t = t if device is None else t.to(device)
    else:
        with autograd.no_grad():  # a copy of a Tensor: a new leaf
            t = _C._tensor(data, dtype, device)
    return _requiring_grad(t, requires_grad)


def _path_or_none(f):
    import os

    return os.fsdecode(os.fspath(f)) if isinstance(f, (str, bytes, os.PathLike)) else None


def save(obj, f, metadata=None, **kwargs):
    """Saves obj to a path or a binary file object. A path ending in ".safetensors"
    gets the safetensors format (a dict of str -> Tensor, with optional str
    metadata), one ending in ".npy" numpy's format (one Tensor); anything else,
    and every file object, gets PyTorch's checkpoint format (torch.save's zip
    format, readable by torch.load; see axle.serialization.save)."""
    path = _path_or_none(f)
    suffix = path.lower() if path is not None else ""
    if suffix.endswith(".npy"):
        if not isinstance(obj, Tensor):
            raise TypeError("save(): a .npy file holds one Tensor, got %s" % type(obj).__name__)
        _C._save_npy(obj, path)
        return
    if suffix.endswith(".safetensors"):
        if not isinstance(obj, dict) or not _builtins.all(
                isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items()):
            raise TypeError("save(): expected a dict of str -> Tensor")
        metadata = dict(metadata or {})
        if not _builtins.all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise TypeError("save(): metadata must be a dict of str -> str")
        _C._save_safetensors(obj, path, metadata)
        return
    if metadata is not None:
        raise TypeError("save(): metadata is only for .safetensors files")
    from . import serialization

    serialization.save(obj, f, **kwargs)


def load(f, map_location=None, weights_only=True):
    """Loads a file: a path ending in ".safetensors" (a dict of tensors) or ".npy" (one
    tensor) by its name; any other path or file object by its content: a PyTorch
    checkpoint (torch.save's zip format, read without torch and without running
    its pickle: see axle.serialization.load), a safetensors or a .npy file.
    ``map_location`` (a device) moves what is loaded; ``weights_only`` must be True."""
    from . import serialization

    path = _path_or_none(f)
    suffix = path.lower() if path is not None else ""
    if suffix.endswith(".npy"):
        return serialization._moved(_C._load_npy(path), map_location)
    if suffix.endswith(".safetensors"):
        return serialization._moved(_C._load_safetensors(path), map_location)
    return serialization._load_any(f, map_location, weights_only)


# ---------------------------------------------------------------- Tensor conveniences
def _numpy(self):
    import numpy  # imported only when interop needs it

    return numpy.asarray(self)


def _rebuild(values, dtype_name, device_str):
    return tensor(values, dtype=_dtype_by_name(dtype_name), device=device_str)


def _array(self, dtype=None):
    # Reached only when the buffer protocol refused (a device tensor, a dtype numpy
    # lacks): memoryview raises the same typed error instead of numpy making an
    # object array.
    import numpy

    return numpy.asarray(memoryview(self), dtype=dtype)


Tensor.device = property(lambda self: device(self._device_str))
Tensor.numpy = _numpy
Tensor.__array__ = _array
Tensor.__reduce__ = lambda self: (_rebuild, (self.tolist(), self.dtype.name, self._device_str))
Tensor.__deepcopy__ = lambda self, memo: self.clone()
Tensor.__copy__ = lambda self: self
Tensor.is_floating_point = lambda self: self.dtype.is_floating_point

def configure(settings=None, **kwargs):
    """The application's configuration layer (the last one, above files and environment).

    Takes the config file's JSON structure as a dict and/or keyword arguments, e.g.
    ``axle.configure(fallback={"policy": "error"}, matmul_precision="high")``. Unknown keys
    and wrong types raise ``axle.ConfigError`` naming the key. Repeated calls merge.
    """
    import json as _json
    merged = dict(settings or {})
    merged.update(kwargs)
    _C._configure(_json.dumps(merged))


class trace:
    """Trace mode while the ``with`` block runs: every operator call is recorded with the
    kernel that ran it (plugin, source file:line), shapes, dtypes, device and time.

    >>> with axle.trace() as t:
    ...     y = axle.nn.functional.prelu(x, w)
    >>> print(t.events[-1]["line"])
    """

    def __init__(self, clear=True):
        self._clear = clear
        self.events = []

    def __enter__(self):
        self._previous = _C.trace_enabled()
        if self._clear:
            _C.clear_trace()
        self._start = 0 if self._clear else _C._trace_event_count()
        _C._set_trace_enabled(True)
        return self

    def __exit__(self, *exc):
        _C._set_trace_enabled(self._previous)
        self.events = _C.trace_events()[self._start:]
        return False

    def export_chrome_trace(self, path):
        _C.export_chrome_trace(path)


class stream:
    """``with axle.stream(s):`` makes ``s`` the current stream of its device (torch.cuda.stream)."""

    def __init__(self, s):
        self._stream = s

    def __enter__(self):
        self._previous = _C.current_stream(self._stream.device)
        _C.set_stream(self._stream)
        return self._stream

    def __exit__(self, *exc):
        _C.set_stream(self._previous)
        return False


def set_trace_enabled(enabled):
    _C._set_trace_enabled(_builtins.bool(enabled))


def parity(fn_or_recording, a, b, rtol=1e-4, atol=1e-5):
    """Replays the operator calls of ``fn()`` (or of an ``axle.Recording``) on backends ``a``
    and ``b`` ("cpu", "cpu@reference", "cpu@cpu", "cuda:0") from the recorded inputs and
    returns a dict: ``ok``, and for the first call whose outputs differ its ``op``, ``index``,
    ``max_abs``/``max_rel`` error and the kernels that ran it on each side (``ran_a``,
    ``ran_b``); ``report`` is the same as text."""
    if isinstance(fn_or_recording, Recording):
        return _C._parity_recording(fn_or_recording, a, b, rtol, atol)
    return _C._parity_fn(fn_or_recording, a, b, rtol, atol)


from ._printing import set_printoptions, tensor_repr  # noqa: E402

Tensor.__repr__ = tensor_repr
Tensor.__str__ = tensor_repr


def _tensor_format(self, spec):
    """torch's: a 0-d tensor formats as its Python number ('{:.2f}'); others as
    object.__format__ (an empty spec gives str(), any other raises TypeError)."""
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


Tensor.__format__ = _tensor_format

from . import _tensor_methods  # noqa: E402
from . import _composites_math  # noqa: E402
from . import _composites_shape  # noqa: E402
from . import _composites_misc  # noqa: E402
from . import _composites_storage  # noqa: E402
from . import _composites_numeric  # noqa: E402
from . import _composites_random  # noqa: E402
from . import _composites_runtime  # noqa: E402
from . import linalg  # noqa: E402,F401

_tensor_methods.install(_builtins.__import__(__name__))
_composites_math.install(_builtins.__import__(__name__))
_composites_shape.install(_builtins.__import__(__name__))
_composites_misc.install(_builtins.__import__(__name__))
_composites_storage.install(_builtins.__import__(__name__))
_composites_numeric.install(_builtins.__import__(__name__))
_composites_random.install(_builtins.__import__(__name__))
_composites_runtime.install(_builtins.__import__(__name__))
_tensor_methods.export_in_place(_builtins.__import__(__name__))

from . import nn  # noqa: E402,F401

_tensor_methods.export_functional(_builtins.__import__(__name__))
from . import optim  # noqa: E402,F401
from . import cuda  # noqa: E402,F401
from . import backends  # noqa: E402,F401
from . import accelerator  # noqa: E402,F401
from . import utils  # noqa: E402,F401
from . import distributed  # noqa: E402,F401
from . import multiprocessing  # noqa: E402,F401
from . import onnx  # noqa: E402,F401
from . import serialization  # noqa: E402,F401
from . import special  # noqa: E402,F401
