"""PyTorch checkpoints (``torch.save``'s zip format) without torch.

A checkpoint is a zip archive whose records all sit under one folder,
``<name>/``: ``data.pkl`` (a pickle of the saved object), ``data/<key>`` (the
raw bytes of each storage the pickle names by key through a persistent id),
``version`` (the format version as text) and, from torch 2.0, ``byteorder``
("little" or "big").

Reading never runs the pickle with Python's unpickler: a small pickle machine
here interprets the opcodes itself, and the only globals a pickle may name are
the ones a checkpoint needs (the built-in allow-list below, as torch's
``weights_only=True``) and the classes and functions the caller allowed with
:func:`add_safe_globals` or :func:`safe_globals`. The built-in names resolve to
markers, never to callables, so the only code a REDUCE on them reaches is the
rebuild step of this module for that marker. An allowed name resolves to the
allowed object itself (matched by the module and qualified name the file
records; a name under ``torch.`` also matches axle's object at the same path
under ``axle.``, so whole torch models load into axle's modules): NEWOBJ,
NEWOBJ_EX and REDUCE on an allowed class (directly or through
``copyreg.__newobj__`` / ``copyreg._reconstructor``) make an instance without
running ``__init__``, REDUCE on an allowed function calls it, and BUILD gives an
instance of an allowed class its state through the class's ``__setstate__`` or
by updating its ``__dict__`` (and slots). Nothing else is ever imported or
called. Every problem in a file (a disallowed global, a truncated or malformed
archive or pickle, a storage record that is missing or has the wrong size, a
view reaching outside its storage, an unknown dtype) raises ``axle.ValueError``
(``axle.DTypeError`` for a torch dtype that axle lacks) naming it.

Writing produces what torch 1.13 writes: pickle protocol 2, tensors as
``torch._utils._rebuild_tensor_v2`` over typed storages (``torch.FloatStorage``
...), one storage record per storage shared by every view of it, Parameters as
``torch._utils._rebuild_parameter``, OrderedDicts with their attributes (a
state_dict's ``_metadata``), and records aligned to 64 bytes as torch aligns
them. Other objects (a whole ``nn.Module``, say) are pickled as Python's pickle
does, by ``__reduce_ex__(2)``: their class (and any function they hold) by
module and qualified name, their state after it.
"""
import codecs
import collections
import contextvars
import copyreg
import enum
import io
import os
import shutil
import struct
import sys
import tempfile
import threading
import types
import warnings
import zipfile
import zlib

import axle as _axle

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

# ---------------------------------------------------------------- dtypes
# torch storage class name -> axle dtype name. UntypedStorage holds bytes.
_STORAGE_DTYPES = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "ByteStorage": "uint8", "CharStorage": "int8", "ShortStorage": "int16",
    "IntStorage": "int32", "LongStorage": "int64", "BoolStorage": "bool",
    "UntypedStorage": "uint8", "_UntypedStorage": "uint8",
}
# Storages torch has and axle does not (their element type, for the message).
_UNSUPPORTED_STORAGES = {
    "ComplexFloatStorage": "complex64", "ComplexDoubleStorage": "complex128", "ComplexHalfStorage": "complex32",
    "QInt8Storage": "qint8", "QUInt8Storage": "quint8", "QInt32Storage": "qint32", "QUInt4x2Storage": "quint4x2",
    "QUInt2x4Storage": "quint2x4",
}
# The names of torch.<dtype> globals (a pickled torch.dtype) -> axle dtype name.
_TORCH_DTYPES = {
    "float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
    "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "int8": "int8", "uint8": "uint8",
    "int16": "int16", "short": "int16", "int32": "int32", "int": "int32", "int64": "int64", "long": "int64",
    "bool": "bool",
}
_UNSUPPORTED_TORCH_DTYPES = {"complex32", "complex64", "complex128", "cfloat", "cdouble", "chalf", "qint8",
                             "quint8", "qint32", "quint4x2", "quint2x4", "uint16", "uint32", "uint64",
                             "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"}
_STORAGE_OF_DTYPE = {v: k for k, v in _STORAGE_DTYPES.items() if not k.endswith("UntypedStorage")}
_MAX_DIMS = 64
_CHUNK = 16 << 20  # bytes read from a record at a time (zipfile copies each read once)
# What zipfile raises on a damaged archive or record (bad CRC, truncation, an unsupported method).
_READ_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, NotImplementedError, RuntimeError,
                ValueError, struct.error, zlib.error)


def _dtype(name):
    return _axle._dtype_by_name(name)


def _error(msg, *args):
    return _axle.ValueError(msg % args if args else msg)


def _clip(text, limit):
    """A name from a file, for a message: printable, and cut at limit characters."""
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[:limit] + "..."


def _short(obj, limit=80):
    """obj for a message, cut at limit characters. Only plain values are shown by repr: any other
    object by its type (a message runs no code of the classes a file makes)."""
    text = _safe_repr(obj, limit + 1)
    return text if len(text) <= limit else text[:limit] + "..."


def _safe_repr(obj, budget):
    kind = type(obj)
    if obj is None or kind in (bool, float, complex, str, bytes, bytearray):
        return repr(obj[:budget] if kind in (str, bytes, bytearray) else obj)
    if kind is int:
        return repr(obj) if obj.bit_length() <= 512 else "<an int of %d bits>" % obj.bit_length()
    if kind in (tuple, list, set, frozenset, dict, collections.OrderedDict):
        parts, used = [], 0
        items = obj.items() if isinstance(obj, dict) else obj
        for item in items:
            if used > budget:
                parts.append("...")
                break
            text = (_safe_repr(item[0], budget) + ": " + _safe_repr(item[1], budget)) if isinstance(obj, dict) \
                else _safe_repr(item, budget)
            parts.append(text)
            used += len(text) + 2
        inner = ", ".join(parts)
        if kind is tuple:
            return "(" + inner + ("," if len(obj) == 1 else "") + ")"
        if kind is list:
            return "[" + inner + "]"
        if isinstance(obj, dict):
            return ("{%s}" if kind is dict else "OrderedDict({%s})") % inner
        return "%s({%s})" % (kind.__name__, inner)
    if kind is _Global:
        return repr(obj)
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        name = _global_name(obj)
        return "%s %s" % ("class" if isinstance(obj, type) else "function",
                          "%s.%s" % name if name else getattr(obj, "__qualname__", "?"))
    if isinstance(obj, _axle.Tensor):
        return "<a %s tensor of shape %s>" % (obj.dtype.name, list(obj.shape))
    return "<a %s object>" % kind.__qualname__


# ================================================================ classes and functions a checkpoint may name
# What a file may name beyond the built-in allow-list: add_safe_globals (every thread) and the
# safe_globals context manager (the current thread or asyncio task, while the `with` lasts). An
# entry is a class or function, found under its module and qualified name, or an (object,
# "module.qualname") pair naming it as files name it.
_process_globals = []
_process_lock = threading.Lock()
_context_globals = contextvars.ContextVar("axle_serialization_safe_globals", default=())
# Where a function without a usable __module__ (a C++ builtin) is looked for by its __name__.
_SEARCHED_MODULES = ("axle.nn.functional", "axle", "axle.nn.init", "axle.linalg", "axle.special", "axle.fft")
_module_dict = types.ModuleType.__dict__["__dict__"].__get__  # a module's namespace, without running its code
_class_dict = type.__dict__["__dict__"].__get__


def _lookup(module, qualname):
    """The object at module.qualname when that module is already imported (it is never imported
    here), walking plain namespaces only (no __getattr__, no descriptors); None where absent."""
    obj = sys.modules.get(module)
    if not isinstance(obj, types.ModuleType):
        return None
    for i, part in enumerate(qualname.split(".")):
        if i == 0:
            ns = _module_dict(obj)
        elif isinstance(obj, type):
            ns = _class_dict(obj)
        else:
            return None
        obj = ns.get(part)
        if obj is None:
            return None
    return obj


