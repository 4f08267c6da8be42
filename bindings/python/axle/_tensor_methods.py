"""Tensor methods and operators torch has that are spellings of declared ops
(so they are written here, in Python, and not declared again): the Python
operators the C type leaves out (``**``, ``//``, ``%``, ``&``, ``|``, ``^``,
``<<``, ``>>``, ``~``, ``abs()``, unary ``+`` and their reflected and in-place forms), dtype
casts (``.float()`` ... ``.type_as()``), ``.T`` / ``.mT`` / ``.H`` / ``.mH``,
the ``new_*`` factories, aliases (``swapaxes``, ``view_as``, ``nelement``...)
and the comparisons ``isclose`` / ``allclose`` / ``equal``. Every entry is
compared with torch in tests/python/test_tensor_api.py.
"""
import builtins as _builtins

from . import _C


def install(axle):
    """Attaches the methods to axle.Tensor and the functions to the axle module."""
    Tensor = _C.Tensor

    def scalar_operand(value, like):
        """A Python number as a 0-d tensor of torch's result dtype for (number, like):
        a float with an integral or bool tensor gives the default dtype, a bool or
        int keeps like's dtype (an int with a bool tensor gives int64)."""
        if isinstance(value, Tensor):
            return value
        if isinstance(value, _builtins.float) and not like.is_floating_point():
            dt = axle.get_default_dtype()
        elif isinstance(value, _builtins.int) and not isinstance(value, _builtins.bool) and like.dtype == axle.bool:
            dt = axle.int64
        else:
            dt = like.dtype
        return axle.tensor(value, dtype=dt, device=like.device)

    def in_place(name, fn):
        """`t.name(...)`: the functional op's result written back into t (a recorded
        copy_: version counters, autograd's in-place checks and history apply), refused
        where torch refuses the cast (axle.can_cast)."""
        def op(self, *args, **kwargs):
            result = fn(self, *args, **kwargs)
            if result.dtype != self.dtype and not axle.can_cast(result.dtype, self.dtype):
                raise axle.DTypeError("%s: result type %s can't be cast to the desired output type %s" %
                                      (name, result.dtype.name, self.dtype.name))
            return self.copy_(result)

        op.__name__ = name
        return op

    # ---------------------------------------------------------------- operators
    def floordiv(a, b):
        return axle.div(a, b, rounding_mode="floor")

    Tensor.__pow__ = lambda self, other: axle.pow(self, other)
    Tensor.__rpow__ = lambda self, other: axle.pow(other, self)
    Tensor.__ipow__ = lambda self, other: self.pow_(other)
    axle.floor_divide = Tensor.floor_divide = floordiv
    Tensor.__floordiv__ = lambda self, other: floordiv(self, other)
    Tensor.__rfloordiv__ = lambda self, other: floordiv(scalar_operand(other, self), self)
    Tensor.__ifloordiv__ = in_place("__ifloordiv__", floordiv)
    Tensor.__mod__ = lambda self, other: axle.remainder(self, other)
    Tensor.__rmod__ = lambda self, other: axle.remainder(scalar_operand(other, self), self)
    Tensor.__imod__ = in_place("__imod__", axle.remainder)
    for name, fn in (("and", axle.bitwise_and), ("or", axle.bitwise_or), ("xor", axle.bitwise_xor)):
        setattr(Tensor, "__%s__" % name, (lambda f: lambda self, other: f(self, other))(fn))
        setattr(Tensor, "__r%s__" % name, (lambda f: lambda self, other: f(scalar_operand(other, self), self))(fn))
        setattr(Tensor, "__i%s__" % name, in_place("__i%s__" % name, fn))
    for name, fn in (("lshift", axle.bitwise_left_shift), ("rshift", axle.bitwise_right_shift)):
        setattr(Tensor, "__%s__" % name, (lambda f: lambda self, other: f(self, other))(fn))
        setattr(Tensor, "__r%s__" % name, (lambda f: lambda self, other: f(scalar_operand(other, self), self))(fn))
        setattr(Tensor, "__i%s__" % name, in_place("__i%s__" % name, fn))
    Tensor.__invert__ = lambda self: axle.bitwise_not(self)
    Tensor.__abs__ = lambda self: axle.abs(self)
    Tensor.__pos__ = lambda self: positive(self)

    def positive(self):
        """torch.positive: the tensor itself; a bool tensor is refused, as torch."""
        if self.dtype == axle.bool:
            raise axle.TypeError("The `+` operator, on a bool tensor is not supported.")
        return self

    # ---------------------------------------------------------------- casts
    for name, dt in (("float", "float32"), ("double", "float64"), ("half", "float16"), ("bfloat16", "bfloat16"),
                     ("long", "int64"), ("int", "int32"), ("short", "int16"), ("char", "int8"), ("byte", "uint8"),
                     ("bool", "bool")):
        if hasattr(axle, dt):
            def cast(self, memory_format=None, _dt=getattr(axle, dt)):
                return self.to(_dt) if memory_format is None else self.to(_dt, memory_format=memory_format)

            cast.__name__ = name
            cast.__doc__ = "self.to(axle.%s)" % dt
            setattr(Tensor, name, cast)
    Tensor.type_as = lambda self, other: self.to(other.dtype)

    # torch's legacy type names ("torch.FloatTensor"), spelled with axle's module name.
    type_names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                  "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
                  "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}
    by_type_name = {v: getattr(axle, k) for k, v in type_names.items()}

    def typename(obj):
        """torch.typename: 'axle.FloatTensor' for a float32 tensor, else the type's qualified name."""
        if isinstance(obj, Tensor):
            prefix = "axle." if obj.device.type == "cpu" else "axle.%s." % obj.device.type
            return prefix + type_names[obj.dtype.name]
        module = getattr(type(obj), "__module__", "")
        return (module + "." if module and module != "builtins" else "") + type(obj).__qualname__

    def tensor_type(self, dtype=None, non_blocking=False, **kwargs):
        """t.type(): the type name; t.type(dtype or 'torch.LongTensor'): the cast, as torch."""
        if dtype is None:
            return typename(self)
        if isinstance(dtype, str):
            name = dtype.rsplit(".", 1)[-1]
            if name not in by_type_name:
                raise axle.ValueError("type(): invalid type '%s'" % dtype)
            dtype = by_type_name[name]
        return self if dtype == self.dtype else self.to(dtype)

    Tensor.type = tensor_type
    Tensor.is_complex = lambda self: False  # axle has no complex dtypes
    Tensor.is_sparse = property(lambda self: False)
    axle.typename = typename
    axle.is_tensor = lambda obj: isinstance(obj, Tensor)
    axle.is_floating_point = lambda t: t.is_floating_point()
    axle.numel = lambda t: t.numel()

    # ---------------------------------------------------------------- transposes
    def full_transpose(self):
        if self.dim() != 2:  # torch 1.13: the dims reversed (deprecated for other ranks in 2.x)
            return self.permute(*reversed(range(self.dim())))
        return self.t()

    def matrix_transpose(self):
        if self.dim() < 2:
            raise axle.ShapeError("tensor.mT is only supported on matrices or batches of matrices. Got %d-D tensor."
                                  % self.dim())
        return self.transpose(-2, -1)

    Tensor.T = property(full_transpose)
    Tensor.H = property(full_transpose)  # real tensors: the conjugate is the tensor
    Tensor.mT = property(matrix_transpose)
    Tensor.mH = property(matrix_transpose)
    Tensor.adjoint = matrix_transpose

    # ---------------------------------------------------------------- new_* factories
    def factory(name, make):
        def new(self, *size, dtype=None, device=None, requires_grad=False, **kwargs):
            t = make(self, size, dtype or self.dtype, device or self.device, **kwargs)
            return t.requires_grad_() if requires_grad else t

        new.__name__ = name
        new.__doc__ = "axle.%s with self's dtype and device unless given" % name[4:]
        return new

    def size_of(size):
        return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)

    Tensor.new_zeros = factory("new_zeros", lambda s, size, dt, dev: axle.zeros(size_of(size), dtype=dt, device=dev))
    Tensor.new_ones = factory("new_ones", lambda s, size, dt, dev: axle.ones(size_of(size), dtype=dt, device=dev))
    Tensor.new_empty = factory("new_empty", lambda s, size, dt, dev: axle.empty(size_of(size), dtype=dt, device=dev))

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        t = axle.full(tuple(size), fill_value, dtype=dtype or self.dtype, device=device or self.device)
        return t.requires_grad_() if requires_grad else t

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        return axle.tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    Tensor.new_full = new_full
    Tensor.new_tensor = new_tensor

    # ---------------------------------------------------------------- aliases
    Tensor.view_as = lambda self, other: self.view(tuple(other.shape))
    Tensor.reshape_as = lambda self, other: self.reshape(tuple(other.shape))
    Tensor.broadcast_to = lambda self, size: self.expand(tuple(size))
    Tensor.swapaxes = Tensor.swapdims = lambda self, a, b: self.transpose(a, b)
    Tensor.nelement = lambda self: self.numel()
    Tensor.ndimension = lambda self: self.dim()
    Tensor.zero_ = lambda self: self.fill_(0)
    Tensor.polygamma = lambda self, n: axle.polygamma(n, self)  # torch's method takes n after self

    # ---------------------------------------------------------------- in-place random fills
    def uniform_(self, a=0.0, b=1.0, generator=None):
        """Fills self with draws from U(a, b) (the rand op's stream, scaled)."""
        with axle.no_grad():
            draw = axle.rand(tuple(self.shape), generator=generator, dtype=self.dtype, device=self.device)
            return self.copy_(draw * (b - a) + a)

    def normal_(self, mean=0.0, std=1.0, generator=None):
        """Fills self with draws from N(mean, std^2) (the randn op's stream, scaled)."""
        if std < 0:
            raise axle.ValueError("normal_ expects std >= 0.0, but found std %r" % std)
        with axle.no_grad():
            draw = axle.randn(tuple(self.shape), generator=generator, dtype=self.dtype, device=self.device)
            return self.copy_(draw * std + mean)

    Tensor.uniform_ = uniform_
    Tensor.normal_ = normal_

    # ---------------------------------------------------------------- torch's other names for declared ops
    aliases = {"absolute": "abs", "arccos": "acos", "arcsin": "asin", "arctan": "atan", "arctan2": "atan2",
               "clip": "clamp", "divide": "div", "true_divide": "div", "multiply": "mul", "subtract": "sub",
               "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne",
               "negative": "neg", "fix": "trunc", "moveaxis": "movedim", "concat": "cat", "concatenate": "cat",
               "sgn": "sign"}  # sgn is sign for real tensors
    for alias, target in aliases.items():
        fn = getattr(axle, target, None)
        if fn is None:
            continue
        if not hasattr(axle, alias):
            setattr(axle, alias, fn)
        if hasattr(Tensor, target) and not hasattr(Tensor, alias):
            setattr(Tensor, alias, getattr(Tensor, target))
    axle.swapaxes = axle.swapdims = lambda input, a, b: input.transpose(a, b)
    axle.detach = lambda input: input.detach()
    axle.clamp_min = Tensor.clamp_min = lambda input, min: axle.clamp(input, min=min)
    axle.clamp_max = Tensor.clamp_max = lambda input, max: axle.clamp(input, max=max)

    def deg2rad(input):
        return input * (axle.tensor(3.141592653589793 / 180, dtype=input.dtype) if input.is_floating_point()
                        else 3.141592653589793 / 180)

    def rad2deg(input):
        return input * (axle.tensor(180 / 3.141592653589793, dtype=input.dtype) if input.is_floating_point()
                        else 180 / 3.141592653589793)

    def logit(input, eps=None):
        """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given (torch.logit)."""
        if input.dtype == axle.bool:
            input = input.to(axle.get_default_dtype())
        p = input if eps is None else axle.clamp(input, eps, 1 - eps)
        return axle.log(p / (1 - p))

    def lerp(input, end, weight):
        """input + weight * (end - input), computed from end when weight >= 0.5 as torch does."""
        diff = end - input
        if isinstance(weight, Tensor):
            return axle.where(axle.abs(weight) < 0.5, input + weight * diff, end - diff * (1 - weight))
        return input + weight * diff if abs(weight) < 0.5 else end - diff * (1 - weight)

    for fn in (deg2rad, rad2deg, logit, lerp):
        setattr(axle, fn.__name__, fn)
        setattr(Tensor, fn.__name__, fn)

    # ---------------------------------------------------------------- in-place forms of the functional ops
    for name in ("abs", "absolute", "acos", "arccos", "asin", "arcsin", "atan", "arctan", "ceil", "cos", "cosh",
                 "erf", "erfc", "exp", "exp2", "expm1", "floor", "frac", "log", "log10", "log1p", "log2", "neg",
                 "negative", "reciprocal", "rsqrt", "sigmoid", "sign", "sgn", "sin", "sinh", "sqrt", "square", "tan",
                 "tanh", "trunc", "fix", "deg2rad", "rad2deg", "logit", "fmod", "remainder", "atan2", "arctan2",
                 "clamp_min", "clamp_max", "logical_and", "logical_or", "logical_xor", "lerp", "ge", "gt", "le",
                 "lt", "ne", "eq", "greater", "greater_equal", "less", "less_equal", "not_equal", "bitwise_and",
                 "bitwise_or", "bitwise_xor", "cumsum", "cumprod", "tril", "triu", "divide", "true_divide",
                 "multiply", "subtract", "clip", "floor_divide"):
        fn = getattr(Tensor, name, None) or getattr(axle, name, None)
        if fn is not None and not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", in_place(name + "_", fn))

    # ---------------------------------------------------------------- in-place view ops
    # t.squeeze_() / t.t_() ...: t takes the view's geometry (the same memory). A tensor in an
    # autograd graph is refused: its history would not follow the new geometry.
    def make_view_in_place(name, view):
        def op_(self, *args, **kwargs):
            if axle.is_grad_enabled() and (self.requires_grad or self.grad_fn is not None):
                raise axle.NotImplementedError(
                    "%s: in-place view ops on a tensor that requires grad are not supported; use %s()" %
                    (name, name[:-1]))
            self.data = view(self, *args, **kwargs)
            return self

        op_.__name__ = name
        return op_

    for name, view in (("squeeze_", Tensor.squeeze), ("unsqueeze_", Tensor.unsqueeze), ("t_", Tensor.t),
                       ("transpose_", Tensor.transpose), ("swapaxes_", Tensor.transpose),
                       ("swapdims_", Tensor.transpose)):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, make_view_in_place(name, view))

    # ---------------------------------------------------------------- comparisons
    def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        """|input - other| <= atol + rtol * |other| elementwise (torch.isclose): equal
        values (infinities included) are close, NaN only to NaN with equal_nan."""
        if input.dtype != other.dtype:
            raise axle.DTypeError("isclose(): expected both inputs of one dtype, got %s and %s" %
                                  (input.dtype.name, other.dtype.name))
        if rtol < 0 or atol < 0:
            raise axle.ValueError("isclose(): rtol and atol must be non-negative, got rtol=%r, atol=%r" %
                                  (rtol, atol))
        close = input == other
        if equal_nan:
            close = close | (axle.isnan(input) & axle.isnan(other))
        if input.dtype == axle.bool or not (input.is_floating_point() or rtol or atol):
            return close
        a, b = (input, other) if input.is_floating_point() else (input.double(), other.double())
        diff = axle.abs(a - b)
        bound = atol + rtol * axle.abs(b)
        # Finite differences only: inf - inf is NaN, and equal infinities were taken above.
        return close | (axle.isfinite(diff) & (diff <= bound))

    def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        """Whether every element pair is close (torch.allclose): a Python bool."""
        return _builtins.bool(isclose(input, other, rtol, atol, equal_nan).all())

    def equal(input, other):
        """Whether both have one shape and equal elements (torch.equal): a Python bool."""
        if tuple(input.shape) != tuple(other.shape):
            return False
        return _builtins.bool((input == other).all())

    for fn in (isclose, allclose, equal, positive):
        setattr(axle, fn.__name__, fn)
        setattr(Tensor, fn.__name__, fn)


