"""torch 1.13's global settings and queries that map onto axle's runtime: set_default_tensor_type
(torch's type-name strings, onto axle's default dtype and device), the inter-op thread count,
is_distributed, the deterministic debug mode (onto axle's ``deterministic`` setting),
compiled_with_cxx11_abi (read from axle's own extension module) and the autocast queries.

axle runs each operator on the calling thread (no inter-op pool: get_num_interop_threads is
1) and parallelises inside kernels only, with the thread count passed to every parallel region
(init_num_threads has nothing to set up). Its deterministic mode makes kernels choose
run-to-run identical algorithms; it has no warn-only form, so debug mode 1 ("warn") is refused.
axle has no autocast: the autocast queries answer torch's defaults (disabled; the dtypes it
would use), and the setters are not provided.

``install(axle)`` attaches each name where it is free. Compared with torch in
tests/python/test_composites_more.py.
"""
import builtins as _b
import mmap as _mmap

from . import _C

_TYPE_DTYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
                "BFloat16Tensor": "bfloat16", "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16",
                "CharTensor": "int8", "ByteTensor": "uint8", "BoolTensor": "bool"}
_state = {}


def _cxx11_abi():
    """Whether axle's extension module was built with libstdc++'s C++11 ABI: its std::string
    symbols are then spelled std::__cxx11::basic_string (mangled St7__cxx11)."""
    if "cxx11" not in _state:
        with open(_C.__file__, "rb") as f, _mmap.mmap(f.fileno(), 0, access=_mmap.ACCESS_READ) as m:
            _state["cxx11"] = m.find(b"St7__cxx11") >= 0
    return _state["cxx11"]


def install(axle):
    """Attaches the functions to the axle module where the name is free."""
    installed = {}

    def set_default_tensor_type(t):
        """Sets the default dtype (and device) from a legacy type name: "torch.FloatTensor",
        "axle.DoubleTensor", "torch.cuda.FloatTensor" ...; floating-point types only."""
        if not isinstance(t, str):
            raise axle.TypeError("set_default_tensor_type(): invalid type object %r: axle takes the type's name, "
                                 "e.g. 'torch.FloatTensor'" % (t,))
        parts = t.split(".")
        if len(parts) < 2 or parts[0] not in ("torch", "axle") or parts[-1] not in _TYPE_DTYPES:
            raise axle.TypeError("set_default_tensor_type(): invalid type '%s'" % t)
        module = ".".join(parts[1:-1])
        dt = getattr(axle, _TYPE_DTYPES[parts[-1]])
        if not dt.is_floating_point:
            raise axle.TypeError("set_default_tensor_type(): only floating-point types are supported as the default "
                                 "type, got '%s'" % t)
        if module and module != "cuda":
            raise axle.TypeError("set_default_tensor_type(): invalid type '%s'" % t)
        device = "cuda" if module == "cuda" else "cpu"
        if device == "cuda" and not axle.cuda.is_available():
            raise axle.TypeError("type %s not available: axle has no cuda device (no cuda plugin loaded)" % t)
        axle.set_default_dtype(dt)
        axle.set_default_device(device)

    def get_num_interop_threads():
        """1: axle runs operators one after another on the calling thread."""
        return 1

    def init_num_threads():
        """Nothing to set up: every parallel region of axle's cpu kernels is given the configured
        thread count (axle.get_num_threads()) whichever thread runs it."""

    def is_distributed(input):
        if not isinstance(input, _C.Tensor):
            raise axle.TypeError("is_distributed(): argument 'input' (position 1) must be Tensor, not %s"
                                 % type(input).__name__)
        return False

    def is_deterministic_algorithms_warn_only_enabled():
        """False: axle's deterministic mode has no warn-only form."""
        return False

    def get_deterministic_debug_mode():
        """2 ("error") when axle.use_deterministic_algorithms(True) is in force, else 0."""
        return 2 if axle.are_deterministic_algorithms_enabled() else 0

    def set_deterministic_debug_mode(debug_mode):
        """0 / "default": deterministic mode off; 2 / "error": on (axle.use_deterministic_algorithms)."""
        if isinstance(debug_mode, str):
            names = {"default": 0, "warn": 1, "error": 2}
            if debug_mode not in names:
                raise axle.ValueError("set_deterministic_debug_mode(): invalid value of debug_mode, expected one of "
                                      "`default`, `warn`, `error`, but got %s" % debug_mode)
            debug_mode = names[debug_mode]
        elif not isinstance(debug_mode, _b.int):
            raise axle.TypeError("set_deterministic_debug_mode(): debug_mode must be str or int, but got %s"
                                 % type(debug_mode))
        if debug_mode not in (0, 1, 2):
            raise axle.ValueError("set_deterministic_debug_mode(): invalid value of debug_mode, expected 0, 1, or 2, "
                                  "but got %d" % debug_mode)
        if debug_mode == 1:
            raise axle.NotImplementedError("set_deterministic_debug_mode(1): axle's deterministic mode has no "
                                           "warn-only form; use 0 (off) or 2 (on)")
        axle.use_deterministic_algorithms(debug_mode == 2)

    def compiled_with_cxx11_abi():
        """Whether axle was built with libstdc++'s C++11 ABI (_GLIBCXX_USE_CXX11_ABI=1)."""
        return _cxx11_abi()

    def is_autocast_enabled():
        """False: axle has no autocast."""
        return False

    def is_autocast_cpu_enabled():
        """False: axle has no autocast."""
        return False

    def get_autocast_cpu_dtype():
        """torch's default CPU autocast dtype (bfloat16); axle has no autocast."""
        return axle.bfloat16

    def get_autocast_gpu_dtype():
        """torch's default GPU autocast dtype (float16); axle has no autocast."""
        return axle.float16

    def is_autocast_cache_enabled():
        """torch's default (True); axle has no autocast, so nothing is cached."""
        return True

    functions = {
        "set_default_tensor_type": set_default_tensor_type, "get_num_interop_threads": get_num_interop_threads,
        "init_num_threads": init_num_threads, "is_distributed": is_distributed,
        "is_deterministic_algorithms_warn_only_enabled": is_deterministic_algorithms_warn_only_enabled,
        "get_deterministic_debug_mode": get_deterministic_debug_mode,
        "set_deterministic_debug_mode": set_deterministic_debug_mode,
        "compiled_with_cxx11_abi": compiled_with_cxx11_abi, "is_autocast_enabled": is_autocast_enabled,
        "is_autocast_cpu_enabled": is_autocast_cpu_enabled, "get_autocast_cpu_dtype": get_autocast_cpu_dtype,
        "get_autocast_gpu_dtype": get_autocast_gpu_dtype, "is_autocast_cache_enabled": is_autocast_cache_enabled,
    }
    for name, fn in functions.items():
        if not hasattr(axle, name):
            setattr(axle, name, fn)
            installed[name] = fn
    return installed