def _global_name(obj):
    """(module, qualified name) under which obj is found, as a pickle names it, or None."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(qualname, str):
        qualname = getattr(obj, "__name__", None)
    if isinstance(module, str) and isinstance(qualname, str) and _lookup(module, qualname) is obj:
        return module, qualname
    name = getattr(obj, "__name__", None)
    if isinstance(name, str):
        for module in _SEARCHED_MODULES:
            if _lookup(module, name) is obj:
                return module, name
    return None


def _checked_globals(entries, what):
    if isinstance(entries, (str, bytes, dict)) or not hasattr(entries, "__iter__"):
        raise _axle.TypeError("%s() takes a list of classes and functions, got %s" % (what, type(entries).__name__))
    out = []
    for e in entries:
        if isinstance(e, tuple):
            if len(e) != 2 or not isinstance(e[1], str) or "." not in e[1].strip("."):
                raise _axle.TypeError("%s(): a tuple entry is (object, 'module.qualname'), got %s" % (what, _short(e)))
        elif isinstance(e, (str, bytes)) or _global_name(e) is None:
            raise _axle.TypeError("%s(): %s is not a class or function found under its module and qualified name; "
                                  "pass (object, 'module.qualname') to name it" % (what, _short(e)))
        out.append(e)
    return out


def _unique(entries):
    seen, out = set(), []
    for e in entries:
        key = (id(e[0]), e[1]) if isinstance(e, tuple) else id(e)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def add_safe_globals(safe_globals):
    """Allows the given classes and functions in every checkpoint :func:`load` reads from now on, in
    every thread (as ``torch.serialization.add_safe_globals``). An entry is a class or function
    (matched by its module and qualified name, as a pickle names it) or an ``(object,
    "module.qualname")`` pair for an object that files name differently."""
    entries = _checked_globals(safe_globals, "add_safe_globals")
    global _process_globals
    with _process_lock:
        _process_globals = _unique(_process_globals + entries)


def get_safe_globals():
    """The classes and functions allowed now: those of :func:`add_safe_globals`, then those of the
    :func:`safe_globals` blocks this thread is in."""
    with _process_lock:
        entries = list(_process_globals)
    return _unique(entries + list(_context_globals.get()))


def clear_safe_globals():
    """Forgets what :func:`add_safe_globals` allowed (a :func:`safe_globals` block keeps its own until
    it ends)."""
    global _process_globals
    with _process_lock:
        _process_globals = []


class safe_globals:
    """``with axle.serialization.safe_globals([MyModel, axle.nn.Linear, ...]): model = axle.load(f)``:
    allows the given classes and functions (entries as :func:`add_safe_globals` takes) while the
    block lasts, in the current thread (or asyncio task) only."""

    def __init__(self, safe_globals):
        self.safe_globals = _checked_globals(safe_globals, "safe_globals")
        self._tokens = []

    def __enter__(self):
        self._tokens.append(_context_globals.set(_context_globals.get() + tuple(self.safe_globals)))
        return self

    def __exit__(self, *exc):
        _context_globals.reset(self._tokens.pop())
        return False


class _Allowed:
    """The allow-list of one load: "module.qualname" -> object, and the objects by id."""

    def __init__(self, entries):
        self.by_name, self.by_id = {}, {}
        for e in entries:
            if isinstance(e, tuple):
                obj, full = e
            else:
                obj, name = e, _global_name(e)
                if name is None:
                    continue
                full = name[0] + "." + name[1]
            self.by_name.setdefault(full, obj)
            self.by_id[id(obj)] = obj

    def __contains__(self, obj):
        return self.by_id.get(id(obj)) is obj

    def find(self, module, name):
        """The allowed object a file's (module, name) means, or None. A name under torch. also
        means axle's object at the same path under axle. (the file of a torch model)."""
        modules = [module]
        mapped = _axle_module_for(module)
        if mapped is not None:
            modules.append(mapped)
        for m in modules:
            obj = self.by_name.get(m + "." + name)
            if obj is not None:
                return obj
        for m in modules:  # an allowed object also found under another name (a module re-exporting it)
            obj = _lookup(m, name)
            if obj is not None and obj in self:
                return obj
        return None


def _axle_module_for(module):
    """Where axle keeps what torch keeps in module (torch.x.y -> axle.x.y), or None outside torch."""
    if module == "torch._C._nn":  # torch's C++ functionals (F.gelu ...), which axle.nn.functional holds
        return "axle.nn.functional"
    if module == "torch" or module.startswith("torch."):
        return "axle" + module[5:]
    return None


def _not_allowed(module, name):
    full = _clip(module + "." + name, 200)
    short = _clip(name.rsplit(".", 1)[-1], 80)
    hint = ""
    mapped = _axle_module_for(module)
    if mapped is not None:
        hint = " (a name under torch. means axle's class or function at the same path under axle.: allow %s)" % (
            _clip(mapped + "." + name, 200))
    return _error("load(): Unsupported global: GLOBAL %s was not an allowed global by default. Please use "
                  "`axle.serialization.add_safe_globals([%s])` or the `axle.serialization.safe_globals([%s])` "
                  "context manager to allow this global if you trust it%s. It is not allowed: axle.load only "
                  "rebuilds tensors, containers, plain values and the classes and functions allowed so, and never "
                  "imports or calls what a file names", full, short, short, hint)


# ================================================================ reading
class _Global:
    """What an allowed global resolves to: a name the pickle machine dispatches on."""

    __slots__ = ("kind", "name", "arg")

    def __init__(self, kind, name, arg=None):
        self.kind, self.name, self.arg = kind, name, arg

    def __repr__(self):
        return "<global %s>" % self.name


_REBUILD_KINDS = ("rebuild_tensor_v2", "rebuild_tensor", "rebuild_parameter", "rebuild_parameter_with_state")


# Python 2's module names, which protocol 2 (with fix_imports) writes.
_PY2_MODULES = {"__builtin__": "builtins", "copy_reg": "copyreg"}
# copyreg's helpers that make instances: markers that act only on allowed classes.
_COPYREG_KINDS = {"__newobj__": "newobj", "__newobj_ex__": "newobj_ex", "_reconstructor": "reconstructor"}


def _builtin_global(module, name):
    """The built-in allow-list: (module, name) -> a _Global marker or a plain value; None for a name
    it does not hold."""
    full = module + "." + name
    if module == "collections" and name == "OrderedDict":
        return _Global("OrderedDict", full)
    if module == "torch._utils" and name in ("_rebuild_tensor_v2", "_rebuild_tensor", "_rebuild_parameter",
                                             "_rebuild_parameter_with_state"):
        return _Global(name[1:], full)
    if module == "torch._tensor" and name == "_rebuild_from_type_v2":
        return _Global("rebuild_from_type_v2", full)
    if module in ("torch", "torch.storage") and name in _STORAGE_DTYPES:
        return _Global("storage", full, _STORAGE_DTYPES[name])
    if module in ("torch", "torch.storage") and name in _UNSUPPORTED_STORAGES:
        raise _axle.DTypeError("load(): the checkpoint holds a %s (element type %s), which axle does not support"
                               % (full, _UNSUPPORTED_STORAGES[name]))
    if module == "torch" and name == "Size":
        return _Global("Size", full)
    if module == "torch" and name == "device":
        return _Global("device", full)
    if (module, name) in (("torch", "Tensor"), ("torch._tensor", "Tensor")):
        return _Global("type", full, "Tensor")
    if (module, name) in (("torch.nn.parameter", "Parameter"), ("torch.nn", "Parameter")):
        return _Global("type", full, "Parameter")
    if module == "torch" and name in _TORCH_DTYPES:
        return _dtype(_TORCH_DTYPES[name])
    if module == "torch" and name in _UNSUPPORTED_TORCH_DTYPES:
        raise _axle.DTypeError("load(): the checkpoint names dtype torch.%s, which axle does not support" % name)
    if module == "_codecs" and name == "encode":
        return _Global("encode", full)
    if module == "builtins" and name in ("set", "frozenset", "complex", "bytes", "bytearray"):
        return _Global(name, full)
    if module == "builtins" and name == "object":  # only as copyreg._reconstructor's base
        return _Global("object", full)
    if module == "builtins" and name == "getattr":  # only for a member of an allowed Enum (Python 3.11+'s pickle)
        return _Global("getattr", full)
    if module == "copyreg" and name in _COPYREG_KINDS:
        return _Global(_COPYREG_KINDS[name], full)
    return None


class _Storage:
    """One storage record: a 1-D axle tensor holding its elements."""

    __slots__ = ("tensor", "dtype", "numel", "key")

    def __init__(self, tensor, dtype, numel, key):
        self.tensor, self.dtype, self.numel, self.key = tensor, dtype, numel, key


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _check_ints(name, values, what):
    if not isinstance(values, (tuple, list)) or not all(_is_int(v) for v in values):
        raise _error("load(): %s: the %s must be a tuple of ints, got %s", name, what, _short(values))
    if any(not -2 ** 63 <= v < 2 ** 63 for v in values):
        raise _error("load(): %s: the %s %s does not fit in int64", name, what, _short(list(values)))
    if len(values) > _MAX_DIMS:
        raise _error("load(): %s: %d dimensions; axle supports at most %d", name, len(values), _MAX_DIMS)
    return tuple(values)


_MAX_KEY_DEPTH = 1000  # nesting of dict keys and set items
_MAX_DEFLATE_RATIO = 1032  # deflate's largest expansion


