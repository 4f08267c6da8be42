"""nn.Parameter: a Tensor subclass that a Module registers as its parameter when
assigned as an attribute. Like torch's, it shares the memory of the tensor it is
made from (detached from that tensor's history) and requires grad by default."""
import axle as _axle
from axle import _C


class Parameter(_C.Tensor):
    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _axle.empty(0)
        if not isinstance(data, _C.Tensor):
            raise _axle.TypeError("Parameter(): data must be an axle.Tensor, not %s" % type(data).__name__)
        return _C._make_subclass(cls, data, requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + _axle.tensor_repr(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


# ---------------------------------------------------------------- lazy (uninitialized) parameters and buffers
# Tensor methods an uninitialized tensor still answers (torch's allowed list): asking its
# size, copying into it, and the dtype / device conversions Module.to and friends use.
_ALLOWED_METHODS = frozenset(("__hash__", "size", "copy_", "is_floating_point", "half", "float", "double", "char",
                              "short", "int", "long", "cuda", "cpu", "to", "get_device"))
# object's own protocol, which every Python object needs to exist, compare by identity and pickle.
_OBJECT_DUNDERS = frozenset(("__class__", "__delattr__", "__dir__", "__doc__", "__getattribute__", "__init__",
                             "__init_subclass__", "__new__", "__reduce__", "__reduce_ex__", "__repr__", "__setattr__",
                             "__sizeof__", "__subclasshook__", "__deepcopy__", "__getstate__", "__str__",
                             "__format__"))


def _uninitialized_error(cls, name):
    return _axle.ValueError(
        "Attempted to use an uninitialized parameter in Tensor.{}. This error happens when you are using a "
        "`LazyModule` or explicitly manipulating `torch.nn.parameter.{}` objects. When using LazyModules Call "
        "`forward` with a dummy batch to initialize the parameters before calling torch functions".format(
            name, cls.__name__))


def _refusing(name):
    def refuse(self, *args, **kwargs):
        raise _uninitialized_error(type(self), name)

    refuse.__name__ = name
    return refuse


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share: a placeholder holding no data
    (an empty tensor that remembers the dtype and device to materialize with). Its Tensor methods
    and operators raise torch's ValueError except the allowed ones (size, copy_, the dtype and
    device conversions); `shape` raises a ShapeError (a RuntimeError). materialize(shape) gives it memory and
    turns it into its cls_to_become. axle has no __torch_function__, so axle.* functions given one
    see the empty placeholder and fail (or return empty results) on their own terms."""

    __slots__ = ()
    cls_to_become = None

    def __getattribute__(self, name):
        if (name not in _ALLOWED_METHODS and not name.startswith("__") and name not in _MIXIN_OWN
                and callable(getattr(_C.Tensor, name, None))):
            return _refusing(name).__get__(self)
        return super().__getattribute__(name)

    def materialize(self, shape, device=None, dtype=None):
        """Replaces the placeholder with an uninitialized tensor of `shape` (on the placeholder's device
        and dtype unless given) and turns this object into cls_to_become."""
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        self.data = _axle.empty(shape, device=device, dtype=dtype)
        self.__class__ = getattr(self, "_materialized_class", self.cls_to_become)

    @property
    def shape(self):
        raise _axle.ShapeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return "<{}>".format(type(self).__name__)

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (type(self), (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.device, self.dtype)
        memo[id(self)] = result
        return result


_MIXIN_OWN = frozenset(vars(UninitializedTensorMixin))
for _name, _attr in list(vars(_C.Tensor).items()):  # operators (looked up on the type, not the instance)
    if (_name.startswith("__") and _name not in _OBJECT_DUNDERS and _name not in _ALLOWED_METHODS
            and _name not in _MIXIN_OWN and callable(_attr)):
        setattr(UninitializedTensorMixin, _name, _refusing(_name))
del _name, _attr


def is_lazy(param):
    """True for an uninitialized (lazy) parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (LazyLinear's weight ...): materialize(shape) makes it
    a Parameter. device / dtype are those it materializes with."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _C._make_subclass(cls, _axle.empty(0, device=device, dtype=dtype), requires_grad)


class _MaterializedBuffer(_C.Tensor):
    """What a materialized UninitializedBuffer becomes: an axle.Tensor in all but its type (CPython
    cannot turn a Python subclass instance into the C type itself). Lazy modules replace theirs
    with a plain Tensor sharing its memory."""

    __slots__ = ()


class UninitializedBuffer(UninitializedTensorMixin, _C.Tensor):
    """A buffer whose shape is not known yet (LazyBatchNorm's running statistics): materialize(shape)
    makes it a Tensor (of a private axle.Tensor subclass, see _MaterializedBuffer)."""

    __slots__ = ()
    cls_to_become = _C.Tensor
    _materialized_class = _MaterializedBuffer

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return _C._make_subclass(cls, _axle.empty(0, device=device, dtype=dtype), requires_grad)
