"""torch 1.13's functions and Tensor methods about a tensor's memory and geometry, written
in Python over axle's views and its ``t.data = other`` swap (a tensor taking another's
memory and geometry): the unsafe splits, as_strided_ / as_strided_copy /
as_strided_scatter, the legacy ``Tensor.new`` constructor and new_empty_strided, the
``axle.strided`` layout, resize_ / resize_as_ and their deprecated out-of-place forms,
set_ / is_set_to, the element-wise Python callables apply_ / map_ / map2_, as_subclass,
adjoint, to_dlpack and from_file.

``install(axle)`` attaches each name where it is free: a declared op always wins.
Everything here is compared with torch in tests/python/test_composites_more.py.

Where axle differs from torch (its storages have a fixed size and are not Python objects):
- resize_ beyond the storage's capacity gives the tensor a new, larger storage holding the
  old contents (as torch's reallocation does), but other tensors viewing the old storage keep
  it: they do not follow the resized one. Within the capacity, the storage stays shared.
- set_ takes a tensor as its source (there are no Storage objects); a geometry outside the
  source's storage is refused instead of growing that storage.
- the unsafe splits are axle's splits: axle's autograd tracks in-place changes of split
  outputs, so nothing is unsafe about them.
- as_subclass of a tensor in an autograd graph is refused (a subclass instance cannot carry
  the graph's history).
"""
import builtins as _b
import math as _math
import operator as _operator
import os as _os
import warnings as _warnings

from . import _C

_NUMPY_NAMES = {"float32": "float32", "float64": "float64", "float16": "float16", "int8": "int8",
                "uint8": "uint8", "int16": "int16", "int32": "int32", "int64": "int64", "bool": "bool_"}
_INT_BITS = {"int8": 8, "uint8": 8, "int16": 16, "int32": 32, "int64": 64}