class _Loader:
    """Interprets data.pkl. Reads storages from the archive as persistent ids name them."""

    def __init__(self, zf, prefix, names, data, byteorder, map_location, what, archive_size):
        self.zf, self.prefix, self.names, self.data = zf, prefix, names, data
        self.archive_size = archive_size
        self.byteorder, self.map_location, self.what = byteorder, map_location, what
        self.storages = {}
        self.allowed = _Allowed(get_safe_globals())
        # Elements the pickle may make by copying (bytes(x), set(x)...): a budget in
        # proportion to its size, so a small file cannot ask for a large multiple of it.
        self.copy_budget = 16 * len(data) + (1 << 20)

    def _charge(self, n):
        self.copy_budget -= n
        if self.copy_budget < 0:
            raise _error("load(): %s: the pickle copies more data than a checkpoint of its size holds", self.what)

    def _hashable_depth(self, obj):
        """Refuses keys and set items nested deeper than any checkpoint nests (CPython hashes
        nested tuples recursively in C, without a recursion guard)."""
        level, todo = 0, [obj]
        while todo:
            level += 1
            if level > _MAX_KEY_DEPTH:
                raise _error("load(): %s: a dict key or set item nested more than %d levels deep", self.what,
                             _MAX_KEY_DEPTH)
            todo = [x for t in todo if isinstance(t, (tuple, frozenset)) for x in t]

    def find_global(self, module, name):
        """GLOBAL / STACK_GLOBAL: a built-in marker or value, or an allowed class or function."""
        module = _PY2_MODULES.get(module, module)
        found = _builtin_global(module, name)
        if found is None:
            found = self.allowed.find(module, name)
            if found is None:
                raise _not_allowed(module, name)
        return found

    # ------------------------------------------------------------ storages
    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or not pid:
            raise _error("load(): %s: a persistent id must be a tuple, got %s", self.what, _short(pid))
        tag = pid[0].decode("ascii", "replace") if isinstance(pid[0], bytes) else pid[0]
        if tag != "storage":
            raise _error("load(): %s: unknown persistent id kind %s (only storages are supported)", self.what,
                         _short(tag))
        if len(pid) != 5:
            raise _error("load(): %s: a storage persistent id has 5 fields, got %s", self.what, _short(pid))
        _, stype, key, location, numel = pid
        if not isinstance(stype, _Global) or stype.kind != "storage":
            raise _error("load(): %s: storage type %s is not a torch storage class", self.what, _short(stype))
        if not isinstance(key, str) or not key or not isinstance(location, str) or not _is_int(numel) or numel < 0:
            raise _error("load(): %s: malformed storage persistent id %s", self.what, _short(pid))
        known = self.storages.get(key)
        if known is not None:
            if known.dtype.name != stype.arg or known.numel != numel:
                raise _error("load(): %s: storage %r is named as %s of %d elements and as %s of %d", self.what,
                             key, known.dtype.name, known.numel, stype.arg, numel)
            return known
        storage = self._read_storage(key, _dtype(stype.arg), numel, location)
        self.storages[key] = storage
        return storage

    def _read_storage(self, key, dtype, numel, location):
        record = self.prefix + "data/" + key
        info = self.names.get(record)
        if info is None:
            raise _error("load(): %s: the storage record %r is missing from the archive", self.what, record)
        nbytes = numel * dtype.itemsize
        if info.file_size != nbytes:
            raise _error("load(): %s: the storage record %r has %d bytes but its persistent id says %d elements "
                         "of %s (%d bytes)", self.what, record, info.file_size, numel, dtype.name, nbytes)
        if info.compress_type == zipfile.ZIP_STORED and (info.compress_size != info.file_size or
                                                         info.header_offset + info.file_size > self.archive_size):
            # Checked before allocating: a damaged directory cannot make the loader allocate what the file lacks.
            raise _error("load(): %s: the storage record %r claims %d bytes, more than the archive holds", self.what,
                         record, info.file_size)
        if info.compress_type != zipfile.ZIP_STORED and (
                info.file_size > info.compress_size * _MAX_DEFLATE_RATIO + 1024 or
                info.header_offset + info.compress_size > self.archive_size):
            # torch never compresses storages; a compressed one may not claim more than deflate can expand to.
            raise _error("load(): %s: the compressed storage record %r claims %d bytes from %d compressed ones",
                         self.what, record, info.file_size, info.compress_size)
        swap = self.byteorder != sys.byteorder and dtype.itemsize > 1
        target = _axle.int16 if dtype is _axle.bfloat16 else dtype  # the bytes of bfloat16, for the buffer
        t = _axle.empty(numel, dtype=target)
        if nbytes:
            view = memoryview(t).cast("B")
            try:
                with self.zf.open(info) as src:
                    filled = 0
                    while filled < nbytes:
                        got = src.readinto(view[filled:filled + _CHUNK])
                        if not got:
                            break
                        filled += got
                    if filled != nbytes:
                        raise _error("load(): %s: the storage record %r ends after %d of its %d bytes", self.what,
                                     record, filled, nbytes)
                    src.read(1)  # reach the end: zipfile checks the CRC there
            except _axle.AxleError:
                raise
            except _READ_ERRORS as e:
                raise _error("load(): %s: cannot read the storage record %r: %s", self.what, record, e) from e
            del view
            if swap:
                t = _byteswapped(t)
        if dtype is _axle.bfloat16:
            t = _bfloat16_from_bits(t)
        return _Storage(self._place(t, location), dtype, numel, key)

    def _place(self, t, location):
        return _map_location(t, location, self.map_location)

    # ------------------------------------------------------------ rebuilds
    def tensor(self, storage, offset, size, stride, requires_grad):
        if not isinstance(storage, _Storage):
            raise _error("load(): %s: a tensor's storage must come from a persistent id, got %s", self.what,
                         _short(storage))
        where = "%s: a tensor on storage %r" % (self.what, storage.key)
        size = _check_ints(where, size, "size")
        stride = _check_ints(where, stride, "stride")
        if len(size) != len(stride):
            raise _error("load(): %s has size %s but stride %s", where, list(size), list(stride))
        if not _is_int(offset) or not 0 <= offset < 2 ** 63:
            raise _error("load(): %s has storage offset %s", where, _short(offset))
        if any(s < 0 for s in size) or any(s < 0 for s in stride):
            raise _error("load(): %s has size %s and stride %s: negative values", where, list(size), list(stride))
        if not isinstance(requires_grad, bool):
            raise _error("load(): %s: requires_grad must be a bool, got %s", where, _short(requires_grad))
        if all(size):
            last = offset + sum((n - 1) * s for n, s in zip(size, stride))
            if last >= storage.numel:
                raise _error("load(): %s with size %s, stride %s and offset %d reaches element %d, but the storage "
                             "has %d elements", where, list(size), list(stride), offset, last, storage.numel)
        else:
            offset = 0  # an empty tensor touches no element
        t = storage.tensor.as_strided(size, stride, offset)
        if requires_grad:
            if not storage.dtype.is_floating_point:
                raise _error("load(): %s: a %s tensor cannot require grad", where, storage.dtype.name)
            t.requires_grad_(True)
        return t

    def reduce(self, func, args):
        if not isinstance(func, _Global):
            return self.call(func, args)
        if not isinstance(args, tuple):
            raise _error("load(): %s: the arguments of %s must be a tuple, got %s", self.what, func.name,
                         _short(args))
        kind, n = func.kind, len(args)

        def need(*counts):
            if n not in counts:
                raise _error("load(): %s: %s takes %s arguments, got %d", self.what, func.name,
                             " or ".join(map(str, counts)), n)

        if kind == "rebuild_tensor_v2":  # (storage, offset, size, stride, requires_grad, hooks[, metadata])
            need(6, 7)
            self._check_hooks(args[5])
            if n == 7 and args[6] is not None and not isinstance(args[6], dict):
                raise _error("load(): %s: tensor metadata must be a dict, got %s", self.what, _short(args[6]))
            return self.tensor(*args[:5])
        if kind == "rebuild_tensor":  # (storage, offset, size, stride)
            need(4)
            return self.tensor(*args, False)
        if kind in ("rebuild_parameter", "rebuild_parameter_with_state"):  # (data, requires_grad, hooks[, state])
            need(3 if kind == "rebuild_parameter" else 4)
            data, requires_grad = args[0], args[1]
            if not isinstance(data, _axle.Tensor) or not isinstance(requires_grad, bool):
                raise _error("load(): %s: %s takes (tensor, bool, hooks), got %s", self.what, func.name,
                             _short(args))
            self._check_hooks(args[2])
            p = _parameter_class()(data.detach(), requires_grad)
            if n == 4:
                self._set_state(p, args[3])
            return p
        if kind == "rebuild_from_type_v2":  # (func, new_type, args, state)
            need(4)
            inner, new_type, inner_args, state = args
            if not isinstance(inner, _Global) or inner.kind not in _REBUILD_KINDS:
                raise _error("load(): %s: %s rebuilds through %s, which is not allowed", self.what, func.name,
                             _short(inner))
            if not isinstance(new_type, _Global) or new_type.kind != "type":
                raise _error("load(): %s: %s makes a %s, which is not allowed", self.what, func.name,
                             _short(new_type))
            t = self.reduce(inner, inner_args)
            if new_type.arg == "Parameter" and not isinstance(t, _parameter_class()):
                t = _parameter_class()(t.detach(), t.requires_grad)
            self._set_state(t, state)
            return t
        if kind == "OrderedDict":
            need(0, 1)
            d = collections.OrderedDict()
            if n:
                self._update(d, args[0], func.name)
            return d
        if kind == "Size":
            need(1)
            return _check_ints(self.what, args[0], "torch.Size")
        if kind == "device":
            need(1, 2)
            if not isinstance(args[0], str) or (n == 2 and not (args[1] is None or _is_int(args[1]))):
                raise _error("load(): %s: torch.device%s is not a device", self.what, _short(args))
            text = args[0] if n == 1 or args[1] is None else "%s:%d" % args
            try:
                return _axle.device(text)
            except _axle.AxleError:
                return text  # a device axle does not know: kept as its name
        if kind == "encode":
            need(1, 2)
            if not isinstance(args[0], str) or (n == 2 and args[1] not in ("latin1", "latin-1")):
                raise _error("load(): %s: _codecs.encode%s: only (str, 'latin1') is allowed", self.what,
                             _short(args))
            try:
                return args[0].encode("latin1")
            except UnicodeEncodeError as e:
                raise _error("load(): %s: bad bytes in _codecs.encode: %s", self.what, e) from e
        if kind in ("bytes", "bytearray"):
            need(0, 1, 2)
            if n == 0:
                return bytes() if kind == "bytes" else bytearray()
            if n == 1 and isinstance(args[0], (bytes, bytearray)):
                self._charge(len(args[0]))
                return bytes(args[0]) if kind == "bytes" else bytearray(args[0])
            if n == 2 and isinstance(args[0], str) and args[1] in ("latin1", "latin-1"):
                try:
                    raw = args[0].encode("latin1")
                except UnicodeEncodeError as e:
                    raise _error("load(): %s: bad bytes in %s: %s", self.what, func.name, e) from e
                return raw if kind == "bytes" else bytearray(raw)
            raise _error("load(): %s: %s%s is not allowed", self.what, func.name, _short(args))
        if kind in ("set", "frozenset"):
            need(0, 1)
            items = args[0] if n else []
            if not isinstance(items, (list, tuple)):
                raise _error("load(): %s: %s takes a list, got %s", self.what, func.name, _short(items))
            self._charge(len(items))
            for item in items:
                self._hashable_depth(item)
            try:
                return set(items) if kind == "set" else frozenset(items)
            except TypeError as e:
                raise _error("load(): %s: %s: %s", self.what, func.name, e) from e
        if kind == "complex":
            need(1, 2)
            if not all(isinstance(a, (int, float)) for a in args):
                raise _error("load(): %s: complex%s is not allowed", self.what, _short(args))
            return complex(*args)
        if kind == "newobj":  # (cls, *args): cls.__new__(cls, *args)
            if not n:
                raise _error("load(): %s: %s takes the class to make, got no arguments", self.what, func.name)
            return self.new_instance(args[0], args[1:], None, func.name)
        if kind == "newobj_ex":  # (cls, args, kwargs)
            need(3)
            return self.new_instance(args[0], args[1], args[2], func.name)
        if kind == "getattr":  # (enum class, member name): the member, from the class's own table
            need(2)
            cls, name = args
            members = _class_dict(cls).get("_member_map_") if isinstance(cls, enum.EnumMeta) else None
            if cls not in self.allowed or not isinstance(name, str) or not isinstance(members, dict) or \
                    name not in members:
                raise _error("load(): %s: builtins.getattr is only allowed to name a member of an allowed Enum, got "
                             "getattr%s", self.what, _short(args))
            return members[name]
        if kind == "reconstructor":  # (cls, base, state): object.__new__(cls) when base is object
            need(3)
            cls, base, state = args
            if not (isinstance(base, _Global) and base.kind == "object") or state is not None:
                raise _error("load(): %s: %s is only allowed with base builtins.object and no state, got %s",
                             self.what, func.name, _short(args[1:]))
            self._check_class(cls, func.name)
            return self._made(cls, lambda: object.__new__(cls))
        raise _error("load(): %s: %s cannot be called", self.what, func.name)

    # ------------------------------------------------------------ allowed classes and functions
    def _check_class(self, cls, opname):
        if not isinstance(cls, type) or cls not in self.allowed:
            raise _error("load(): %s: %s makes an instance of %s, which is not an allowed class", self.what, opname,
                         cls.name if isinstance(cls, _Global) else _short(cls))

    def _made(self, what, make):
        """make()'s result; what allowed code raises becomes axle.ValueError naming what ran."""
        try:
            return make()
        except _axle.AxleError:
            raise
        except RecursionError:
            raise
        except Exception as e:  # noqa: BLE001 (an allowed class's or function's own error)
            raise _error("load(): %s: %s failed: %s: %s", self.what, what if isinstance(what, str) else _short(what),
                         type(e).__name__, e) from e

    def new_instance(self, cls, args, kwargs, opname):
        """NEWOBJ, NEWOBJ_EX, copyreg.__newobj__ / __newobj_ex__ and REDUCE on a class: an instance of an
        allowed class made by cls.__new__, without running __init__."""
        self._check_class(cls, opname)
        if not isinstance(args, tuple):
            raise _error("load(): %s: %s: the arguments of %s must be a tuple, got %s", self.what, opname,
                         _short(cls), _short(args))
        if kwargs is None:
            kwargs = {}
        if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
            raise _error("load(): %s: %s: the keyword arguments of %s must be a dict of str, got %s", self.what,
                         opname, _short(cls), _short(kwargs))
        return self._made(cls, lambda: cls.__new__(cls, *args, **kwargs))

    def call(self, func, args):
        """REDUCE on an allowed object: a class makes an instance (no __init__), a function is called."""
        if func not in self.allowed:
            raise _error("load(): %s: REDUCE calls %s, which is not an allowed callable", self.what, _short(func))
        if isinstance(func, type):
            return self.new_instance(func, args, None, "REDUCE")
        if not isinstance(args, tuple):
            raise _error("load(): %s: the arguments of %s must be a tuple, got %s", self.what, _short(func),
                         _short(args))
        return self._made(func, lambda: func(*args))

    def _check_hooks(self, hooks):
        if not isinstance(hooks, dict):
            raise _error("load(): %s: backward hooks must be an OrderedDict, got %s", self.what, _short(hooks))
        if hooks:
            warnings.warn("axle.load: backward hooks saved with a tensor are not restored")

    def _update(self, d, items, name):
        if isinstance(items, dict):
            items = list(items.items())
        if not isinstance(items, (list, tuple)) or not all(isinstance(kv, (list, tuple)) and len(kv) == 2
                                                           for kv in items):
            raise _error("load(): %s: %s takes (key, value) pairs, got %s", self.what, name, _short(items))
        for k, v in items:
            self._setitem(d, k, v)

    def _setitem(self, d, k, v):
        self._hashable_depth(k)
        try:
            if type(d) is dict or type(d) is collections.OrderedDict:
                d[k] = v
            else:  # a dict subclass (an allowed class): the base class stores it, not the subclass's code
                (collections.OrderedDict if isinstance(d, collections.OrderedDict) else dict).__setitem__(d, k, v)
        except TypeError as e:
            raise _error("load(): %s: cannot use %s as a dict key: %s", self.what, _short(k), e) from e

    def _set_state(self, obj, state):
        """Attributes saved with an object (BUILD, or a tensor's Python state): plain names only."""
        if state is None:
            return
        slots = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slots = state
        for part in (state, slots):
            if part is None:
                continue
            if not isinstance(part, dict):
                raise _error("load(): %s: the state of %s must be a dict, got %s", self.what, type(obj).__name__,
                             _short(part))
            for k, v in part.items():
                if not isinstance(k, str) or not k.isidentifier() or k.startswith("__"):
                    raise _error("load(): %s: attribute name %s is not allowed", self.what, _short(k))
                if hasattr(type(obj), k):  # a saved attribute may not hide a method or property
                    raise _error("load(): %s: attribute %r would replace %s.%s", self.what, k, type(obj).__name__, k)
                try:
                    setattr(obj, k, v)
                except (AttributeError, TypeError):
                    warnings.warn("axle.load: attribute %r saved on a %s is dropped (axle's %s takes no "
                                  "attributes)" % (k, type(obj).__name__, type(obj).__name__))

    def build(self, inst, state):
        cls = type(inst)
        if cls is collections.OrderedDict or cls is _axle.Tensor or cls is _parameter_class():
            self._set_state(inst, state)
            return
        if cls not in self.allowed:
            raise _error("load(): %s: BUILD on a %s is not allowed", self.what, cls.__name__)
        setstate = _class_attribute(cls, "__setstate__")
        setstate = None if setstate is _MISSING else setstate
        if setstate is not None and setstate is not _module_setstate():
            self._made("%s.__setstate__" % cls.__qualname__, lambda: setstate(inst, state))
            return
        # Python's default: a dict for __dict__, or (dict or None, dict of slots); nn.Module's
        # __setstate__ is that default too (with defaults for what old files lack).
        slots = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slots = state
        if state is not None:
            self._check_attributes(cls, state, "state")
            if setstate is not None:
                self._made("%s.__setstate__" % cls.__qualname__, lambda: setstate(inst, state))
            else:
                try:
                    inst_dict = object.__getattribute__(inst, "__dict__")
                except AttributeError:
                    raise _error("load(): %s: BUILD gives attributes to a %s, which has no __dict__", self.what,
                                 cls.__qualname__) from None
                inst_dict.update(state)
        if slots is not None:
            self._check_attributes(cls, slots, "slot state")
            for k, v in slots.items():
                member = _class_attribute(cls, k)
                if type(member) is not types.MemberDescriptorType:
                    raise _error("load(): %s: %r in the slot state is not a slot of %s", self.what, k,
                                 cls.__qualname__)
                self._made("setting slot %s.%s" % (cls.__qualname__, k), lambda: member.__set__(inst, v))

    def _check_attributes(self, cls, state, what):
        """The names BUILD gives an instance: strings, no dunder names, none that would hide a method."""
        if not isinstance(state, dict):
            raise _error("load(): %s: the %s of a %s must be a dict, got %s", self.what, what, cls.__qualname__,
                         _short(state))
        for k in state:
            if not isinstance(k, str):
                raise _error("load(): %s: attribute name %s of a %s is not a string", self.what, _short(k),
                             cls.__qualname__)
            if k.startswith("__") and k.endswith("__"):
                raise _error("load(): %s: attribute name %s is not allowed", self.what, _short(k))
            found = _class_attribute(cls, k)
            if found is not _MISSING and _is_method_like(found):
                raise _error("load(): %s: attribute %r would replace %s.%s", self.what, k, cls.__qualname__, k)

    # ------------------------------------------------------------ the pickle machine
    def run(self):
        data = self.data
        end = len(data)
        pos = 0
        stack, metastack, memo = [], [], {}
        what = self.what

        def take(n):
            nonlocal pos
            if n < 0 or pos + n > end:
                raise _error("load(): %s: the pickle is truncated (needs %d bytes at offset %d of %d)", what, n,
                             pos, end)
            chunk = data[pos:pos + n]
            pos += n
            return chunk

        def line():
            nonlocal pos
            i = data.find(b"\n", pos)
            if i < 0:
                raise _error("load(): %s: the pickle is truncated (a text field has no end of line)", what)
            chunk = data[pos:i]
            pos = i + 1
            return chunk

        def pop():
            if not stack:
                raise _error("load(): %s: malformed pickle: the stack is empty at offset %d", what, pos - 1)
            return stack.pop()

        def top():
            if not stack:
                raise _error("load(): %s: malformed pickle: the stack is empty at offset %d", what, pos - 1)
            return stack[-1]

        def pop_mark():
            nonlocal stack
            if not metastack:
                raise _error("load(): %s: malformed pickle: no MARK before offset %d", what, pos - 1)
            items = stack
            stack = metastack.pop()
            return items

        def get(idx):
            try:
                return memo[idx]
            except KeyError:
                raise _error("load(): %s: malformed pickle: memo entry %d is not defined", what, idx) from None

        def put(idx):
            memo[idx] = top()

        def text_int(raw):
            try:
                return int(raw.rstrip(b"L"))
            except ValueError:
                raise _error("load(): %s: malformed integer %s in the pickle", what, _short(raw)) from None

        def decode(raw, encoding="utf-8", errors="surrogatepass"):
            try:
                return raw.decode(encoding, errors)
            except UnicodeDecodeError as e:
                raise _error("load(): %s: bad string in the pickle: %s", what, e) from e

        def extend(target, items, opname):
            if type(target) is list:
                target.extend(items)
            elif isinstance(target, list):  # a list subclass (an allowed class): the base class stores them
                list.extend(target, items)
            else:
                raise _error("load(): %s: %s on a %s is not allowed", what, opname, type(target).__name__)

        def as_dict(target, opname):
            if not isinstance(target, dict):
                raise _error("load(): %s: %s on a %s is not allowed", what, opname, type(target).__name__)
            return target

        refused = {0x69: "INST", 0x6F: "OBJ", 0x82: "EXT1", 0x83: "EXT2", 0x84: "EXT4", 0x97: "NEXT_BUFFER",
                   0x98: "READONLY_BUFFER"}
        while True:
            if pos >= end:
                raise _error("load(): %s: the pickle is truncated (no STOP opcode)", what)
            op = data[pos]
            pos += 1
            if op == 0x80:  # PROTO
                proto = take(1)[0]
                if proto > 5:
                    raise _error("load(): %s: unsupported pickle protocol %d", what, proto)
            elif op == 0x95:  # FRAME
                take(8)
            elif op == 0x2E:  # STOP
                result = pop()
                return result
            elif op == 0x28:  # MARK
                metastack.append(stack)
                stack = []
            elif op == 0x30:  # POP
                if stack:
                    stack.pop()
                else:
                    pop_mark()
            elif op == 0x31:  # POP_MARK
                pop_mark()
            elif op == 0x32:  # DUP
                stack.append(top())
            elif op == 0x4E:  # NONE
                stack.append(None)
            elif op == 0x88:  # NEWTRUE
                stack.append(True)
            elif op == 0x89:  # NEWFALSE
                stack.append(False)
            elif op == 0x4B:  # BININT1
                stack.append(take(1)[0])
            elif op == 0x4D:  # BININT2
                stack.append(struct.unpack("<H", take(2))[0])
            elif op == 0x4A:  # BININT
                stack.append(struct.unpack("<i", take(4))[0])
            elif op == 0x8A:  # LONG1
                stack.append(int.from_bytes(take(take(1)[0]), "little", signed=True))
            elif op == 0x8B:  # LONG4
                n = struct.unpack("<i", take(4))[0]
                if n < 0:
                    raise _error("load(): %s: LONG4 with negative length", what)
                stack.append(int.from_bytes(take(n), "little", signed=True))
            elif op == 0x49:  # INT (text; 00 and 01 are False and True)
                raw = line()
                stack.append(False if raw == b"00" else True if raw == b"01" else text_int(raw))
            elif op == 0x4C:  # LONG (text)
                stack.append(text_int(line()))
            elif op == 0x47:  # BINFLOAT
                stack.append(struct.unpack(">d", take(8))[0])
            elif op == 0x46:  # FLOAT (text)
                raw = line()
                try:
                    stack.append(float(raw))
                except ValueError:
                    raise _error("load(): %s: malformed float %s in the pickle", what, _short(raw)) from None
            elif op == 0x58:  # BINUNICODE
                stack.append(decode(take(struct.unpack("<I", take(4))[0])))
            elif op == 0x8C:  # SHORT_BINUNICODE
                stack.append(decode(take(take(1)[0])))
            elif op == 0x8D:  # BINUNICODE8
                stack.append(decode(take(struct.unpack("<Q", take(8))[0])))
            elif op == 0x56:  # UNICODE (text, raw-unicode-escape)
                stack.append(decode(line(), "raw-unicode-escape", "strict"))
            elif op in (0x54, 0x55):  # BINSTRING, SHORT_BINSTRING: Python 2 str, read as ASCII
                n = struct.unpack("<i", take(4))[0] if op == 0x54 else take(1)[0]
                stack.append(decode(take(n), "ascii", "strict"))
            elif op == 0x53:  # STRING (text, quoted)
                raw = line()
                if len(raw) < 2 or raw[0] != raw[-1] or raw[:1] not in (b"'", b'"'):
                    raise _error("load(): %s: malformed STRING in the pickle", what)
                try:
                    stack.append(decode(codecs.escape_decode(raw[1:-1])[0], "ascii", "strict"))
                except ValueError as e:
                    raise _error("load(): %s: malformed STRING in the pickle: %s", what, e) from e
            elif op == 0x42:  # BINBYTES
                stack.append(bytes(take(struct.unpack("<I", take(4))[0])))
            elif op == 0x43:  # SHORT_BINBYTES
                stack.append(bytes(take(take(1)[0])))
            elif op == 0x8E:  # BINBYTES8
                stack.append(bytes(take(struct.unpack("<Q", take(8))[0])))
            elif op == 0x96:  # BYTEARRAY8
                stack.append(bytearray(take(struct.unpack("<Q", take(8))[0])))
            elif op == 0x29:  # EMPTY_TUPLE
                stack.append(())
            elif op in (0x85, 0x86, 0x87):  # TUPLE1..3
                n = op - 0x84
                if len(stack) < n:
                    raise _error("load(): %s: malformed pickle: TUPLE%d on a stack of %d", what, n, len(stack))
                items = tuple(stack[-n:])
                del stack[-n:]
                stack.append(items)
            elif op == 0x74:  # TUPLE
                items = tuple(pop_mark())  # (pop_mark replaces the stack: take the items first)
                stack.append(items)
            elif op == 0x5D:  # EMPTY_LIST
                stack.append([])
            elif op == 0x6C:  # LIST
                items = pop_mark()
                stack.append(items)
            elif op == 0x7D:  # EMPTY_DICT
                stack.append({})
            elif op == 0x64:  # DICT
                items = pop_mark()
                if len(items) % 2:
                    raise _error("load(): %s: malformed pickle: DICT with an odd number of items", what)
                d = {}
                for i in range(0, len(items), 2):
                    self._setitem(d, items[i], items[i + 1])
                stack.append(d)
            elif op == 0x8F:  # EMPTY_SET
                stack.append(set())
            elif op == 0x90:  # ADDITEMS
                items = pop_mark()
                target = top()
                if not isinstance(target, set):
                    raise _error("load(): %s: ADDITEMS on a %s is not allowed", what, type(target).__name__)
                try:
                    set.update(target, items)  # (a set subclass's own update does not run)
                except TypeError as e:
                    raise _error("load(): %s: ADDITEMS: %s", what, e) from e
            elif op == 0x91:  # FROZENSET
                items = pop_mark()
                try:
                    stack.append(frozenset(items))
                except TypeError as e:
                    raise _error("load(): %s: FROZENSET: %s", what, e) from e
            elif op == 0x61:  # APPEND
                value = pop()
                extend(top(), [value], "APPEND")
            elif op == 0x65:  # APPENDS
                items = pop_mark()
                extend(top(), items, "APPENDS")
            elif op == 0x73:  # SETITEM
                value = pop()
                key = pop()
                self._setitem(as_dict(top(), "SETITEM"), key, value)
            elif op == 0x75:  # SETITEMS
                items = pop_mark()
                target = as_dict(top(), "SETITEMS")
                if len(items) % 2:
                    raise _error("load(): %s: malformed pickle: SETITEMS with an odd number of items", what)
                for i in range(0, len(items), 2):
                    self._setitem(target, items[i], items[i + 1])
            elif op == 0x63:  # GLOBAL
                module = decode(line(), "utf-8", "strict")
                name = decode(line(), "utf-8", "strict")
                stack.append(self.find_global(module, name))
            elif op == 0x93:  # STACK_GLOBAL
                name = pop()
                module = pop()
                if not isinstance(module, str) or not isinstance(name, str):
                    raise _error("load(): %s: STACK_GLOBAL needs two strings", what)
                stack.append(self.find_global(module, name))
            elif op == 0x52:  # REDUCE
                args = pop()
                func = pop()
                stack.append(self.reduce(func, args))
            elif op == 0x81:  # NEWOBJ
                args = pop()
                cls = pop()
                stack.append(self.new_instance(cls, args, None, "NEWOBJ"))
            elif op == 0x92:  # NEWOBJ_EX
                kwargs = pop()
                args = pop()
                cls = pop()
                stack.append(self.new_instance(cls, args, kwargs, "NEWOBJ_EX"))
            elif op == 0x62:  # BUILD
                state = pop()
                self.build(top(), state)
            elif op == 0x51:  # BINPERSID
                stack.append(self.persistent_load(pop()))
            elif op == 0x50:  # PERSID (text)
                stack.append(self.persistent_load(decode(line(), "ascii", "strict")))
            elif op == 0x68:  # BINGET
                stack.append(get(take(1)[0]))
            elif op == 0x6A:  # LONG_BINGET
                stack.append(get(struct.unpack("<I", take(4))[0]))
            elif op == 0x67:  # GET
                stack.append(get(text_int(line())))
            elif op == 0x71:  # BINPUT
                put(take(1)[0])
            elif op == 0x72:  # LONG_BINPUT
                put(struct.unpack("<I", take(4))[0])
            elif op == 0x70:  # PUT
                put(text_int(line()))
            elif op == 0x94:  # MEMOIZE
                put(len(memo))
            elif op in refused:
                raise _error("load(): %s: the pickle uses %s, which is not allowed (INST and OBJ import and call "
                             "what they name; extension codes and out-of-band buffers have no place in a "
                             "checkpoint)", what, refused[op])
            else:
                raise _error("load(): %s: unknown pickle opcode 0x%02x at offset %d", what, op, pos - 1)


