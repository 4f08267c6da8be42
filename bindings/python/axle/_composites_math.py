"""Everyday torch math functions that axle has no kernel for, written in Python as
compositions of declared ops (torch 1.13 semantics): order statistics (kthvalue,
median, mode, quantile ...), NaN-aware reductions, pointwise functions (addcmul,
logaddexp, xlogy, hypot, copysign, frexp, nextafter ...), searchsorted / bucketize /
isin / bincount / histc, trapezoid rules, random sampling (randperm, bernoulli,
multinomial, normal), ``axle.linalg`` norms with cdist / pdist, and dtype and
tensor-creation helpers (result_type, can_cast, as_tensor, asarray ...).

``install(axle)`` attaches each function to the axle module, and as a Tensor method
where torch has one, only when that name is not there yet: a declared op always
wins. Everything here is compared with torch in tests/python/test_composites_math.py.

Left out on purpose: poisson (no exact sampler from uniform draws that
is not a per-element loop), the 2 / -2 / 'nuc' matrix norms (they need an SVD),
and cummax / cummin (shape helpers provide them).
"""
import builtins as _b
import collections as _collections
import math as _math
import os as _os
import sys as _sys
import types as _types

from . import _C
from . import return_types as _return_types
from . import _errors


def wrap_dim(dim, ndim, name=None):
    """dim in [0, ndim) from a possibly negative dim (a 0-d tensor takes -1 and 0); errors
    name the function when `name` is given. Shared by the _composites_* modules."""
    where = "%s(): " % name if name else ""
    if not isinstance(dim, _b.int) or isinstance(dim, _b.bool):
        raise _errors.TypeError("%sdim must be an int, got %s" % (where, type(dim).__name__))
    n = _b.max(ndim, 1)
    if dim < -n or dim >= n:
        raise _errors.IndexError("%sDimension out of range (expected to be in range of [%d, %d], but got %d)"
                                 % (where, -n, n - 1, dim))
    return dim % n

_TORCH_DTYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                      "int8": "Char", "uint8": "Byte", "int16": "Short", "int32": "Int", "int64": "Long",
                      "bool": "Bool"}
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _named_tuple(name, fields):
    """The named result type axle.return_types.<name>, made once (as return_types.py does)."""
    existing = getattr(_return_types, name, None)
    if existing is not None and getattr(existing, "_fields", None) == tuple(fields):
        return existing
    t = _collections.namedtuple(name, fields)
    t.__module__ = _return_types.__name__
    t.__qualname__ = name
    setattr(_return_types, name, t)
    return t


def _fmt(value):
    """A number as C++ streams print it in torch's messages: 2.0 -> '2', inf -> 'inf'."""
    if isinstance(value, float):
        if _math.isnan(value):
            return "nan"
        if _math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if value == int(value) and abs(value) < 1e16:
            return str(int(value))
        return "%g" % value
    return str(value)