class layout:
    """A tensor memory layout (torch.layout); axle has one: ``axle.strided``."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "axle." + self._name

    def __reduce__(self):
        return (_layout_by_name, (self._name,))


strided = layout("strided")


def _layout_by_name(name):
    if name != "strided":
        raise ValueError("axle has no layout %r" % name)
    return strided


def is_non_overlapping_and_dense(sizes, strides):
    """Whether the elements fill a block of memory exactly once (dims of size 1 ignored)."""
    dims = sorted((st, sz) for sz, st in zip(sizes, strides) if sz != 1)
    expected = 1
    for st, sz in dims:
        if st != expected:
            return False
        expected *= sz
    return True


def dense_strides_like(sizes, strides):
    """torch's empty_like(preserve_format) strides: the strides themselves for a dense tensor;
    otherwise dense strides that keep the dims' order of the input's strides (an insertion sort
    on stride, ties broken by the larger size going outer, zero strides keeping their place)."""
    n = len(sizes)
    if is_non_overlapping_and_dense(sizes, strides):
        return tuple(strides)
    order = list(reversed(range(n)))  # innermost first

    def compare(a, b):  # > 0: a should come after (be outer to) b
        sa, sb = strides[a], strides[b]
        if sa == 0 or sb == 0:
            return 0
        if sa != sb:
            return 1 if sa > sb else -1
        return 1 if sizes[a] > sizes[b] else 0

    for i in _b.range(1, n):
        j = i
        for k in _b.range(i - 1, -1, -1):
            c = compare(order[k], order[j])
            if c > 0:
                order[k], order[j] = order[j], order[k]
                j = k
            elif c < 0:
                break
    out = [0] * n
    step = 1
    for d in order:
        out[d] = step
        if sizes[d] > 1:
            step *= sizes[d]
    return tuple(out)


def contiguous_strides(sizes):
    out, step = [], 1
    for s in reversed(sizes):
        out.append(step)
        step *= _b.max(s, 1)
    return tuple(reversed(out))


def install(axle):
    """Attaches the functions to the axle module (and Tensor) where the name is free."""
    Tensor = _C.Tensor
    installed = {}
    axle.layout, axle.strided = layout, strided

    # ================================================================ helpers
    def size_args(name, size):
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        for i, s in enumerate(size):
            if not isinstance(s, _b.int) or isinstance(s, _b.bool):
                raise axle.TypeError("%s(): argument 'size' must be tuple of ints, but found element of type %s "
                                     "at pos %d" % (name, type(s).__name__, i + 1))
            if s < 0:
                raise axle.ValueError("%s(): Trying to create tensor with negative dimension %d: %s"
                                      % (name, s, list(size)))
        return tuple(size)

    def refuse_in_graph(name, t):
        """In-place geometry changes are refused on tensors autograd tracks (their history would
        not follow); a leaf gets torch's message."""
        if not axle.is_grad_enabled() or not t.requires_grad:
            return
        if t.is_leaf:
            raise axle.AutogradError("%s: a leaf Variable that requires grad is being used in an in-place "
                                     "operation." % name)
        raise axle.NotImplementedError("%s: changing the geometry of a tensor in an autograd graph is not "
                                       "supported; detach() it first" % name)

    def clone_preserving(t):
        """torch's clone(): a fresh, dense copy keeping the input's dims order (its strides
        when the input is dense)."""
        sizes, strides = tuple(t.shape), tuple(t.stride())
        out = axle.empty_strided(sizes, dense_strides_like(sizes, strides), dtype=t.dtype, device=t.device)
        return out.copy_(t)

    def storage_elements(t, at_least):
        """How many elements t's storage holds (axle does not expose it): the largest n for which
        an as_strided view of n elements from offset 0 fits, found by bisection."""
        lo, hi = at_least, at_least + 1
        fits = True
        while fits:
            try:
                t.as_strided((hi,), (1,), 0)
                lo, hi = hi, hi * 2
            except axle.ValueError:
                fits = False
        while hi - lo > 1:
            mid = (lo + hi) // 2
            try:
                t.as_strided((mid,), (1,), 0)
                lo = mid
            except axle.ValueError:
                hi = mid
        return lo

    def extent(t):
        """One past the last storage element t reaches (its offset when empty)."""
        if t.numel() == 0:
            return t.storage_offset()
        return t.storage_offset() + 1 + _b.sum((s - 1) * st for s, st in zip(t.shape, t.stride()))

    # ================================================================ 1. unsafe splits
    def unsafe_split(input, split_size, dim=0):
        if not isinstance(split_size, _b.int) or isinstance(split_size, _b.bool):
            raise axle.TypeError("unsafe_split(): argument 'split_size' (position 2) must be int, not %s "
                                 "(unsafe_split_with_sizes takes a list)" % type(split_size).__name__)
        return tuple(input.split(split_size, dim))

    def unsafe_split_with_sizes(input, split_sizes, dim=0):
        return tuple(input.split_with_sizes(split_sizes, dim))

    def unsafe_chunk(input, chunks, dim=0):
        return tuple(input.chunk(chunks, dim))

    # ================================================================ 2. as_strided family
    def as_strided_(self, size, stride, storage_offset=None):
        refuse_in_graph("as_strided_", self)
        self.data = self.as_strided(tuple(size), tuple(stride), storage_offset)
        return self

    def as_strided_copy(input, size, stride, storage_offset=None):
        return clone_preserving(input.as_strided(tuple(size), tuple(stride), storage_offset))

    def as_strided_scatter(input, src, size, stride, storage_offset=None):
        out = clone_preserving(input)
        part = out.as_strided(tuple(size), tuple(stride), storage_offset)
        if tuple(src.shape) != tuple(part.shape):
            raise axle.ShapeError("as_strided_scatter(): expected src to have a size equal to the slice of self. "
                                  "src size = %s, slice size = %s" % (list(src.shape), list(part.shape)))
        part.copy_(src)
        return out

    # ================================================================ 3. constructors
    def new(self, *args, **kwargs):
        """torch's legacy constructor: t.new() (empty), t.new(*sizes), t.new(data) (a list,
        tuple or array, in t's dtype), t.new(tensor) (that tensor's memory, same dtype);
        the only keyword is device."""
        device = kwargs.pop("device", None)
        if kwargs:
            raise axle.TypeError("new() received an invalid combination of arguments: unexpected keyword(s) %s; "
                                 "the only keyword is device" % ", ".join(sorted(kwargs)))
        dev = self.device if device is None else axle.device(device)
        if not args:
            return axle.empty(0, dtype=self.dtype, device=dev)
        if len(args) == 1:
            a = args[0]
            if isinstance(a, Tensor):
                if device is not None:
                    raise axle.ValueError("Legacy tensor new of the form tensor.new(tensor, device=device) is not "
                                          "supported. Use axle.as_tensor(...) instead.")
                if a.dtype != self.dtype:
                    raise axle.TypeError("new(): expected a tensor of dtype %s (got %s)" % (self.dtype, a.dtype))
                return a.view(tuple(a.shape))
            if isinstance(a, (_b.float, _b.bool)):
                raise axle.TypeError("new(): data must be a sequence (got %s)" % type(a).__name__)
            if isinstance(a, (str, bytes)):
                raise axle.TypeError("new(): invalid data type '%s'" % type(a).__name__)
            if isinstance(a, axle.Size):  # t.new(t.size()): sizes, as torch.Size is
                return axle.empty(tuple(a), dtype=self.dtype, device=dev)
            if not isinstance(a, _b.int):
                return axle.tensor(a, dtype=self.dtype, device=dev)
        return axle.empty(size_args("new", args), dtype=self.dtype, device=dev)

    def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=False,
                          requires_grad=False):
        return axle.empty_strided(tuple(size), tuple(stride), dtype=dtype or self.dtype,
                                  device=device or self.device, requires_grad=requires_grad)

    # ================================================================ 4. resize and set_
    def resize_(self, *size, memory_format=None):
        size = size_args("resize_", size)
        if self.requires_grad:
            raise axle.AutogradError("resize_(): cannot resize variables that require grad")
        if memory_format is None or memory_format is axle.contiguous_format or memory_format is axle.preserve_format:
            strides = contiguous_strides(size)
        elif memory_format is axle.channels_last:
            if len(size) != 4:
                raise axle.ValueError("resize_(): required rank 4 tensor to use channels_last format")
            n, c, h, w = size
            strides = (h * w * c, 1, w * c, c)
        else:
            raise axle.ValueError("resize_(): unsupported memory format %s" % memory_format)
        if size == tuple(self.shape) and (memory_format is None or strides == tuple(self.stride())):
            return self
        offset = self.storage_offset()
        numel = _math.prod(size)
        need = offset + numel
        try:
            self.data = self.as_strided(size, strides, offset)  # fits the storage: shared, as torch
            return self
        except axle.ValueError:
            pass
        old = storage_elements(self, extent(self))
        grown = axle.empty(need, dtype=self.dtype, device=self.device)
        if old:
            grown[:old].copy_(self.as_strided((old,), (1,), 0))
        self.data = grown.as_strided(size, strides, offset)
        return self

    def resize_as_(self, the_template, memory_format=None):
        return resize_(self, tuple(the_template.shape), memory_format=memory_format)

    def resize(self, *size):
        """The deprecated out-of-place resize: a view of the same number of elements."""
        _warnings.warn("non-inplace resize is deprecated")
        size = size_args("resize", size)
        if _math.prod(size) != self.numel():
            raise axle.ShapeError("resize(): requested resize to %s (%d elements in total), but the given tensor "
                                  "has a size of %s (%d elements). autograd's resize can only change the shape of "
                                  "a given tensor, while preserving the number of elements."
                                  % ("x".join(map(str, size)), _math.prod(size),
                                     "x".join(map(str, self.shape)), self.numel()))
        return self.contiguous().view(size)

    def resize_as(self, tensor):
        _warnings.warn("non-inplace resize_as is deprecated")
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")
            return resize(self, tuple(tensor.shape))

    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        """self takes source's memory: its geometry (set_(source)), or the given offset, size and
        stride (contiguous strides by default) over source's storage; set_() empties self."""
        refuse_in_graph("set_", self)
        if source is None:
            self.data = axle.empty(0, dtype=self.dtype, device=self.device)
            return self
        if not isinstance(source, Tensor):
            raise axle.TypeError("set_(): source must be a Tensor (axle has no Storage objects), got %s"
                                 % type(source).__name__)
        if source.dtype != self.dtype:
            raise axle.DTypeError("set_(): expected source of dtype %s, got %s" % (self.dtype, source.dtype))
        if size is None and stride is None and storage_offset == 0:
            self.data = source.detach()
            return self
        size = tuple(source.shape) if size is None else size_args("set_", (size,))
        stride = contiguous_strides(size) if stride is None else tuple(stride)
        if len(stride) != len(size):
            raise axle.ValueError("set_(): mismatch in length of strides (%d) and shape (%d)" % (len(stride),
                                                                                                len(size)))
        self.data = source.detach().as_strided(size, stride, storage_offset)
        return self

    def is_set_to(self, tensor):
        """Whether both use one storage with the same offset, sizes and strides."""
        if self is tensor:
            return True
        return (self._same_storage(tensor) and self.data_ptr() != 0 and
                self.storage_offset() == tensor.storage_offset() and tuple(self.shape) == tuple(tensor.shape)
                and tuple(self.stride()) == tuple(tensor.stride()))

    # ================================================================ 5. Python callables per element
    def element_converter(t, name):
        """The callable's result as a value of t's dtype, refused as torch refuses it: a signed
        integer out of range, an unsigned one beyond +-255 (negatives wrap), a non-number."""
        dt = t.dtype.name

        def number(v, integral):
            try:
                if integral:
                    return _math.trunc(v) if isinstance(v, _b.float) else _operator.index(v)
                return _math.ldexp(v, 0)  # a float (ints, bools and floats; TypeError for the rest)
            except TypeError as e:
                raise axle.TypeError("%s(): the callable returned %s: %s" % (name, type(v).__name__, e)) from None

        if dt == "bool":
            return lambda v: _b.bool(v if isinstance(v, _b.float) else number(v, True))
        if dt not in _INT_BITS:
            return lambda v: number(v, False)
        bits = _INT_BITS[dt]

        def to_int(v):
            v = number(v, True)
            if dt == "uint8":
                if abs(v) > 255:
                    raise axle.ValueError("%s(): value %d cannot be converted to type uint8 without overflow"
                                          % (name, v))
                return v & 255
            if not -2 ** (bits - 1) <= v < 2 ** (bits - 1):
                raise axle.ValueError("%s(): value %d cannot be converted to type %s without overflow"
                                      % (name, v, dt))
            return v

        return to_int

    def elementwise(name, self, others, fn):
        if not callable(fn):
            raise axle.TypeError("%s(): '%s' object is not callable" % (name, type(fn).__name__))
        for t in (self,) + others:
            if t.requires_grad:
                raise axle.AutogradError("Can't call %s() on Variable that requires grad. Use var.detach().%s() "
                                         "instead." % (name, name))
        if self.device.type != "cpu":
            raise axle.DeviceError("%s(): only CPU tensors are supported, got one on %s" % (name, self.device))
        for i, t in enumerate(others):
            if t.dtype != self.dtype:
                raise axle.TypeError("%s: expected %s for argument %d (got %s)" % (
                    name, axle.typename(self), i + 1, axle.typename(t)))
        shape = tuple(self.shape)
        columns = [self.reshape(-1).tolist()] + [t.expand(shape).reshape(-1).tolist() for t in others]
        convert = element_converter(self, name)
        values = [convert(fn(*vs)) for vs in zip(*columns)]
        with axle.no_grad():
            self.copy_(axle.tensor(values, dtype=self.dtype).view(shape))
        return self

    def apply_(self, callable):
        """Replaces every element x by callable(x) (CPU tensors; slow: a Python call per element)."""
        return elementwise("apply_", self, (), callable)

    def map_(self, tensor, callable):
        """Replaces every element x by callable(x, y), y the matching element of tensor broadcast to self."""
        return elementwise("map_", self, (tensor,), callable)

    def map2_(self, x, y, callable):
        """Replaces every element s by callable(s, a, b), a and b from x and y broadcast to self."""
        return elementwise("map2_", self, (x, y), callable)

    # ================================================================ 6. the rest
    def as_subclass(self, cls):
        """The tensor's memory as an instance of cls (a subclass of axle.Tensor)."""
        if not isinstance(cls, type) or not issubclass(cls, Tensor):
            raise axle.TypeError("as_subclass(): Creating a Tensor subclass from a class that does not inherit "
                                 "from Tensor is not possible. Make sure your class inherits from Tensor.")
        if self.requires_grad and axle.is_grad_enabled():
            raise axle.NotImplementedError("as_subclass(): a tensor that requires grad cannot become a subclass "
                                           "instance in axle (the autograd history would be lost); detach() it")
        return _C._make_subclass(cls, self, False)

    def adjoint(input):
        return input.adjoint()

    def to_dlpack(tensor):
        """A DLPack capsule of the tensor (torch.to_dlpack): numpy, torch and axle.from_dlpack read it."""
        return tensor.__dlpack__()  # (axle.utils.dlpack.to_dlpack is the same)

    def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
        """size elements of dtype read from a file by a memory map: shared=True writes through to
        the file (creating and growing it as needed), otherwise changes stay private."""
        import numpy

        if not isinstance(filename, str):
            raise axle.TypeError("from_file(): argument 'filename' (position 1) must be str, not %s"
                                 % type(filename).__name__)
        if shared is not None and not isinstance(shared, _b.bool):
            raise axle.TypeError("from_file(): argument 'shared' must be bool, not %s" % type(shared).__name__)
        if not isinstance(size, _b.int) or isinstance(size, _b.bool) or size < 0:
            raise axle.ValueError("from_file(): size must be a non-negative int, got %r" % (size,))
        dt = dtype or axle.get_default_dtype()
        if dt.name not in _NUMPY_NAMES:
            raise axle.TypeError("from_file(): unsupported dtype %s" % dt)
        nbytes = size * dt.itemsize
        if shared:
            try:
                with open(filename, "ab"):
                    pass
                if _os.path.getsize(filename) < nbytes:
                    _os.truncate(filename, nbytes)
            except OSError as e:
                raise axle.ValueError("from_file(): unable to open file <%s> in read-write mode: %s"
                                      % (filename, e.strerror)) from None
        elif not _os.path.isfile(filename):
            raise axle.ValueError("from_file(): unable to open file <%s> in read-only mode: %s" % (
                filename, "No such file or directory" if not _os.path.exists(filename) else "not a regular file"))
        elif _os.path.getsize(filename) < nbytes:
            raise axle.ValueError("from_file(): file <%s> size is smaller than the required mapping size <%d>"
                                  % (filename, nbytes))
        if size == 0:
            t = axle.empty(0, dtype=dt)
        else:
            a = numpy.memmap(filename, dtype=numpy.dtype(_NUMPY_NAMES[dt.name]), mode="r+" if shared else "c",
                             shape=(size,))
            t = axle.from_numpy(a)
        if device is not None and axle.device(device).type != "cpu":
            t = t.to(device)
        return t.requires_grad_() if requires_grad else t

    # ================================================================ install
    functions = {
        # name: (function, also a Tensor method)
        "unsafe_split": (unsafe_split, True), "unsafe_chunk": (unsafe_chunk, True),
        "unsafe_split_with_sizes": (unsafe_split_with_sizes, True),
        "as_strided_": (as_strided_, True), "as_strided_copy": (as_strided_copy, False),
        "as_strided_scatter": (as_strided_scatter, True), "resize_as_": (resize_as_, True),
        "adjoint": (adjoint, False), "to_dlpack": (to_dlpack, False), "from_file": (from_file, False),
    }
    for name, (fn, method) in functions.items():
        if not hasattr(axle, name):
            setattr(axle, name, fn)
            installed[name] = fn
        if method and not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    methods = {
        "new": new, "new_empty_strided": new_empty_strided, "resize_": resize_, "resize": resize,
        "resize_as": resize_as, "set_": set_, "is_set_to": is_set_to, "apply_": apply_, "map_": map_,
        "map2_": map2_, "as_subclass": as_subclass,
    }
    for name, fn in methods.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    if not hasattr(Tensor, "layout"):
        Tensor.layout = property(lambda self: strided, doc="The memory layout: always axle.strided.")
    return installed