def _map_location(t, location, ml):
    """Where map_location puts a storage (a 1-D tensor) saved at `location`."""
    if ml is None:
        return t
    if callable(ml) and not isinstance(ml, (str, _axle.device, dict)):
        out = ml(t, location)
        if out is None:
            return t
        if not isinstance(out, _axle.Tensor) or out.dtype is not t.dtype or tuple(out.shape) != tuple(t.shape):
            raise _error("load(): map_location returned %s for a storage of %d %s elements", _short(out),
                         t.numel(), t.dtype.name)
        return out
    target = ml.get(location) if isinstance(ml, dict) else ml
    if target is None:
        return t
    target = _axle.device(target)
    if target.type == "cpu" and t.device.type == "cpu":
        return t
    return t.to(str(target))


def _check_map_location(ml):
    if ml is not None and not (isinstance(ml, (str, dict, _axle.device)) or callable(ml)):
        raise _axle.TypeError("load(): map_location must be a device, a dict or a callable, got %s"
                              % type(ml).__name__)


def _check_weights_only(weights_only):
    if not (weights_only is True or weights_only is None):  # None: torch 2.6's default, which means True
        raise _axle.NotImplementedError("load(): axle only reads checkpoints with its restricted unpickler "
                                        "(weights_only=True); it never imports or calls what a file names")