def install(axle):
    """Attaches the functions to the axle module (and Tensor) where the name is free."""
    Tensor = _C.Tensor
    installed = {}

    # ================================================================ helpers
    def tname(dt):
        return _TORCH_DTYPE_NAMES.get(dt.name, dt.name)

    def is_number(x):
        return isinstance(x, (_b.bool, _b.int, _b.float)) or (
            type(x).__module__ == "numpy" and getattr(x, "ndim", None) == 0 and not isinstance(x, Tensor))

    def number_value(x):
        return x.item() if hasattr(x, "item") and not isinstance(x, (_b.bool, _b.int, _b.float)) else x

    def dim_list(dim, ndim):
        dims = [dim] if isinstance(dim, _b.int) else list(dim)
        out = []
        for d in dims:
            w = wrap_dim(d, ndim)
            if w in out:
                raise axle.ValueError("dim %d appears multiple times in the list of dims" % w)
            out.append(w)
        return out

    def number_dtype(x):
        if isinstance(x, _b.bool):
            return axle.bool
        if isinstance(x, _b.int):
            return axle.int64
        return axle.get_default_dtype()

    def promoted(*operands):
        """The dtype an operation on these tensors and numbers computes in (torch's rule):
        dimensioned tensors first, then 0-d tensors, then Python numbers; a lower
        priority operand only raises the category (bool < integral < floating)."""
        state = [None, None, None]  # dimensioned, 0-d, numbers
        for op in operands:
            if isinstance(op, Tensor):
                slot, dt = (0 if op.dim() > 0 else 1), op.dtype
            elif is_number(op):
                slot, dt = 2, number_dtype(number_value(op))
            else:
                raise axle.TypeError("result_type(): arguments must be Tensors or Numbers, got %s"
                                     % type(op).__name__)
            state[slot] = dt if state[slot] is None else axle.promote_types(state[slot], dt)

        def combine(higher, lower):
            if higher is None:
                return lower
            if lower is None or higher.is_floating_point:
                return higher
            if higher == axle.bool or lower.is_floating_point:
                return axle.promote_types(higher, lower)
            return higher

        return combine(state[0], combine(state[1], state[2]))

    def result_type(tensor1, tensor2):
        """torch.result_type: the dtype of an operation on tensor1 and tensor2 (Tensors or numbers)."""
        return promoted(tensor1, tensor2)

    def broadcast_shape(*shapes):
        ndim = _b.max(len(s) for s in shapes)
        out = []
        for i in range(ndim):
            size = 1
            for s in shapes:
                j = i - (ndim - len(s))
                if j >= 0 and s[j] != 1:
                    if size != 1 and size != s[j]:
                        raise axle.ShapeError("The size of tensor a (%d) must match the size of tensor b (%d) at "
                                              "non-singleton dimension %d" % (size, s[j], i))
                    size = s[j]
            out.append(size)
        return tuple(out)

    def bcast(*tensors):
        shape = broadcast_shape(*[tuple(t.shape) for t in tensors])
        return [t if tuple(t.shape) == shape else t.expand(shape) for t in tensors]

    def can_cast(from_, to):
        """torch.can_cast: False for floating -> integral and for non-bool -> bool."""
        for d in (from_, to):
            if not isinstance(d, axle.dtype):
                raise axle.TypeError("can_cast(): arguments must be dtypes, got %s" % type(d).__name__)
        if from_.is_floating_point and not to.is_floating_point:
            return False
        return not (to == axle.bool and from_ != axle.bool)

    def as_operand(x, dtype, like=None):
        """x (a Tensor or a number) as a tensor of dtype."""
        device = like.device if isinstance(like, Tensor) else None
        if isinstance(x, Tensor):
            return x if x.dtype == dtype else x.to(dtype)
        return axle.tensor(number_value(x), dtype=dtype, device=device)

    def floating(dt):
        return dt if dt.is_floating_point else axle.get_default_dtype()

    def first_tensor(*xs):
        for x in xs:
            if isinstance(x, Tensor):
                return x
        return None

    def require_tensor(name, arg, pos, value):
        if not isinstance(value, Tensor):
            raise axle.TypeError("%s(): argument '%s' (position %d) must be Tensor, not %s"
                                 % (name, arg, pos, type(value).__name__))

    def in_place(name, fn):
        def op_(self, *args, **kwargs):
            result = fn(self, *args, **kwargs)
            if result.dtype != self.dtype and not can_cast(result.dtype, self.dtype):
                raise axle.DTypeError("%s_: result type %s can't be cast to the desired output type %s"
                                      % (name, tname(result.dtype), tname(self.dtype)))
            if tuple(result.shape) != tuple(self.shape):
                raise axle.ShapeError("%s_: output with shape %s doesn't match the broadcast shape %s"
                                      % (name, list(self.shape), list(result.shape)))
            return self.copy_(result)

        op_.__name__ = name + "_"
        op_.__doc__ = "In-place %s: self.copy_(%s(self, ...))." % (name, name)
        return op_

    def keep_all(t, ndim):
        """A full reduction's result with every dim kept (size 1)."""
        return t.reshape([1] * ndim)

    def to_last(x, d):
        return x if d == x.dim() - 1 else x.movedim(d, -1)

    def from_last(x, d):
        return x if d == x.dim() - 1 else x.movedim(-1, d)

    # ================================================================ order statistics
    kthvalue_t = _named_tuple("kthvalue", ("values", "indices"))
    median_t = _named_tuple("median", ("values", "indices"))
    nanmedian_t = _named_tuple("nanmedian", ("values", "indices"))
    mode_t = _named_tuple("mode", ("values", "indices"))
    aminmax_t = _named_tuple("aminmax", ("min", "max"))
    frexp_t = _named_tuple("frexp", ("mantissa", "exponent"))

    def sorted_last(x, d):
        """x sorted (stably, NaN last) along d, moved to the last dim: values, indices."""
        s = axle.sort(to_last(x, d), stable=True, dim=-1)
        return s.values, s.indices

    def pick(values, indices, pos, d, keepdim, cls):
        """Elements at position pos (a tensor (..., 1) or an int) of the last dim, put back at d."""
        if isinstance(pos, _b.int):
            v, i = values.narrow(-1, pos, 1), indices.narrow(-1, pos, 1)
        else:
            v, i = values.gather(-1, pos), indices.gather(-1, pos)
        v, i = from_last(v, d), from_last(i, d)
        if not keepdim:
            v, i = v.squeeze(d), i.squeeze(d)
        return cls(v, i)

    def kthvalue(input, k, dim=-1, keepdim=False):
        """The k-th smallest element (k counts from 1) along dim, and its index (NaN sorts last)."""
        d = wrap_dim(dim, input.dim())
        n = input.shape[d] if input.dim() else 1
        if not isinstance(k, _b.int) or k < 1 or k > n:
            raise axle.IndexError("kthvalue(): selected number k out of range for dimension %d" % d)
        if input.dim() == 0:
            return kthvalue_t(input.clone(), axle.zeros((), dtype=axle.int64, device=input.device))
        values, indices = sorted_last(input, d)
        return pick(values, indices, k - 1, d, keepdim, kthvalue_t)

    def median_along(input, dim, keepdim, ignore_nan, name, cls):
        d = wrap_dim(dim, input.dim())
        if input.dim() == 0:
            return cls(input.clone(), axle.zeros((), dtype=axle.int64, device=input.device))
        n = input.shape[d]
        if n == 0:
            raise axle.IndexError("%s(): Expected reduction dim %d to have non-zero size." % (name, d))
        values, indices = sorted_last(input, d)
        if not input.is_floating_point():
            return pick(values, indices, (n - 1) // 2, d, keepdim, cls)
        nans = axle.isnan(values).sum(-1, True)
        if ignore_nan:  # the lower median of the non-NaN values; NaN (the first one) when all are NaN
            pos = axle.clamp((n - 1 - nans) // 2, min=0)
        else:  # a row holding NaN gives its first NaN
            pos = axle.where(nans > 0, n - nans, axle.full_like(nans, (n - 1) // 2))
        return pick(values, indices, pos, d, keepdim, cls)

    class _EvenlyDistributed(axle.autograd.Function):
        """A full-reduction value (median()) whose gradient is shared by every element
        equal to it (torch's backward for median() / nanmedian() without dim)."""

        @staticmethod
        def forward(ctx, x, value):
            ctx.save_for_backward(x, value)
            return value.clone()

        @staticmethod
        def backward(ctx, grad):
            x, value = ctx.saved_tensors
            mask = x == value
            if x.is_floating_point():
                mask = mask | (axle.isnan(x) & axle.isnan(value))
            mask = mask.to(grad.dtype)
            return grad * mask / mask.sum(), None

    def median_all(input, ignore_nan, name):
        flat = input.reshape(-1)
        if flat.numel() == 0:
            if not input.is_floating_point():
                raise axle.IndexError("%s(): Expected reduction dim 0 to have non-zero size." % name)
            return axle.full((), float("nan"), dtype=input.dtype, device=input.device)
        with axle.no_grad():
            value = median_along(flat, 0, False, ignore_nan, name, median_t).values
        if input.requires_grad and axle.is_grad_enabled():
            return _EvenlyDistributed.apply(input, value)
        return value

    def median(input, dim=None, keepdim=False):
        """median(input): the lower median of all elements (NaN if any is NaN);
        median(input, dim, keepdim): values and indices along dim."""
        if dim is None:
            return median_all(input, False, "median")
        return median_along(input, dim, keepdim, False, "median", median_t)

    def nanmedian(input, dim=None, keepdim=False):
        """median ignoring NaN (NaN only where every element is NaN)."""
        if dim is None:
            return median_all(input, True, "nanmedian")
        return median_along(input, dim, keepdim, True, "nanmedian", nanmedian_t)

    def mode(input, dim=-1, keepdim=False):
        """The most frequent value along dim (the smallest of equally frequent ones; NaN never
        equals NaN) and the index of its last occurrence, as torch's CPU kernel."""
        d = wrap_dim(dim, input.dim())
        if input.dim() == 0:
            return mode_t(input.clone(), axle.zeros((), dtype=axle.int64, device=input.device))
        n = input.shape[d]
        if n == 0:
            raise axle.IndexError("mode(): Expected reduction dim %d to have non-zero size." % d)
        values, indices = sorted_last(input, d)
        if values.numel() == 0:
            return pick(values, indices, 0, d, keepdim, mode_t)
        starts = axle.ones(tuple(values.shape[:-1]) + (1,), dtype=axle.bool, device=input.device)
        if n > 1:
            starts = axle.cat([starts, values.narrow(-1, 1, n - 1) != values.narrow(-1, 0, n - 1)], -1)
        run = axle.cumsum(starts.to(axle.int64), -1) - 1  # the run (of equal values) each position is in
        counts = axle.zeros(tuple(run.shape), dtype=axle.int64, device=input.device).scatter_add(
            -1, run, axle.ones_like(run))
        best = axle.argmax(counts, -1, True)  # the first largest run: the smallest value
        last = (run <= best).sum(-1, True) - 1
        return pick(values, indices, last, d, keepdim, mode_t)

    def check_q(q, input, name):
        """q as a 1-d tensor of input's dtype, and whether q was a scalar."""
        if isinstance(q, Tensor):
            if q.dim() > 1:
                raise axle.ShapeError("%s() q must be a scalar or 1D tensor" % name)
            if q.dtype != input.dtype:
                raise axle.DTypeError("%s() q tensor must be same dtype as the input tensor" % name)
            if q.numel() and not _b.bool(((q >= 0) & (q <= 1)).all()):
                raise axle.ValueError("%s() q values must be in the range [0, 1]" % name)
            return q.reshape(-1), q.dim() == 0
        q = float(q)
        if not 0 <= q <= 1:
            raise axle.ValueError("%s() q must be in the range [0, 1] but got %s" % (name, _fmt(q)))
        return axle.tensor([q], dtype=input.dtype, device=input.device), True

    def quantile_impl(input, q, dim, keepdim, interpolation, ignore_nan, name):
        if input.dtype not in (axle.float32, axle.float64):
            raise axle.DTypeError("%s() input tensor must be either float or double dtype" % name)
        qt, scalar_q = check_q(q, input, name)
        if input.numel() == 0:
            raise axle.ValueError("%s() input tensor must be non-empty" % name)
        if interpolation not in _INTERPOLATIONS:
            raise axle.ValueError("%s() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                                  "but got %s" % (name, interpolation))
        if dim is None:
            x, d = input.reshape(-1), 0
        else:
            d = wrap_dim(dim, input.dim())
            x = input if input.dim() else input.reshape(1)
        s = axle.sort(to_last(x, d), dim=-1).values  # (..., n), NaN last
        n = s.shape[-1]
        k = qt.shape[0]
        qk = qt.reshape([1] * (s.dim() - 1) + [k])
        if ignore_nan:
            valid = (~axle.isnan(s)).sum(-1, True)
            ranks = qk * (valid - 1).to(s.dtype)
            ranks = axle.clamp(ranks, min=0)  # rows of NaN only: position 0 (a NaN)
        else:
            ranks = qk * float(n - 1)
            ranks = ranks.expand(tuple(s.shape[:-1]) + (k,))
            has_nan = axle.isnan(s).any(-1, True)
            ranks = axle.where(has_nan, axle.full_like(ranks, float(n - 1)), ranks)
        if interpolation == "lower":
            below = ranks.floor()
        elif interpolation == "higher":
            below = ranks.ceil()
        elif interpolation == "nearest":
            below = ranks.round()
        else:
            below = ranks.floor()
        out = s.gather(-1, below.to(axle.int64))
        if interpolation in ("linear", "midpoint"):
            above = ranks.ceil().to(axle.int64)
            upper = s.gather(-1, above)
            weights = (ranks - below) if interpolation == "linear" else axle.full_like(ranks, 0.5)
            out = axle.lerp(out, upper, weights)
        # (..., k) -> (k, ...), then the reduced dim(s) kept or dropped
        out = out.movedim(-1, 0)
        if keepdim:
            if dim is None:
                out = out.reshape([k] + [1] * input.dim())
            elif input.dim():
                out = out.unsqueeze(d + 1)
        if scalar_q:
            out = out.squeeze(0)
        return out

    def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
        """The q-th quantiles along dim (all elements when dim is None); NaN where a row holds NaN."""
        return quantile_impl(input, q, dim, keepdim, interpolation, False, "quantile")

    def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
        """quantile ignoring NaN (NaN only where every element is NaN)."""
        return quantile_impl(input, q, dim, keepdim, interpolation, True, "nanquantile")

    # ================================================================ reductions
    def reduce_dims(input, dim):
        if dim is None:
            return list(range(input.dim()))
        if isinstance(dim, (list, tuple)) and len(dim) == 0:
            return list(range(input.dim()))
        return dim_list(dim, input.dim())

    def nansum(input, dim=None, keepdim=False, *, dtype=None):
        """sum treating NaN as zero."""
        x = input
        if x.is_floating_point():
            x = axle.where(axle.isnan(x), axle.zeros_like(x), x)
        dims = reduce_dims(input, dim)
        if not dims:
            return axle.sum(x, dtype=dtype) if not keepdim else keep_all(axle.sum(x, dtype=dtype), x.dim())
        return axle.sum(x, dims, keepdim, dtype=dtype)

    def nanmean(input, dim=None, keepdim=False, *, dtype=None):
        """mean of the non-NaN elements (NaN where there is none)."""
        if not input.is_floating_point():
            raise axle.DTypeError("nanmean(): expected input to have floating point dtype but got %s"
                                  % tname(input.dtype))
        count = nansum((~axle.isnan(input)).to(input.dtype if dtype is None else dtype), dim, keepdim)
        return nansum(input, dim, keepdim, dtype=dtype) / count

    def moments(fn, name, input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, _b.bool):  # std_mean(input, unbiased)
            dim, unbiased = None, dim
        if unbiased is not None and correction is not None:
            raise axle.ValueError("%s: cannot specify both unbiased and correction" % name)
        if correction is None:
            correction = 1 if unbiased is None or unbiased else 0
        dims = None if dim is None else reduce_dims(input, dim)
        spread = fn(input, dims, correction=correction, keepdim=keepdim)
        if dims is None or not dims:
            mean = axle.mean(input)
            if keepdim:
                mean = keep_all(mean, input.dim())
        else:
            mean = axle.mean(input, dims, keepdim)
        return spread, mean

    def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """(std, mean) over dim (all elements by default), as a plain tuple like torch."""
        return moments(axle.std, "std_mean", input, dim, unbiased, keepdim, correction=correction)

    def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        """(var, mean) over dim (all elements by default), as a plain tuple like torch."""
        return moments(axle.var, "var_mean", input, dim, unbiased, keepdim, correction=correction)

    def aminmax(input, *, dim=None, keepdim=False):
        """(min, max) over dim, or over every element."""
        if dim is None:
            if input.numel() == 0:
                raise axle.ValueError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                                      "has no identity.")
            flat = input.reshape(-1)
            lo, hi = axle.amin(flat, 0), axle.amax(flat, 0)
            if keepdim:
                lo, hi = keep_all(lo, input.dim()), keep_all(hi, input.dim())
            return aminmax_t(lo, hi)
        d = wrap_dim(dim, input.dim())
        if input.dim() == 0:
            return aminmax_t(input.clone(), input.clone())
        if input.shape[d] == 0:
            raise axle.IndexError("aminmax: Expected reduction dim %d to have non-zero size." % d)
        return aminmax_t(axle.amin(input, d, keepdim), axle.amax(input, d, keepdim))

    def logaddexp(input, other):
        """log(exp(input) + exp(other)), computed without overflow."""
        require_tensor("logaddexp", "other", 2, other)
        dt = promoted(input, other)
        if not dt.is_floating_point:
            raise axle.DTypeError('"logaddexp_cpu" not implemented for \'%s\'' % tname(dt))
        a, b = as_operand(input, dt), as_operand(other, dt)
        same_inf = axle.isinf(a) & (a == b)  # inf and inf (or -inf and -inf): no NaN from inf - inf
        diff = axle.where(same_inf, axle.zeros_like(a - b), a - b)
        return axle.maximum(a, b) + axle.log1p(axle.exp(-axle.abs(diff)))

    def logaddexp2(input, other):
        """log2(2**input + 2**other), computed without overflow."""
        require_tensor("logaddexp2", "other", 2, other)
        dt = promoted(input, other)
        if not dt.is_floating_point:
            raise axle.DTypeError('"logaddexp2_cpu" not implemented for \'%s\'' % tname(dt))
        a, b = as_operand(input, dt), as_operand(other, dt)
        same_inf = axle.isinf(a) & (a == b)
        diff = axle.where(same_inf, axle.zeros_like(a - b), a - b)
        return axle.maximum(a, b) + axle.log1p(axle.exp2(-axle.abs(diff))) * (1.0 / _math.log(2.0))

    def logcumsumexp(input, dim):
        """log(cumsum(exp(input), dim)): a log-depth scan of logaddexp (exact for every
        range of values, unlike a shift by one maximum)."""
        if not input.is_floating_point():
            raise axle.DTypeError('"logcumsumexp_out_cpu" not implemented for \'%s\'' % tname(input.dtype))
        d = wrap_dim(dim, input.dim())
        if input.dim() == 0:
            return input.clone()
        n = input.shape[d]
        out = input
        shift = 1
        while shift < n:  # (Hillis-Steele: after this step each position holds the last 2*shift terms)
            combined = logaddexp(out.narrow(d, shift, n - shift), out.narrow(d, 0, n - shift))
            out = axle.cat([out.narrow(d, 0, shift), combined], d)
            shift *= 2
        return out if out is not input else input.clone()

    def bincount(input, weights=None, minlength=0):
        """Counts of each non-negative integer in a 1-d tensor (sums of weights when given)."""
        if input.is_floating_point() or input.dtype == axle.bool:
            raise axle.DTypeError('"bincount_cpu" not implemented for \'%s\'' % tname(input.dtype))
        if input.dim() != 1:
            raise axle.ShapeError("bincount only supports 1-d non-negative integral inputs.")
        if minlength < 0:
            raise axle.ValueError("minlength should be >= 0")
        if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
            raise axle.ShapeError("weights should be 1-d and have the same length as input")
        if weights is None:
            dt = axle.int64
        else:
            dt = axle.float32 if weights.dtype == axle.float32 else axle.float64
        if input.numel() == 0:
            return axle.zeros((minlength,), dtype=dt, device=input.device)
        if _b.bool((input < 0).any()):
            raise axle.ValueError("bincount only supports 1-d non-negative integral inputs.")
        size = _b.max(int(axle.amax(input, 0).item()) + 1, minlength)
        src = axle.ones((input.shape[0],), dtype=dt, device=input.device) if weights is None else weights.to(dt)
        return axle.zeros((size,), dtype=dt, device=input.device).scatter_add(0, input.to(axle.int64), src)

    def histc(input, bins=100, min=0, max=0):
        """A histogram of bins equal-width bins over [min, max] (the data's range when
        min == max); elements outside are ignored, max falls in the last bin."""
        if not input.is_floating_point():
            raise axle.DTypeError('"histogram_cpu" not implemented for \'%s\'' % tname(input.dtype))
        if bins <= 0:
            raise axle.ValueError("torch.histogram(): bins must be > 0, but got %d for dimension 0" % bins)
        lo, hi = float(min), float(max)
        if lo > hi:
            raise axle.ValueError("torch.histc: max must be larger than min")
        flat = input.detach().reshape(-1)
        if lo == hi and flat.numel():
            lo, hi = float(axle.amin(flat, 0).item()), float(axle.amax(flat, 0).item())
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        if not (_math.isfinite(lo) and _math.isfinite(hi)):
            raise axle.ValueError("torch.histc: range of [%s, %s] is not finite" % (_fmt(lo), _fmt(hi)))
        lo_t = axle.tensor(lo, dtype=input.dtype, device=input.device)
        hi_t = axle.tensor(hi, dtype=input.dtype, device=input.device)
        inside = (flat >= lo_t) & (flat <= hi_t)
        values = flat[inside]
        pos = ((values - lo_t) * bins / (hi_t - lo_t)).to(axle.int64)
        pos = axle.clamp(pos, 0, bins - 1)
        return axle.zeros((bins,), dtype=input.dtype, device=input.device).scatter_add(
            0, pos, axle.ones_like(values))

    # ================================================================ searching
    def search(seq, values, right):
        """For each value, how many of seq's (last dim) elements come before it: those < value
        (right: <= value), by a binary search as torch's (a NaN value goes to the end)."""
        m = seq.shape[-1]
        lo = axle.zeros(tuple(values.shape), dtype=axle.int64, device=values.device)
        hi = axle.full(tuple(values.shape), m, dtype=axle.int64, device=values.device)
        if m == 0 or values.numel() == 0:
            return lo
        flat_seq = seq.dim() == 1
        for _ in range(m.bit_length()):
            active = lo < hi
            mid = (lo + hi) // 2
            at = axle.clamp(mid, max=m - 1)
            if flat_seq:
                probe = axle.index_select(seq, 0, at.reshape(-1)).reshape(tuple(values.shape))
            else:
                probe = seq.gather(-1, at)
            go_right = ~(values < probe) if right else ~(values <= probe)
            lo = axle.where(active & go_right, mid + 1, lo)
            hi = axle.where(active & ~go_right, mid, hi)
        return lo

    def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
        """Indices where input's values would be inserted into sorted_sequence's last dim to
        keep it sorted (side='right' / right=True: after equal elements)."""
        seq = sorted_sequence
        if seq.dim() == 0:
            raise axle.ShapeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got "
                                  "0 dimension")
        if side is not None:
            if side not in ("left", "right"):
                raise axle.ValueError("torch.searchsorted(): side can only be 'left' or 'right' but got %s" % side)
            if right and side == "left":
                raise axle.ValueError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                                      "left while right was True")
            right = side == "right"
        scalar = not isinstance(input, Tensor)
        if scalar:
            if seq.dim() != 1:
                raise axle.ShapeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                                      "dimension is 1, but we got boundaries tensor dim(%d) and input value's "
                                      "dim(0) numel(1)" % seq.dim())
            values = axle.tensor(number_value(input), device=seq.device)
        else:
            values = input
        if seq.dim() > 1 and (values.dim() != seq.dim() or tuple(values.shape[:-1]) != tuple(seq.shape[:-1])):
            raise axle.ShapeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                                  "dimensions of boundaries tensor and input value tensor must match, but we got "
                                  "boundaries tensor %s and input value tensor %s"
                                  % (list(seq.shape), list(values.shape)))
        if sorter is not None:
            if sorter.dtype != axle.int64:
                raise axle.DTypeError("torch.searchsorted(): sorter must be a tensor of long dtype but got dtype %s"
                                      % tname(sorter.dtype))
            if tuple(sorter.shape) != tuple(seq.shape):
                raise axle.ShapeError("torch.searchsorted(): boundary and sorter must have the same size, but got "
                                      "boundary tensor %s and got sorter tensor %s"
                                      % (list(seq.shape), list(sorter.shape)))
            seq = seq.gather(-1, sorter)
        dt = axle.promote_types(seq.dtype, values.dtype)
        with axle.no_grad():
            out = search(seq.detach().to(dt), values.detach().to(dt), right)
        return out.to(axle.int32) if out_int32 else out

    def bucketize(input, boundaries, *, out_int32=False, right=False):
        """The bucket of each value among the 1-d sorted boundaries (searchsorted with them)."""
        if boundaries.dim() != 1:
            raise axle.ShapeError("boundaries tensor must be 1 dimension, but got dim(%d)" % boundaries.dim())
        return searchsorted(boundaries, input, out_int32=out_int32, right=right)

    def isin(elements, test_elements, *, assume_unique=False, invert=False):
        """Whether each element is in test_elements (compared in their common dtype)."""
        if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
            raise axle.TypeError("isin(): expected at least one of elements and test_elements to be a Tensor")
        like = first_tensor(elements, test_elements)
        dt = promoted(elements, test_elements)
        e = as_operand(elements, dt, like).detach()
        t = as_operand(test_elements, dt, like).detach().reshape(-1)
        with axle.no_grad():
            if t.is_floating_point():
                t = t[~axle.isnan(t)]  # NaN equals nothing (and would break the binary search)
            if t.numel() == 0:
                found = axle.zeros(tuple(e.shape), dtype=axle.bool, device=e.device)
            else:
                t = axle.sort(t).values
                pos = search(t, e, False)
                at = axle.clamp(pos, max=t.shape[0] - 1)
                found = (pos < t.shape[0]) & (axle.index_select(t, 0, at.reshape(-1)).reshape(tuple(e.shape)) == e)
        return ~found if invert else found

    # ================================================================ pointwise
    def addcmul(input, tensor1, tensor2, *, value=1):
        """input + value * tensor1 * tensor2."""
        dt = promoted(input, tensor1, tensor2)
        if dt == axle.bool:
            raise axle.DTypeError('"addcmul_cpu_out" not implemented for \'Bool\'')
        scale = axle.tensor(value if dt.is_floating_point else int(value), dtype=dt, device=input.device)
        return as_operand(input, dt) + as_operand(tensor1, dt) * scale * as_operand(tensor2, dt)

    def addcdiv(input, tensor1, tensor2, *, value=1):
        """input + value * tensor1 / tensor2 (true division: integral tensor1 and tensor2 are refused)."""
        if not tensor1.is_floating_point() and not tensor2.is_floating_point():
            raise axle.DTypeError(
                "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
                "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
                "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
        dt = promoted(input, tensor1, tensor2)
        scale = axle.tensor(value, dtype=dt, device=input.device)
        return as_operand(input, dt) + as_operand(tensor1, dt) * scale / as_operand(tensor2, dt)

    def xlogy(input, other):
        """input * log(other), 0 where input is 0 (NaN where other is NaN)."""
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            raise axle.TypeError("xlogy(): expected at least one Tensor argument")
        like = first_tensor(input, other)
        dt = floating(promoted(input, other))
        x, y = as_operand(input, dt, like), as_operand(other, dt, like)
        x, y = bcast(x, y)
        log_y = axle.log(y)
        # 0 * log(y) is 0 where log(y) is finite; where it is not (y <= 0 or inf) and x is 0, the
        # factor is taken as 0 (the gradients stay torch's: log(y) for x, x / y for y)
        log_y = axle.where((x == 0) & ~axle.isfinite(log_y), axle.zeros_like(log_y), log_y)
        return axle.where(axle.isnan(y), y, x * log_y)

    def hypot(input, other):
        """sqrt(input**2 + other**2) without overflow or underflow (inf if either is inf)."""
        require_tensor("hypot", "other", 2, other)
        dt = promoted(input, other)
        if not dt.is_floating_point:
            raise axle.DTypeError('"hypot_cpu" not implemented for \'%s\'' % tname(dt))
        a, b = bcast(as_operand(input, dt), as_operand(other, dt))
        if dt != axle.float64:  # exact in float64, then rounded once
            a64, b64 = a.to(axle.float64), b.to(axle.float64)
            out = axle.sqrt(a64 * a64 + b64 * b64).to(dt)
        else:  # scaled by the larger magnitude: no overflow or underflow of the squares
            aa, bb = axle.abs(a), axle.abs(b)
            big, small = axle.maximum(aa, bb), axle.minimum(aa, bb)
            safe = axle.where(big == 0, axle.ones_like(big), big)
            ratio = small / safe
            out = big * axle.sqrt(1 + ratio * ratio)
        return axle.where(axle.isinf(a) | axle.isinf(b), axle.full_like(out, float("inf")), out)  # even with NaN

    def signbit(input):
        """Whether the sign bit is set (also for -0.0 and negative NaN)."""
        if input.dtype == axle.bool or input.dtype == axle.uint8:
            return axle.zeros(tuple(input.shape), dtype=axle.bool, device=input.device)
        if not input.is_floating_point():
            return input < 0
        import numpy

        x = input.detach()
        if x.dtype not in (axle.float32, axle.float64):
            x = x.to(axle.float32)  # (a widening: signs, NaN's included, are kept)
        bits = numpy.signbit(numpy.asarray(x.to("cpu").contiguous()))
        return axle.tensor(numpy.ascontiguousarray(bits), device=input.device).reshape(tuple(input.shape))

    def copysign(input, other):
        """|input| with the sign of other (-0.0 and NaN signs included)."""
        like = first_tensor(input, other)
        dt = floating(promoted(input, other))
        a = as_operand(input, dt, like)
        b = as_operand(other, dt, like)
        mag, neg = bcast(axle.abs(a), signbit(b))
        return axle.where(neg, -mag, mag)

    def heaviside(input, values):
        """0 where input < 0, values where input == 0, 1 where input > 0 (0 for NaN)."""
        require_tensor("heaviside", "values", 2, values)
        if input.dtype != values.dtype:
            raise axle.DTypeError("heaviside is not yet implemented for tensors with different dtypes.")
        step = (input > 0).to(input.dtype)
        return axle.where(input == 0, values, step)

    def float_power(input, exponent):
        """input ** exponent computed in float64 (the result is float64)."""
        if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
            raise axle.TypeError("float_power(): expected at least one Tensor argument")
        base = input.to(axle.float64) if isinstance(input, Tensor) else float(number_value(input))
        exp = exponent.to(axle.float64) if isinstance(exponent, Tensor) else float(number_value(exponent))
        return axle.pow(base, exp)

    def float_power_(self, exponent):
        if self.dtype != axle.float64:
            raise axle.DTypeError("the base given to float_power_ has dtype %s but the operation's result requires "
                                  "dtype Double" % tname(self.dtype))
        return self.copy_(float_power(self, exponent))

    def isposinf(input):
        if not input.is_floating_point():
            return axle.zeros(tuple(input.shape), dtype=axle.bool, device=input.device)
        return input == float("inf")

    def isneginf(input):
        if not input.is_floating_point():
            return axle.zeros(tuple(input.shape), dtype=axle.bool, device=input.device)
        return input == float("-inf")

    def isreal(input):
        """True everywhere: axle's dtypes are all real."""
        return axle.ones(tuple(input.shape), dtype=axle.bool, device=input.device)

    def sinc(input):
        """sin(pi x) / (pi x), 1 at 0 (its gradient 0 there)."""
        dt = floating(input.dtype)
        x = input.to(dt)
        zero = x == 0
        p = x * axle.tensor(_math.pi, dtype=dt, device=x.device)
        safe = axle.where(zero, axle.ones_like(p), p)
        return axle.where(zero, axle.ones_like(p), axle.sin(safe) / safe)

    def ldexp(input, other):
        """input * 2 ** other."""
        require_tensor("ldexp", "other", 2, other)
        return input * axle.pow(2.0, other)

    def frexp_parts(x):
        """The binary exponent e of x (x = m * 2**e with |m| in [0.5, 1); 0 where x is 0, inf or
        NaN) as a float64 tensor, half = floor(e / 2) (x * 2**-half * 2**(half - e) is m exactly:
        the scaling split in two neither overflows nor rounds, subnormals included), and where x
        is finite and non-zero. Computed in float64 from log2, then corrected by one where log2
        rounded across a power of two."""
        x64 = x.detach().to(axle.float64)
        regular = axle.isfinite(x64) & (x64 != 0)
        a = axle.where(regular, axle.abs(x64), axle.ones_like(x64))
        e = axle.floor(axle.log2(a)) + 1
        half = axle.floor(e / 2)

        def scaled(v, e, half):
            return v * axle.exp2(-half) * axle.exp2(half - e)

        m = scaled(a, e, half)
        e = e + (m >= 1).to(axle.float64) - (m < 0.5).to(axle.float64)  # log2's rounding near powers of 2
        half = axle.floor(e / 2)
        e = axle.where(regular, e, axle.zeros_like(e))
        half = axle.where(regular, half, axle.zeros_like(half))
        return e, half, regular

    def frexp(input):
        """(mantissa, exponent) with input = mantissa * 2 ** exponent, |mantissa| in [0.5, 1)."""
        if not input.is_floating_point():
            raise axle.DTypeError("torch.frexp() only supports floating-point dtypes")
        e, half, _ = frexp_parts(input)  # e = half = 0 where input is 0, inf or NaN: the mantissa is input
        if input.dtype == axle.float64:
            mantissa = input * axle.exp2(-half) * axle.exp2(half - e)
        else:  # exact in float64, and the mantissa fits input's dtype
            mantissa = (input.to(axle.float64) * axle.exp2(-half) * axle.exp2(half - e)).to(input.dtype)
        return frexp_t(mantissa, e.to(axle.int32))

    _FORMATS = {"float32": (24, -149, 3.4028234663852886e38), "float64": (53, -1074, 1.7976931348623157e308)}

    def nextafter(input, other):
        """The next representable value after input in the direction of other."""
        require_tensor("nextafter", "other", 2, other)
        dt = promoted(input, other)
        if dt.name not in _FORMATS:
            raise axle.DTypeError('"nextafter_cpu" not implemented for \'%s\'' % tname(dt))
        digits, min_exp, max_finite = _FORMATS[dt.name]
        x, y = as_operand(input, dt).detach(), as_operand(other, dt).detach()
        x, y = bcast(x, y)
        x64, y64 = x.to(axle.float64), y.to(axle.float64)
        e, _, regular = frexp_parts(x)
        e = e.to(axle.float64)
        up = y64 > x64
        away = up == (x64 > 0)  # moving away from zero
        exact_power = axle.abs(x64) == axle.exp2(e - 1)  # |x| = 2**(e-1): a smaller step toward zero
        step_exp = axle.where(~away & exact_power, e - digits - 1, e - digits)
        step = axle.exp2(axle.clamp(step_exp, min=float(min_exp)))
        direction = axle.where(up, axle.ones_like(x64), -axle.ones_like(x64))
        moved = x64 + direction * step
        moved = axle.where(moved == 0, x64 * 0, moved)  # from the smallest subnormal to zero: x's signed zero
        tiny = direction * float(2.0 ** min_exp)
        out = axle.where(regular, moved, x64)
        out = axle.where(x64 == 0, tiny, out)
        out = axle.where(axle.isinf(x64), axle.sign(x64) * max_finite, out)
        out = axle.where(x64 == y64, y64, out)
        out = axle.where(axle.isnan(x64) | axle.isnan(y64), axle.full_like(x64, float("nan")), out)
        return out.to(dt)

    def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, **kwargs):
        """base ** linspace(start, end, steps)."""
        if isinstance(start, Tensor):
            start = start.item()
        if isinstance(end, Tensor):
            end = end.item()
        if steps < 0:
            raise axle.ValueError("number of steps must be non-negative")
        dtype = dtype or axle.get_default_dtype()
        exponent_dtype = dtype if dtype in (axle.float32, axle.float64) else (
            axle.float32 if dtype.is_floating_point else axle.float64)
        if steps == 1:  # (the start, as torch.linspace)
            e = axle.full((1,), start, dtype=exponent_dtype, device=device)
        else:
            e = axle.linspace(start, end, steps, dtype=exponent_dtype, device=device)
        out = axle.pow(float(base), e.to(axle.float64)).to(dtype)
        return out.requires_grad_() if requires_grad else out

    def trapezoid_prepare(y, x, dx, dim, name):
        if y.dtype == axle.bool:
            raise axle.DTypeError("%s: received a bool input for `y`, but bool is not supported" % name)
        if y.dim() == 0:
            raise axle.IndexError("Dimension specified as %d but tensor has no dimensions" % dim)
        if x is not None and dx is not None:
            raise axle.TypeError("%s() received an invalid combination of arguments: x and dx can't both be given"
                                 % name)
        d = wrap_dim(dim, y.dim())
        n = y.shape[d]
        if x is not None:
            if x.dim() == 1:
                if x.shape[0] != n:
                    raise axle.ShapeError("%s: There must be one `x` value for each sample point" % name)
                spacing = x.narrow(0, 1, n - 1) - x.narrow(0, 0, n - 1) if n else x
                spacing = spacing.reshape([spacing.shape[0]] + [1] * (y.dim() - d - 1))
            else:
                xd = wrap_dim(dim, x.dim())
                m = x.shape[xd]
                spacing = x.narrow(xd, 1, m - 1) - x.narrow(xd, 0, m - 1) if m else x
            return d, n, spacing
        return d, n, (1 if dx is None else dx)

    def trapezoid(y, x=None, *, dx=None, dim=-1):
        """The trapezoid rule along dim: samples y at x (or spaced dx apart, 1 by default)."""
        d, n, spacing = trapezoid_prepare(y, x, dx, dim, "trapezoid")
        if n == 0:
            shape = list(y.shape)
            del shape[d]
            return axle.zeros(tuple(shape), dtype=floating(y.dtype), device=y.device)
        if not isinstance(spacing, Tensor):
            ends = y.select(d, 0) + y.select(d, n - 1)
            return (axle.sum(y, d) - ends * 0.5) * spacing
        pair = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)
        return axle.sum(spacing * pair, d) / 2.0

    def trapz(y, x=None, *, dx=None, dim=-1):
        """torch.trapz: trapezoid's older name (trapz(y, x, dim=) or trapz(y, dx=, dim=))."""
        if isinstance(x, (_b.int, _b.float)) and not isinstance(x, _b.bool):
            x, dx = None, x
        return trapezoid(y, x, dx=dx if dx is not None or x is not None else 1, dim=dim)

    def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
        """The running trapezoid rule along dim (one element fewer than y there)."""
        d, n, spacing = trapezoid_prepare(y, x, dx, dim, "cumulative_trapezoid")
        if n <= 1:
            shape = list(y.shape)
            shape[d] = 0
            return axle.zeros(tuple(shape), dtype=floating(y.dtype), device=y.device)
        pair = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)
        if not isinstance(spacing, Tensor):
            return axle.cumsum(pair * (spacing / 2.0), d)
        return axle.cumsum(spacing * pair / 2.0, d)

    # ================================================================ random
    def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, **kwargs):
        """A uniformly random permutation of 0 .. n-1 (the order of n float64 uniform keys)."""
        if n < 0:
            raise axle.ValueError("Trying to create tensor with negative dimension %d: [%d]" % (n, n))
        keys = axle.rand((n,), generator=generator, dtype=axle.float64, device=device)
        perm = axle.argsort(keys, stable=True).to(dtype or axle.int64)
        return perm.requires_grad_() if requires_grad else perm

    def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False,
                     memory_format=None, **kwargs):
        """Uniform integers in [low, high) with input's shape (randint_like(input, high) too)."""
        if high is None:
            low, high = 0, low
        out = axle.randint(int(low), int(high), tuple(input.shape), dtype=dtype or input.dtype,
                           device=device or input.device)
        return out.requires_grad_() if requires_grad else out

    def bernoulli_(self, p=0.5, *, generator=None):
        """Fills self with draws of 1 with probability p: a number (the declared op
        bernoulli.p) or a tensor broadcast to self's shape (the op bernoulli);
        the ops check p's dtype and range."""
        with axle.no_grad():
            if not isinstance(p, Tensor):
                return self.copy_(axle.bernoulli(self, float(p), generator=generator))
            try:
                probs = p.expand(tuple(self.shape))
            except Exception:  # noqa: BLE001 - torch's message below
                raise axle.ShapeError("bernoulli_: p with shape %s can't be broadcast to %s"
                                      % (list(p.shape), list(self.shape))) from None
            return self.copy_(axle.bernoulli(probs, generator=generator))

    def multinomial(input, num_samples, replacement=False, *, generator=None):
        """num_samples category indices per row drawn with probabilities proportional to
        input's (1-d or 2-d) non-negative weights; without replacement by the order of
        exponential keys divided by the weights."""
        if not input.is_floating_point():
            raise axle.DTypeError("multinomial only supports floating-point dtypes for input, got: %s"
                                  % tname(input.dtype))
        if input.dim() not in (1, 2):
            raise axle.ShapeError("prob_dist must be 1 or 2 dim")
        if num_samples <= 0:
            raise axle.ValueError("cannot sample n_sample <= 0 samples")
        n = input.shape[-1]
        if not replacement and num_samples > n:
            raise axle.ValueError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        if n > 2 ** 24:
            raise axle.ValueError("number of categories cannot exceed 2^24")
        with axle.no_grad():
            w = input.detach().to(axle.float64)
            w = w.reshape(1, n) if input.dim() == 1 else w
            rows = w.shape[0]
            if rows == 0:
                out = axle.zeros((0, num_samples), dtype=axle.int64, device=input.device)
                return out.reshape(num_samples) if input.dim() == 1 else out
            bad = ~(axle.isfinite(w) & (w >= 0))
            if _b.bool(bad.any()):  # torch's CPU messages: per entry with replacement
                if not replacement:
                    raise axle.ValueError("probability tensor contains either `inf`, `nan` or element < 0")
                first = w.reshape(-1)[int(axle.argmax(bad.reshape(-1).to(axle.uint8)))]
                raise axle.ValueError("invalid multinomial distribution (encountering probability entry %s)"
                                      % ("= infinity or NaN" if _b.bool(first >= 0) else "< 0"))
            if not _b.bool((w.sum(1) > 0).all()):
                raise axle.ValueError("invalid multinomial distribution (sum of probabilities <= 0)")
            if replacement:
                cdf = axle.cumsum(w, 1)
                total = cdf.narrow(1, n - 1, 1)
                u = axle.rand((rows, num_samples), generator=generator, dtype=axle.float64,
                              device=input.device) * total
                idx = search(cdf, u, True)
                last = (n - 1) - axle.argmax(axle.flip((w > 0).to(axle.int64), [1]), 1, True)
                out = axle.minimum(idx, last.expand(rows, num_samples))
            else:
                u = axle.rand((rows, n), generator=generator, dtype=axle.float64, device=input.device)
                expo = -axle.log1p(-u)  # Exp(1) draws
                positive = w > 0
                keys = axle.where(positive, expo / axle.where(positive, w, axle.ones_like(w)),
                                  axle.full_like(w, float("inf")))
                out = axle.argsort(keys, stable=True, dim=1).narrow(1, 0, num_samples)
        return out.reshape(num_samples) if input.dim() == 1 else out

    def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False,
               out=None, **kwargs):
        """Draws from N(mean, std**2): normal(Tensor, Tensor), normal(Tensor, float),
        normal(float, Tensor) (shapes broadcast) and normal(float, float, size)."""
        if out is not None:
            raise axle.NotImplementedError("normal(): out= is not supported")
        with axle.no_grad():
            if isinstance(mean, Tensor) or isinstance(std, Tensor):
                if isinstance(std, Tensor):
                    if std.numel() and not _b.bool((std >= 0).all()):
                        raise axle.ValueError("normal expects all elements of std >= 0.0")
                elif std < 0:
                    raise axle.ValueError("normal expects std >= 0.0, but found std %s" % _fmt(float(std)))
                dt = mean.dtype if isinstance(mean, Tensor) else std.dtype
                if not dt.is_floating_point:
                    raise axle.DTypeError('"normal_kernel_cpu" not implemented for \'%s\'' % tname(dt))
                m = mean.detach() if isinstance(mean, Tensor) else float(mean)
                s = std.detach().to(dt) if isinstance(std, Tensor) else float(std)
                shape = broadcast_shape(*[tuple(t.shape) for t in (m, s) if isinstance(t, Tensor)])
                like = m if isinstance(m, Tensor) else s
                draw = axle.randn(tuple(shape), generator=generator, dtype=dt, device=like.device)
                result = draw * s + m
            else:
                if size is None:
                    raise axle.TypeError("normal(): with a float mean and std, the size argument is required")
                if std < 0:
                    raise axle.ValueError("normal expects std >= 0.0, but found std %s" % _fmt(float(std)))
                dt = dtype or axle.get_default_dtype()
                if not dt.is_floating_point:
                    raise axle.DTypeError('"normal_kernel_cpu" not implemented for \'%s\'' % tname(dt))
                draw = axle.randn(tuple(size), generator=generator, dtype=dt, device=device)
                result = draw * float(std) + float(mean)
        return result.requires_grad_() if requires_grad else result

    # ================================================================ linalg
    def check_norm_dtype(x, dtype, name):
        if not x.is_floating_point():
            raise axle.DTypeError("%s: Expected a floating point or complex tensor as input. Got %s"
                                  % (name, tname(x.dtype)))
        if dtype is not None:
            if not dtype.is_floating_point:
                raise axle.DTypeError("%s: dtype should be floating point or complex, but got %s"
                                      % (name, tname(dtype)))
            if axle.promote_types(x.dtype, dtype) != dtype:
                raise axle.DTypeError("%s: the dtype of the input (%s) should be convertible without narrowing to the "
                                      "specified dtype (%s)" % (name, tname(x.dtype), tname(dtype)))
            x = x.to(dtype)
        return x

    def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
        """The ord-norm of x's elements over dim (every element by default): ord inf / -inf
        is the largest / smallest |x|, 0 the count of non-zeros, p sum(|x|**p)**(1/p)."""
        if isinstance(ord, str) or not is_number(ord):
            raise axle.TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not %s"
                                 % type(ord).__name__)
        ord = float(number_value(ord))
        x = check_norm_dtype(x, dtype, "linalg.vector_norm")
        dims = None if dim is None else ([dim] if isinstance(dim, _b.int) else list(dim))
        if dims is not None and len(dims) == 0:
            dims = None
        if dims is not None:
            dims = dim_list(dims, x.dim())
        if ord < 0 or ord == float("inf"):
            if dims is None and x.numel() == 0:
                raise axle.ValueError("linalg.vector_norm cannot compute the %s norm on an empty tensor because the "
                                      "operation does not have an identity" % _fmt(ord))
            for d in dims or ():
                if x.dim() and x.shape[d] == 0:
                    raise axle.ValueError("linalg.vector_norm cannot compute the %s norm on the dimension %d"
                                          "because this dimension is empty and the operation does not have an "
                                          "identity" % (_fmt(ord), d))
        if dims is None:
            out = axle.norm(x.reshape(-1), ord, [0], False)
            return keep_all(out, x.dim()) if keepdim else out
        if x.dim() == 0:
            out = axle.norm(x.reshape(1), ord, [0], False)
            return out
        return axle.norm(x, ord, dims, keepdim)

    def singular_norm(A, reduce, d0, d1, keepdim):
        """reduce (sum, amax, amin) of the singular values of the matrices over dims d0, d1."""
        rest = [d for d in range(A.dim()) if d not in (d0, d1)]
        out = reduce(axle.linalg_svdvals(A.permute(rest + [d0, d1])), [-1])
        if keepdim:
            out = out.unsqueeze(_b.min(d0, d1)).unsqueeze(_b.max(d0, d1))
        return out

    def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
        """A matrix norm over the two dims: 'fro', or 1 / -1 (largest / smallest column sum
        of |A|), inf / -inf (largest / smallest row sum), 2 / -2 (largest / smallest singular
        value) and 'nuc' (their sum)."""
        if A.dim() < 2:
            raise axle.ShapeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
        dims = [dim] if isinstance(dim, _b.int) else list(dim)
        if len(dims) != 2:
            raise axle.ValueError("linalg.matrix_norm: dim must be a 2-tuple. Got %s" % " ".join(str(d) for d in dims))
        d0, d1 = wrap_dim(dims[0], A.dim()), wrap_dim(dims[1], A.dim())
        if d0 == d1:
            raise axle.ValueError("linalg.matrix_norm: dims must be different. Got (%d, %d)" % (dims[0], dims[1]))
        A = check_norm_dtype(A, dtype, "linalg.matrix_norm")
        if isinstance(ord, str):
            if ord == "fro":
                return vector_norm(A, 2, (d0, d1), keepdim)
            if ord == "nuc":
                return singular_norm(A, axle.sum, d0, d1, keepdim)
            raise axle.ValueError("linalg.matrix_norm: Order %s not supported." % ord)
        o = float(ord)
        if o in (2.0, -2.0):
            return singular_norm(A, axle.amax if o > 0 else axle.amin, d0, d1, keepdim)
        if o in (1.0, -1.0):
            summed, over = d0, d1
        elif o in (float("inf"), float("-inf")):
            summed, over = d1, d0
        else:
            raise axle.ValueError("linalg.matrix_norm: Order %s not supported." % _fmt(o))
        sums = axle.sum(axle.abs(A), [summed], True)
        out = (axle.amax if o > 0 else axle.amin)(sums, [over], True)
        if not keepdim:
            out = out.squeeze(_b.max(d0, d1)).squeeze(_b.min(d0, d1))
        return out

    def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
        """torch.linalg.norm: a vector norm for one dim (or a 1-d input), a matrix norm for
        two dims (or a 2-d input); the 2-norm of every element when neither ord nor dim is given."""
        if dim is not None:
            dims = [dim] if isinstance(dim, _b.int) else list(dim)
            if len(dims) == 1:
                if isinstance(ord, str):
                    raise axle.ValueError("linalg.matrix_norm: dim must be a 2-tuple. Got %d" % dims[0])
                return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
            if len(dims) == 2:
                return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
            raise axle.ValueError("linalg.norm: If dim is specified, it must be of length 1 or 2. Got %s" % dims)
        if ord is None:
            return vector_norm(A, 2, None, keepdim, dtype=dtype)
        if A.dim() not in (1, 2):
            raise axle.ValueError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                                  "Got %dD." % A.dim())
        if A.dim() == 1:
            return vector_norm(A, ord, None, keepdim, dtype=dtype) if not isinstance(ord, str) else \
                matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)

    def cdist(x1, x2, p=2.0, compute_mode=None):
        """The p-norm distances between each row of x1 (..., P, M) and of x2 (..., R, M): (..., P, R)."""
        for name, x in (("X1", x1), ("X2", x2)):
            if x.dim() < 2:
                raise axle.ShapeError("cdist only supports at least 2D tensors, %s got: %dD" % (name, x.dim()))
        if x1.shape[-1] != x2.shape[-1]:
            raise axle.ShapeError("X1 and X2 must have the same number of columns. X1: %d X2: %d"
                                  % (x1.shape[-1], x2.shape[-1]))
        for name, x in (("X1", x1), ("X2", x2)):
            if not x.is_floating_point():
                raise axle.DTypeError("cdist only supports floating-point dtypes, %s got: %s" % (name, tname(x.dtype)))
        if p < 0:
            raise axle.ValueError("cdist only supports non-negative p values")
        if x1.dtype != x2.dtype:
            raise axle.DTypeError("expected scalar type %s but found %s" % (tname(x1.dtype), tname(x2.dtype)))
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
        return axle.norm(diff, float(p), [-1], False)

    def pdist(input, p=2):
        """The p-norm distances between every pair of rows i < j of a 2-d input, in row-major order."""
        if input.dim() != 2:
            raise axle.ShapeError("pdist only supports 2D tensors, got: %dD" % input.dim())
        if not input.is_floating_point():
            raise axle.DTypeError("pdist only supports floating-point dtypes")
        if p < 0:
            raise axle.ValueError("pdist only supports non-negative p values")
        n = input.shape[0]
        if n < 2:
            return axle.zeros((0,), dtype=input.dtype, device=input.device)
        pairs = axle.triu(axle.ones((n, n), dtype=axle.int64, device=input.device), 1).nonzero()
        i, j = pairs.select(1, 0), pairs.select(1, 1)
        diff = axle.index_select(input, 0, i) - axle.index_select(input, 0, j)
        return axle.norm(diff, float(p), [1], False)

    def vdot(input, other):
        """The dot product of two 1-d tensors (the first conjugated: real tensors need no conjugate)."""
        return axle.dot(input, other)

    # ================================================================ misc
    def is_nonzero(input):
        """The truth of a one-element tensor."""
        if input.numel() == 0:
            raise axle.ValueError("Boolean value of Tensor with no values is ambiguous")
        if input.numel() > 1:
            raise axle.ValueError("Boolean value of Tensor with more than one value is ambiguous")
        return _b.bool(input.reshape(()).item() != 0)

    def is_same_size(input, other):
        return tuple(input.shape) == tuple(other.shape)

    def is_signed(input):
        return input.dtype not in (axle.uint8, axle.bool)

    def configured_threads():
        """The cpu plugin's threads: plugins.cpu.options.threads, else cpu.threads; 0 or unset: every core."""
        values = {}
        for entry in axle.config_sources():
            try:
                values[entry.get("key")] = int(str(entry.get("value")).strip('"'))
            except (TypeError, ValueError):
                continue
        for key in ("plugins.cpu.options.threads", "cpu.threads"):
            if key in values:
                if values[key] > 0:
                    return values[key]
                break
        try:
            return len(_os.sched_getaffinity(0))
        except (AttributeError, OSError):
            return _os.cpu_count() or 1

    def get_num_threads():
        """The cpu plugin's thread count: the configured cpu.threads, else every core this process may use."""
        return configured_threads()

    def set_num_threads(n):
        """axle reads the cpu thread count (configuration key cpu.threads) when the cpu
        plugin loads; it cannot change while running. Asking for the current count is a no-op."""
        if not isinstance(n, _b.int) or isinstance(n, _b.bool) or n <= 0:
            raise axle.ValueError("set_num_threads expects a positive integer")
        if n == configured_threads():
            return
        raise axle.NotImplementedError(
            "set_num_threads(%d): axle's cpu thread count is read from the configuration key cpu.threads when the cpu "
            "plugin loads and cannot change at run time (now %d threads); set it before the first import, e.g. "
            "AXLE_CONFIG pointing to a file with {\"cpu\": {\"threads\": %d}}" % (n, configured_threads(), n))

    def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
        """A 0-d tensor holding s (the default dtype unless dtype is given, also for ints and bools)."""
        if isinstance(s, Tensor):
            s = s.item()
        t = axle.full((), number_value(s), dtype=dtype or axle.get_default_dtype(), device=device)
        return t.requires_grad_() if requires_grad else t

    def is_numpy_array(obj):
        return type(obj).__module__ == "numpy" and type(obj).__name__ == "ndarray"

    def from_array(a, dtype, device, copy):
        """A tensor over the numpy array's memory where possible (a copy where asked or needed)."""
        t = None
        if not copy and a.flags.writeable:
            try:
                t = axle.from_numpy(a)
            except (axle.DTypeError, axle.ValueError, BufferError, ValueError):
                t = None
        if t is None:
            if copy is False:
                raise axle.ValueError("asarray(): can't alias the numpy array (read-only or an unsupported dtype) "
                                      "and copy=False")
            t = axle.tensor(a)
        if dtype is not None and t.dtype != dtype:
            if copy is False:
                raise axle.ValueError("asarray(): copy=False but changing the dtype needs a copy")
            t = t.to(dtype)
        if device is not None and t.device != axle.device(device):
            if copy is False:
                raise axle.ValueError("asarray(): copy=False but moving to another device needs a copy")
            t = t.to(axle.device(device))
        return t

    def as_tensor(data, dtype=None, device=None):
        """data as a tensor, sharing memory where it can: a Tensor of the dtype and device
        is returned itself, a numpy array of a supported dtype is viewed on the CPU."""
        if isinstance(data, Tensor):
            t = data
            if dtype is not None and t.dtype != dtype:
                t = t.to(dtype)
            if device is not None and t.device != axle.device(device):
                t = t.to(axle.device(device))
            return t
        if is_numpy_array(data):
            return from_array(data, dtype, device, None)
        return axle.tensor(data, dtype=dtype, device=device)

    def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
        """obj as a tensor (torch.asarray): shares a Tensor's or numpy array's memory unless
        copy=True or a dtype / device change needs a copy (refused with copy=False)."""
        if isinstance(obj, Tensor):
            t = obj
            needs = (dtype is not None and t.dtype != dtype) or (
                device is not None and t.device != axle.device(device))
            if needs and copy is False:
                raise axle.ValueError("asarray(): copy=False but changing the dtype or device needs a copy")
            if dtype is not None and t.dtype != dtype:
                t = t.to(dtype)
            if device is not None and t.device != axle.device(device):
                t = t.to(axle.device(device))
            if copy and t is obj:
                t = obj.clone()
        elif is_numpy_array(obj):
            t = from_array(obj, dtype, device, copy)
        elif hasattr(obj, "__dlpack__") and not copy:
            t = axle.from_dlpack(obj)
            if dtype is not None and t.dtype != dtype:
                t = t.to(dtype)
        else:
            if copy is False and not is_number(obj) and not isinstance(obj, (list, tuple)):
                raise axle.ValueError("asarray(): copy=False but %s needs a copy" % type(obj).__name__)
            if hasattr(obj, "__array_interface__") or isinstance(obj, (bytes, bytearray, memoryview)):
                import numpy
                a = numpy.frombuffer(obj, dtype=numpy.uint8) if isinstance(obj, (bytes, bytearray, memoryview)) \
                    else numpy.asarray(obj)
                t = from_array(numpy.array(a) if copy or not a.flags.writeable else a, dtype, device, None)
            else:
                t = axle.tensor(obj, dtype=dtype, device=device)
        if requires_grad and not t.requires_grad:
            t = t.requires_grad_()
        return t

    # ================================================================ install
    linalg = _types.ModuleType("axle.linalg", "Linear algebra functions (torch.linalg): norms. Made by "
                                              "axle._composites_math.")
    linalg.norm = linalg_norm
    linalg.norm.__name__ = "norm"
    linalg.vector_norm = vector_norm
    linalg.matrix_norm = matrix_norm
    linalg.vecdot = lambda x, y, *, dim=-1: axle.sum(x * y, dim)
    linalg.vecdot.__name__ = "vecdot"
    linalg.vecdot.__doc__ = "The dot products of x and y along dim (torch.linalg.vecdot)."

    functions = {
        # name: (function, also a Tensor method)
        "kthvalue": (kthvalue, True), "median": (median, True), "nanmedian": (nanmedian, True),
        "mode": (mode, True), "quantile": (quantile, True), "nanquantile": (nanquantile, True),
        "nansum": (nansum, True), "nanmean": (nanmean, True), "std_mean": (std_mean, False),
        "var_mean": (var_mean, False), "aminmax": (aminmax, True), "logcumsumexp": (logcumsumexp, True),
        "bincount": (bincount, True), "histc": (histc, True), "bucketize": (bucketize, False),
        "searchsorted": (searchsorted, False), "isin": (isin, False),
        "addcmul": (addcmul, True), "addcdiv": (addcdiv, True), "logaddexp": (logaddexp, True),
        "logaddexp2": (logaddexp2, True), "xlogy": (xlogy, True), "hypot": (hypot, True),
        "copysign": (copysign, True), "heaviside": (heaviside, True), "float_power": (float_power, True),
        "signbit": (signbit, True), "isneginf": (isneginf, True), "isposinf": (isposinf, True),
        "isreal": (isreal, True), "sinc": (sinc, True), "ldexp": (ldexp, True), "frexp": (frexp, True),
        "nextafter": (nextafter, True), "logspace": (logspace, False), "trapezoid": (trapezoid, False),
        "trapz": (trapz, False), "cumulative_trapezoid": (cumulative_trapezoid, False),
        "randperm": (randperm, False), "randint_like": (randint_like, False),
        "multinomial": (multinomial, True), "normal": (normal, False), "cdist": (cdist, False),
        "pdist": (pdist, False), "vdot": (vdot, True), "result_type": (result_type, False),
        "can_cast": (can_cast, False), "is_nonzero": (is_nonzero, True), "is_same_size": (is_same_size, True),
        "is_signed": (is_signed, True), "get_num_threads": (get_num_threads, False),
        "set_num_threads": (set_num_threads, False), "scalar_tensor": (scalar_tensor, False),
        "as_tensor": (as_tensor, False), "asarray": (asarray, False),
    }
    for name, (fn, method) in functions.items():
        if not hasattr(axle, name):
            setattr(axle, name, fn)
            installed[name] = fn
        if method and not hasattr(Tensor, name):
            setattr(Tensor, name, fn)

    in_place_methods = {"addcmul": addcmul, "addcdiv": addcdiv, "xlogy": xlogy, "hypot": hypot,
                        "copysign": copysign, "heaviside": heaviside, "sinc": sinc, "ldexp": ldexp,
                        "nextafter": nextafter}
    for name, fn in in_place_methods.items():
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", in_place(name, fn))
    if not hasattr(Tensor, "float_power_"):
        Tensor.float_power_ = float_power_
    if not hasattr(Tensor, "bernoulli_"):
        Tensor.bernoulli_ = bernoulli_

    if not hasattr(axle, "linalg"):
        axle.linalg = linalg
        _sys.modules.setdefault("axle.linalg", linalg)
    else:  # an existing linalg module gets the norms it lacks
        for name in ("norm", "vector_norm", "matrix_norm", "vecdot"):
            if not hasattr(axle.linalg, name):
                setattr(axle.linalg, name, getattr(linalg, name))
    return installed