def export_in_place(axle):
    """torch.<op>_(t, ...): the module-level spelling of every in-place method
    (torch.relu_, torch.abs_...); run after every method is installed."""
    Tensor = _C.Tensor
    for name in dir(Tensor):
        if name.endswith("_") and not name.startswith("_") and not hasattr(axle, name):
            setattr(axle, name, getattr(Tensor, name))


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}  # torch.* losses take the reduction as an int


def export_functional(axle):
    """torch.<name> for the nn functions torch also has at its top level, with the
    torch.* signatures (losses take reduction as the int 0 / 1 / 2)."""
    F = axle.nn.functional
    same = ["adaptive_avg_pool1d", "avg_pool1d", "max_pool1d", "bilinear", "channel_shuffle", "conv3d",
            "conv_transpose1d", "cosine_similarity", "pairwise_distance", "pixel_shuffle", "pixel_unshuffle",
            "hardshrink", "rrelu", "rrelu_"]
    for name in same:
        if hasattr(F, name) and not hasattr(axle, name):
            setattr(axle, name, getattr(F, name))
    if hasattr(F, "adaptive_max_pool1d") and not hasattr(axle, "adaptive_max_pool1d"):
        # torch.adaptive_max_pool1d always returns (values, indices)
        axle.adaptive_max_pool1d = lambda input, output_size: F.adaptive_max_pool1d(input, output_size, True)

    def with_int_reduction(fn, reduction_at):
        def loss(*args, **kwargs):
            args = list(args)
            if len(args) > reduction_at:
                args[reduction_at] = _REDUCTIONS.get(args[reduction_at], args[reduction_at])
            if "reduction" in kwargs:
                kwargs["reduction"] = _REDUCTIONS.get(kwargs["reduction"], kwargs["reduction"])
            return fn(*args, **kwargs)

        loss.__name__ = fn.__name__
        loss.__doc__ = fn.__doc__
        return loss

    # name: index of reduction in torch.<name>'s positional arguments
    for name, at in (("kl_div", 2), ("hinge_embedding_loss", 3), ("margin_ranking_loss", 4),
                     ("cosine_embedding_loss", 4), ("triplet_margin_loss", 7)):
        if hasattr(F, name) and not hasattr(axle, name):
            fn = getattr(F, name)
            wrapped = with_int_reduction(lambda *a, _fn=fn, _name=name, **k: _torch_level_call(_fn, _name, a, k), at)
            setattr(axle, name, wrapped)


def _torch_level_call(fn, name, args, kwargs):
    """torch.<loss>(...)'s positional order mapped onto F's (F inserts size_average/reduce)."""
    names = {"kl_div": ("input", "target", "reduction", "log_target"),
             "hinge_embedding_loss": ("input", "target", "margin", "reduction"),
             "margin_ranking_loss": ("input1", "input2", "target", "margin", "reduction"),
             "cosine_embedding_loss": ("input1", "input2", "target", "margin", "reduction"),
             "triplet_margin_loss": ("anchor", "positive", "negative", "margin", "p", "eps", "swap",
                                     "reduction")}[name]
    tensors = {"kl_div": 2, "hinge_embedding_loss": 2, "margin_ranking_loss": 3, "cosine_embedding_loss": 3,
               "triplet_margin_loss": 3}[name]
    kw = dict(zip(names[tensors:], args[tensors:]))
    kw.update(kwargs)
    return fn(*args[:tensors], **kw)