def _moved(obj, map_location):
    """A safetensors or .npy result (a tensor or a dict of them) where map_location puts it."""
    _check_map_location(map_location)
    if map_location is None:
        return obj
    if isinstance(obj, dict):
        return {k: _map_location(v, "cpu", map_location) for k, v in obj.items()}
    return _map_location(obj, "cpu", map_location)


def _load_any(f, map_location=None, weights_only=True):
    """axle.load for a path without a known suffix or a file object: by the content."""
    _check_weights_only(weights_only)
    _check_map_location(map_location)
    fileobj, close, name = _open_for_reading(f)
    try:
        try:
            start = fileobj.tell()
            head = fileobj.read(16)
            fileobj.seek(start)
        except (OSError, ValueError) as e:
            raise _error("load(): cannot read %s: %s", name, e) from e
        kind = _detect_format(head)
        if kind not in ("npy", "safetensors"):
            return _load_zip(fileobj, map_location, name)
        loader = _axle._C._load_npy if kind == "npy" else _axle._C._load_safetensors
        path = _path_of(f)
        if path is not None:
            return _moved(loader(path), map_location)
        with tempfile.TemporaryDirectory() as tmp:  # the C++ loaders read paths
            copy = os.path.join(tmp, "file")
            with open(copy, "wb") as out:
                shutil.copyfileobj(fileobj, out)
            return _moved(loader(copy), map_location)
    finally:
        if close:
            fileobj.close()


def _path_of(f):
    return os.fsdecode(os.fspath(f)) if isinstance(f, (str, bytes, os.PathLike)) else None


def _parameter_class():
    from .nn.parameter import Parameter

    return Parameter


def _module_setstate():
    from .nn.modules.module import Module

    return Module.__dict__["__setstate__"]


_MISSING = object()


def _class_attribute(cls, name):
    """name in the namespaces of cls's MRO (no descriptor runs), or _MISSING."""
    for klass in cls.__mro__:
        ns = _class_dict(klass)
        if name in ns:
            return ns[name]
    return _MISSING


def _is_method_like(attr):
    """A class attribute that an instance attribute of the same name must not hide: a function, a
    method, a class, or any other non-data descriptor. (Plain values and data descriptors such as
    properties may be shadowed: the instance's value is its own, and a property still wins.)"""
    kind = type(attr)
    if callable(attr) or isinstance(attr, (staticmethod, classmethod)):
        return True
    return hasattr(kind, "__get__") and not (hasattr(kind, "__set__") or hasattr(kind, "__delete__"))


def _byteswapped(t):
    """A tensor of the same dtype with each element's bytes reversed (big-endian files)."""
    import numpy

    a = numpy.asarray(t)
    return _axle.from_numpy(a.byteswap()).clone()


def _bfloat16_from_bits(bits):
    """bfloat16 from its 16-bit patterns (an int16 tensor): they are the high half of a float32."""
    import numpy

    wide = numpy.asarray(bits).view(numpy.uint16).astype(numpy.uint32) << 16
    return _axle.from_numpy(wide.view(numpy.float32)).to(_axle.bfloat16)


def _bfloat16_bits(t):
    """The 16-bit patterns (native byte order) of a bfloat16 tensor."""
    import numpy

    wide = numpy.asarray(t.to(_axle.float32)).view(numpy.uint32)
    return (wide >> 16).astype(numpy.uint16).tobytes()


def _open_for_reading(f):
    """(file object, close it?, a name for messages) for a path or a file object."""
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(os.fspath(f))
        try:
            return open(path, "rb"), True, path
        except OSError as e:
            raise _error("load(): cannot open %r for reading: %s", path, e.strerror or e) from e
    if not hasattr(f, "read"):
        raise _axle.TypeError("load(): expected a path or a binary file object, got %s" % type(f).__name__)
    name = getattr(f, "name", None)
    name = name if isinstance(name, str) else "<%s>" % type(f).__name__
    try:
        seekable = f.seekable()
    except (AttributeError, OSError, ValueError):
        seekable = False
    if not seekable:
        data = f.read()
        if not isinstance(data, (bytes, bytearray)):
            raise _axle.TypeError("load(): the file object must be opened in binary mode")
        return io.BytesIO(data), True, name
    return f, False, name


def load(f, map_location=None, weights_only=True):
    """Reads a checkpoint written by ``torch.save`` (or :func:`save`) from a path or a binary file object.

    Tensors come back as axle Tensors on the CPU (or where ``map_location`` puts
    them: a device, a ``{saved location: device}`` dict, or a callable
    ``(storage tensor, saved location) -> tensor``), Parameters as
    ``axle.nn.Parameter``; tensors that shared a storage when saved share memory.
    Only ``weights_only=True`` exists: axle never runs a pickle's code. A file
    naming other classes or functions (a whole model) loads when they are
    allowed (:func:`safe_globals`, :func:`add_safe_globals`); torch's names
    (``torch.nn.modules.linear.Linear``) mean axle's objects at the same path
    (``axle.nn.modules.linear.Linear``)."""
    _check_weights_only(weights_only)
    _check_map_location(map_location)
    fileobj, close, name = _open_for_reading(f)
    try:
        return _load_zip(fileobj, map_location, name)
    finally:
        if close:
            fileobj.close()


def _load_zip(fileobj, map_location, name):
    try:
        start = fileobj.tell()
        head = fileobj.read(16)
        archive_size = fileobj.seek(0, os.SEEK_END)  # where the file ends (zipfile's offsets are absolute)
        fileobj.seek(start)
    except (OSError, ValueError) as e:
        raise _error("load(): cannot read %s: %s", name, e) from e
    if head[:4] != b"PK\x03\x04":
        kind = _detect_format(head)
        if kind == "legacy":
            raise _error("load(): %s is in torch's legacy format (torch.save with _use_new_zipfile_serialization="
                         "False, or torch < 1.6); axle reads the zip format only: re-save it with a current torch",
                         name)
        if kind in ("safetensors", "npy"):
            raise _error("load(): %s is a %s file, not a torch checkpoint: use axle.load on a path, which "
                         "detects it", name, kind)
        raise _error("load(): %s is not a torch checkpoint: it does not start with a zip archive's "
                     "signature%s", name, " (the file is empty)" if not head else "")
    try:
        zf = zipfile.ZipFile(fileobj)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, struct.error,
            NotImplementedError) as e:
        raise _error("load(): %s is not a readable zip archive (truncated or corrupt?): %s", name, e) from e
    with zf:
        infos = zf.infolist()
        if not infos:
            raise _error("load(): %s: the zip archive is empty", name)
        names = {}
        for info in infos:
            if info.filename in names:
                raise _error("load(): %s: the zip archive holds %r twice", name, info.filename)
            names[info.filename] = info
        first = infos[0].filename
        if "/" not in first:
            raise _error("load(): %s: the archive's first record %r is not in a folder (a torch checkpoint keeps "
                         "all its records under <name>/)", name, first)
        prefix = first.split("/", 1)[0] + "/"
        what = name

        def read(record, limit=None):
            info = names[record]
            if limit is not None and info.file_size > limit:
                raise _error("load(): %s: the record %r has %d bytes, more than expected", what, record,
                             info.file_size)
            try:
                return zf.read(info)
            except _axle.AxleError:
                raise
            except _READ_ERRORS as e:
                raise _error("load(): %s: cannot read the record %r (truncated or corrupt?): %s", what, record,
                             e) from e

        if prefix + "data.pkl" not in names:
            if prefix + "constants.pkl" in names or prefix + "code/" in names:
                raise _error("load(): %s is a TorchScript archive (torch.jit.save), not a torch.save checkpoint",
                             name)
            raise _error("load(): %s: the archive has no %r record: not a torch checkpoint", name,
                         prefix + "data.pkl")
        if prefix + "constants.pkl" in names:
            raise _error("load(): %s is a TorchScript archive (torch.jit.save), not a torch.save checkpoint", name)
        version_record = next((r for r in (prefix + ".data/version", prefix + "version") if r in names), None)
        if version_record is None:
            raise _error("load(): %s: the archive has no version record", name)
        version_text = read(version_record, 64).strip()
        if not version_text.isdigit() or not 1 <= int(version_text) <= 10:
            raise _error("load(): %s: unsupported checkpoint format version %s", name, _short(version_text))
        byteorder = "little"
        if prefix + "byteorder" in names:
            text = read(prefix + "byteorder", 64).decode("ascii", "replace").strip()
            if text not in ("little", "big"):
                raise _error("load(): %s: the byteorder record says %s (expected 'little' or 'big')", name,
                             _short(text))
            byteorder = text
        data = read(prefix + "data.pkl")
        loader = _Loader(zf, prefix, names, data, byteorder, map_location, name, archive_size)
        try:
            return loader.run()
        except _axle.AxleError:
            raise
        except RecursionError as e:
            raise _error("load(): %s: the checkpoint nests too deeply", name) from e
        except (struct.error, OverflowError, MemoryError) as e:
            raise _error("load(): %s: malformed pickle: %s", name, e) from e


def _detect_format(head):
    """What a file's first bytes say it is: 'zip', 'npy', 'safetensors', 'legacy' (torch's pre-zip
    pickle format) or None."""
    if head[:4] == b"PK\x03\x04":
        return "zip"
    if head[:6] == b"\x93NUMPY":
        return "npy"
    if len(head) >= 9 and head[8:9] == b"{":
        return "safetensors"
    if head[:2] == b"\x80\x02" and head[2:4] == b"\x8a\x0a":  # protocol 2, LONG1 of the 10-byte magic number
        return "legacy"
    return None


# ================================================================ writing
_LOCATION_CPU = "cpu"


class _StorageOut:
    __slots__ = ("key", "tensor", "dtype", "numel", "location")

    def __init__(self, key, tensor, dtype, numel, location):
        self.key, self.tensor, self.dtype, self.numel, self.location = key, tensor, dtype, numel, location


def _location(t):
    dev = t.device
    return _LOCATION_CPU if dev.type == "cpu" else str(dev)


class _Unsavable(Exception):
    """An object save cannot write; path collects where it sat (innermost first)."""

    def __init__(self, msg):
        super().__init__(msg)
        self.msg, self.path = msg, []


class _Pickler:
    """Writes data.pkl (protocol 2, as torch's pickler).

    It runs twice over the object: first with plan None, only to find the tensors in the order they
    are written (their storages are planned from all of them before any persistent id is written),
    then to write. The second run reuses the first's reductions (what __reduce_ex__ gave for each
    object), so both see the same objects."""

    def __init__(self, plan, reductions=None):
        self.out = bytearray(b"\x80\x02")
        self.count = 0      # memo entries written
        self.memo = {}      # id(obj) -> memo index
        self.keep = []      # the objects whose ids are in memo, alive until the end
        self.globals = {}   # "module\nname" -> memo index
        self.plan = plan    # id(tensor) -> (storage, offset, size, stride); None: find the tensors
        self.found = []     # the tensors, in the order written (when plan is None)
        self.reductions = {} if reductions is None else reductions  # id(obj) -> (obj, reduction)

    # ------------------------------------------------------------ memo
    def _put(self):
        idx = self.count
        self.count += 1
        self.out += b"q" + bytes([idx]) if idx < 256 else b"r" + struct.pack("<I", idx)
        return idx

    def _memoize(self, obj):
        self.memo[id(obj)] = self._put()
        self.keep.append(obj)

    def _get(self, idx):
        self.out += b"h" + bytes([idx]) if idx < 256 else b"j" + struct.pack("<I", idx)

    def _global(self, module, name):
        key = module + "\n" + name
        idx = self.globals.get(key)
        if idx is not None:
            self._get(idx)
            return
        self.out += b"c" + key.encode("utf-8") + b"\n"
        self.globals[key] = self._put()

    def _global_of(self, obj):
        """A class or function, by module and qualified name (the GLOBAL a pickle names it by)."""
        kind = "class" if isinstance(obj, type) else "function"
        name = _global_name(obj)
        if name is None:
            raise _Unsavable("cannot save the %s %s.%s: a checkpoint names classes and functions by module and "
                             "qualified name, and it is not found under its own (a lambda, or one defined inside "
                             "a function?)" % (kind, getattr(obj, "__module__", None),
                                               getattr(obj, "__qualname__", None)))
        if name[0] == "builtins":
            raise _Unsavable("cannot save the built-in %s %s: axle.load allows no built-in class or function "
                             "beyond the containers it rebuilds" % (kind, name[1]))
        self._global(*name)

    # ------------------------------------------------------------ values
    def save(self, obj):
        out = self.out
        if obj is None:
            out += b"N"
        elif obj is True:
            out += b"\x88"
        elif obj is False:
            out += b"\x89"
        elif id(obj) in self.memo:
            self._get(self.memo[id(obj)])
        elif isinstance(obj, int):
            self._int(int(obj))
        elif isinstance(obj, float):
            out += b"G" + struct.pack(">d", obj)
        elif isinstance(obj, str):
            raw = str(obj).encode("utf-8", "surrogatepass")
            out += b"X" + struct.pack("<I", len(raw)) + raw
        elif isinstance(obj, bytes):  # as Python's protocol 2: _codecs.encode(latin-1 text)
            self._global("_codecs", "encode")
            self.save(bytes(obj).decode("latin1"))
            self.save("latin1")
            out += b"\x86R"
        elif isinstance(obj, bytearray):
            self._global("__builtin__", "bytearray")
            self.save(bytes(obj).decode("latin1"))
            self.save("latin-1")
            out += b"\x86R"
            self._memoize(obj)
        elif isinstance(obj, complex):
            self._global("__builtin__", "complex")
            self.save(obj.real)
            self.save(obj.imag)
            out += b"\x86R"
        elif isinstance(obj, _axle.Tensor):
            self._tensor(obj)
        elif type(obj) is collections.OrderedDict:
            self._global("collections", "OrderedDict")
            out += b")R"
            self._memoize(obj)
            self._setitems(obj)
            state = getattr(obj, "__dict__", None)
            if state:
                self.save(dict(state))
                self.out += b"b"
        elif type(obj) is dict:
            out += b"}"
            self._memoize(obj)
            self._setitems(obj)
        elif type(obj) is list:
            out += b"]"
            self._memoize(obj)
            self._appends(obj)
        elif type(obj) is tuple or (isinstance(obj, tuple) and type(obj).__module__ == "axle.return_types"):
            self._tuple(obj, obj)  # (an op's named result is written as the tuple it is, as before)
        elif type(obj) is set or type(obj) is frozenset:
            self._global("__builtin__", "set" if isinstance(obj, set) else "frozenset")
            self.out += b"]"
            self._appends(list(obj))
            self.out += b"\x85R"
            self._memoize(obj)
        elif isinstance(obj, _axle.dtype):
            self._global("torch", obj.name)
        elif isinstance(obj, _axle.device):
            self._global("torch", "device")
            self.save(obj.type)
            if obj.type == "cpu" or obj.index is None:
                self.out += b"\x85R"
            else:
                self.save(obj.index)
                self.out += b"\x86R"
        else:
            self._object(obj)

    def _object(self, obj):
        """Anything else, as Python's pickle writes it (protocol 2): a class or function by name, an
        instance by its __reduce_ex__(2): NEWOBJ (or REDUCE) of its class, then its state (BUILD)."""
        if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
            self._global_of(obj)
            return
        cls = type(obj)
        if isinstance(obj, types.MethodType):
            raise _Unsavable("cannot save the bound method %s: only functions and classes are saved by name "
                             "(store the function, or the object and the method's name)"
                             % getattr(obj, "__qualname__", "?"))
        if cls.__module__ == "builtins":
            raise _Unsavable("cannot save an object of type %s: a checkpoint holds tensors, Parameters, dicts, "
                             "OrderedDicts, lists, tuples, sets, numbers, strings, bytes, None, dtypes, devices, "
                             "and instances of classes importable by name (a whole nn.Module)" % cls.__qualname__)
        rv = self._reduction(obj)
        if isinstance(rv, str):  # a global reached by that name (a singleton)
            module = getattr(obj, "__module__", None) or getattr(cls, "__module__", None)
            if not isinstance(module, str) or _lookup(module, rv) is not obj:
                raise _Unsavable("cannot save %s: its __reduce_ex__ names it %r, which is not found in its module"
                                 % (_short(obj), rv))
            self._global(module, rv)
            return
        func, args, state, listitems, dictitems = rv
        if func is copyreg.__newobj__ or func is copyreg.__newobj_ex__:
            if func is copyreg.__newobj_ex__:
                if len(args) != 3 or args[2]:
                    raise _Unsavable("cannot save a %s: it is made with keyword arguments (copyreg.__newobj_ex__), "
                                     "which pickle protocol 2 cannot express" % cls.__qualname__)
                args = (args[0],) + tuple(args[1])
            if not args or not isinstance(args[0], type):
                raise _Unsavable("cannot save a %s: copyreg.__newobj__ without a class" % cls.__qualname__)
            self._global_of(args[0])
            self._tuple(args[1:])
            self.out += b"\x81"  # NEWOBJ
        elif func is getattr and len(args) == 2 and isinstance(args[0], enum.EnumMeta) and isinstance(args[1], str):
            self._global("__builtin__", "getattr")  # an Enum member, as Python 3.11's pickle writes it
            self.save(args)
            self.out += b"R"
        else:
            if not isinstance(func, (type, types.FunctionType, types.BuiltinFunctionType)):
                raise _Unsavable("cannot save a %s: its __reduce_ex__ rebuilds it with %s, which is not a class or "
                                 "function" % (cls.__qualname__, _short(func)))
            self._global_of(func)
            self.save(args)
            self.out += b"R"
        if id(obj) in self.memo:  # its arguments held it (a cycle): the one made first is the object
            self.out += b"0"
            self._get(self.memo[id(obj)])
        else:
            self._memoize(obj)
        if listitems:
            self._appends(listitems)
        if dictitems:
            self._setitems(dictitems)
        if state is not None:
            if type(state) is dict and id(state) not in self.memo:  # attributes: where they sit reads .name
                self.out += b"}"
                self._memoize(state)
                self._setitems(state, attributes=True)
            else:
                self.save(state)
            self.out += b"b"  # BUILD

    def _reduction(self, obj):
        """What obj.__reduce_ex__(2) gives (a copyreg reducer first, as pickle): a name, or (func, args,
        state, list items, dict items), computed once per object for both runs."""
        known = self.reductions.get(id(obj))
        if known is not None:
            return known[1]
        cls = type(obj)
        try:
            reducer = copyreg.dispatch_table.get(cls)
            rv = reducer(obj) if reducer is not None else obj.__reduce_ex__(2)
        except _axle.AxleError:
            raise
        except Exception as e:  # noqa: BLE001 (pickle's own refusal: a lock, a generator, a module ...)
            raise _Unsavable("cannot save a %s: %s: %s" % (cls.__qualname__, type(e).__name__, e)) from e
        if not isinstance(rv, str):
            if not isinstance(rv, tuple) or not 2 <= len(rv) <= 6:
                raise _Unsavable("cannot save a %s: its __reduce_ex__ returned %s" % (cls.__qualname__, _short(rv)))
            func, args, state, listitems, dictitems, setter = rv + (None,) * (6 - len(rv))
            if setter is not None:
                raise _Unsavable("cannot save a %s: a state setter (__reduce_ex__'s sixth item) needs pickle "
                                 "protocol 5" % cls.__qualname__)
            if not isinstance(args, tuple):
                raise _Unsavable("cannot save a %s: its __reduce_ex__ gave arguments %s, not a tuple"
                                 % (cls.__qualname__, _short(args)))
            listitems = list(listitems) if listitems is not None else None
            dictitems = list(dictitems) if dictitems is not None else None
            rv = (func, args, state, listitems, dictitems)
        self.reductions[id(obj)] = (obj, rv)
        return rv

    def _int(self, v):
        if 0 <= v < 256:
            self.out += b"K" + bytes([v])
        elif 0 <= v < 65536:
            self.out += b"M" + struct.pack("<H", v)
        elif -2 ** 31 <= v < 2 ** 31:
            self.out += b"J" + struct.pack("<i", v)
        else:
            raw = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)  # room for the sign bit
            if len(raw) < 256:
                self.out += b"\x8a" + bytes([len(raw)]) + raw
            else:
                self.out += b"\x8b" + struct.pack("<i", len(raw)) + raw

    def _tuple(self, items, obj=None):
        if not items:
            self.out += b")"
            return
        if len(items) > 3:
            self.out += b"("
        for i, v in enumerate(items):
            self._item(v, "[%d]" % i)
        if obj is not None and id(obj) in self.memo:
            # An item held the tuple (through an object's state): that copy, written meanwhile, is the
            # tuple; the items go (POP_MARK, or POP each) as Python's pickle does it.
            self.out += b"1" if len(items) > 3 else b"0" * len(items)
            self._get(self.memo[id(obj)])
            return
        self.out += {1: b"\x85", 2: b"\x86", 3: b"\x87"}.get(len(items), b"t")
        if obj is not None:
            self._memoize(obj)

    def _item(self, value, where):
        try:
            self.save(value)
        except _Unsavable as e:
            e.path.append(where)
            raise

    def _appends(self, items):
        items = list(items)
        for i in range(0, len(items), 1000):
            batch = items[i:i + 1000]
            if len(batch) == 1:
                self._item(batch[0], "[%d]" % i)
                self.out += b"a"
            else:
                self.out += b"("
                for j, v in enumerate(batch):
                    self._item(v, "[%d]" % (i + j))
                self.out += b"e"

    def _setitems(self, d, attributes=False):
        """A dict's items (or a list of pairs); attributes: the dict is an object's __dict__."""
        items = list(d.items()) if isinstance(d, dict) else list(d)
        for i in range(0, len(items), 1000):
            batch = items[i:i + 1000]
            self.out += b"(" if len(batch) > 1 else b""
            for k, v in batch:
                self._item(k, "<key %s>" % _short(k, 40))
                self._item(v, "." + k if attributes and isinstance(k, str) else "[%s]" % _short(k, 40))
            self.out += b"s" if len(batch) == 1 else b"u"

    def _tensor(self, t):
        if self.plan is None:  # the first run: only find the tensors
            self.found.append(t)
            self._memoize(t)
            return
        if isinstance(t, _parameter_class()):
            self._global("torch._utils", "_rebuild_parameter")
            self.out += b"("
            self._plain_tensor(t, False)
            self.save(bool(t.requires_grad))
            self._empty_ordered_dict()
            self.out += b"tR"
        else:
            self._plain_tensor(t, t.requires_grad)
        self._memoize(t)

    def _empty_ordered_dict(self):
        self._global("collections", "OrderedDict")
        self.out += b")R"

    def _plain_tensor(self, t, requires_grad):
        storage, offset, size, stride = self.plan[id(t)]
        self._global("torch._utils", "_rebuild_tensor_v2")
        self.out += b"("
        # The persistent id: ('storage', torch.<Type>Storage, key, location, numel).
        self.out += b"("
        self.save("storage")
        self._global("torch", _STORAGE_OF_DTYPE[storage.dtype.name])
        self.save(storage.key)
        self.save(storage.location)
        self.save(storage.numel)
        self.out += b"tQ"
        self.save(offset)
        self._tuple(tuple(size))
        self._tuple(tuple(stride))
        self.save(bool(requires_grad))
        self._empty_ordered_dict()
        self.out += b"tR"


def _plan_storages(tensors):
    """Groups tensors by the storage they view: {id(tensor): (storage, offset, size, stride)}, storages in order."""
    plan, storages, groups = {}, [], {}
    for t in tensors:
        base = t.detach()
        if base.dtype.name not in _STORAGE_OF_DTYPE:
            raise _axle.DTypeError("save(): dtype %s has no torch storage" % base.dtype.name)
        size, stride, offset = tuple(base.shape), tuple(base.stride()), base.storage_offset()
        numel = 1
        for n in size:
            numel *= n
        location = _location(base)
        if numel == 0 or any(s < 0 for s in stride):
            # No element (or a layout torch cannot express): a storage of its own.
            if numel:
                base, stride, offset = base.contiguous(), tuple(base.contiguous().stride()), 0
            else:
                offset = 0
            st = _StorageOut(str(len(storages)), base, base.dtype, numel, location)
            storages.append(st)
            plan[id(t)] = (st, offset, size, stride)
            continue
        extent = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
        start = base.data_ptr() - offset * base.element_size()
        gkey = (start, base.dtype.name, location)
        group = groups.get(gkey)
        if group is not None and not group.tensor._same_storage(base):
            group = None
            gkey = gkey + (len(storages),)
        if group is None:
            group = _StorageOut(str(len(storages)), base, base.dtype, extent, location)
            groups[gkey] = group
            storages.append(group)
        group.numel = max(group.numel, extent)
        plan[id(t)] = (group, offset, size, stride)
    return plan, storages


def _storage_bytes(st):
    """The bytes of a storage's first st.numel elements, in this machine's byte order."""
    if st.numel == 0:
        return b""
    flat = st.tensor.as_strided((st.numel,), (1,), 0)
    if flat.device.type != "cpu":
        flat = flat.cpu()
    if st.dtype is _axle.bfloat16:
        return _bfloat16_bits(flat)
    return memoryview(flat.contiguous()).cast("B")  # native order: the byteorder record says which


class _FromHere:
    """A seekable file seen from its current position: the archive's offsets are counted from its own
    start (as torch writes them) when it is written after other data."""

    def __init__(self, f):
        self.f, self.base = f, f.tell()

    def write(self, b):
        return self.f.write(b)

    def tell(self):
        return self.f.tell() - self.base

    def seek(self, pos, whence=0):
        return self.f.seek(pos + self.base if whence == 0 else pos, whence) - self.base

    def seekable(self):
        return True

    def flush(self):
        self.f.flush()


class _RecordWriter:
    """zip records as torch writes them: stored, each one's data at a multiple of 64 bytes."""

    def __init__(self, fileobj, prefix):
        try:
            if fileobj.seekable():
                fileobj = _FromHere(fileobj)
        except (AttributeError, OSError, ValueError):
            pass
        self.zf = zipfile.ZipFile(fileobj, "w", zipfile.ZIP_STORED, allowZip64=True)
        self.prefix = prefix

    def write(self, name, data):
        name = self.prefix + name
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED
        info.external_attr = 0o600 << 16
        size = len(data) if not isinstance(data, memoryview) else data.nbytes
        info.file_size = size
        zip64 = size * 1.05 > zipfile.ZIP64_LIMIT
        pos = self.zf.fp.tell()
        header = 30 + len(name.encode("utf-8")) + 4 + (20 if zip64 else 0)
        pad = -(pos + header) % 64
        info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad  # torch's padding field, "FB"
        with self.zf.open(info, "w", force_zip64=zip64) as dst:
            dst.write(data)

    def close(self):
        self.zf.close()


def save(obj, f, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Writes obj to a path or a binary file object in torch's checkpoint format (``torch.save``'s zip
    format, pickle protocol 2), which torch.load reads back.

    obj may hold tensors, Parameters, dicts, OrderedDicts (with their attributes,
    as a state_dict's ``_metadata``), lists, tuples, sets, numbers, strings, bytes,
    None, axle dtypes and devices, which torch.load reads as torch's; and any
    object Python's pickle can write by reference to its class (a whole
    ``nn.Module``: its class and the functions it holds by module and qualified
    name, its state after them), which :func:`load` rebuilds when those classes
    and functions are allowed (:func:`safe_globals`). Views of one storage are
    written once and share it again when loaded."""
    if not _use_new_zipfile_serialization:
        raise _axle.NotImplementedError("save(): only torch's zip format is written (the legacy format is not)")
    if pickle_protocol != 2:
        raise _axle.ValueError("save(): only pickle protocol 2 (torch's default) is supported, got %r"
                               % (pickle_protocol,))
    finder = _Pickler(None)
    try:
        finder.save(obj)
        plan, storages = _plan_storages(finder.found)
        pickler = _Pickler(plan, finder.reductions)
        pickler.keep.append(finder)  # what the first run saw stays alive (ids stay unique) until written
        pickler.save(obj)
    except _Unsavable as e:
        where = " (at obj%s)" % "".join(reversed(e.path)) if e.path else ""
        raise _axle.TypeError("save(): %s%s" % (e.msg, where)) from None
    except RecursionError as e:
        raise _axle.ValueError("save(): the object nests too deeply to be saved") from e
    pickler.out += b"."
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(os.fspath(f))
        try:
            fileobj = open(path, "wb")
        except OSError as e:
            raise _error("save(): cannot open %r for writing: %s", path, e.strerror or e) from e
        close = True
    elif hasattr(f, "write"):
        fileobj, close = f, False
    else:
        raise _axle.TypeError("save(): expected a path or a binary file object, got %s" % type(f).__name__)
    try:
        writer = _RecordWriter(fileobj, "archive/")
        writer.write("data.pkl", bytes(pickler.out))
        writer.write("byteorder", sys.byteorder.encode("ascii"))
        for st in storages:
            writer.write("data/" + st.key, _storage_bytes(st))
        writer.write("version", b"3\n")
        writer.close()
    finally:
        if close:
            fileobj.close()
