"""Assorted torch 1.13 functions and Tensor methods that axle has no kernel for, written in
Python as compositions of declared ops: the functionalization ``*_copy`` view variants,
the ``*_scatter`` functional inverses of views, put / index_put, gcd / lcm, cov /
corrcoef, block_diag, renorm, fill_diagonal_, the in-place BLAS forms, empty_strided,
frombuffer, the window functions, the deprecated inclusive ``range``, inverse hyperbolic
functions, the in-place random fills (random_, exponential_, geometric_, cauchy_,
log_normal_) and a handful of flag / query helpers (get_device, is_inference, ...).

``install(axle)`` attaches each function to the axle module, and as a Tensor method
where torch has one, only when that name is not there yet: a declared op always wins.
Everything here is compared with torch in tests/python/test_composites_misc.py.

Notes: frombuffer shares memory with writable buffers only; a read-only buffer warns
(as torch does) and is copied, because axle has no non-writable tensors.
is_inference_mode_enabled is always False (axle's inference_mode is no_grad and keeps
no inference tensors). Tensor.unfold is an as_strided view (overlapping windows' gradients sum).
Tensor.trace is a diagonal sum here: the name axle.trace is taken by something else.
"""
import builtins as _b
import functools as _functools
import math as _math
import warnings as _warnings

from . import _C
from ._composites_math import wrap_dim

_NUMPY_NAMES = {"float32": "float32", "float64": "float64", "float16": "float16", "int8": "int8",
                "uint8": "uint8", "int16": "int16", "int32": "int32", "int64": "int64", "bool": "bool_"}
_INT_BITS = {"int8": 8, "uint8": 8, "int16": 16, "int32": 32, "int64": 64}
_LN2 = _math.log(2.0)
_state = {"warn_always": False}


def install(axle):
    """Attaches the functions to the axle module (and Tensor) where the name is free."""
    Tensor = _C.Tensor
    installed = {}

    # ================================================================ helpers
    def floating(t):
        return t if t.dtype.is_floating_point else t.to(axle.get_default_dtype())

    def as_tensor_like(x, like):
        if isinstance(x, Tensor):
            return x
        return axle.tensor(x.item() if hasattr(x, "item") else x, dtype=like.dtype, device=like.device)

    def slice_view(t, dim, start, end, step):
        if step is None:
            step = 1
        if step <= 0:
            raise axle.ValueError("slice step must be positive")
        d = wrap_dim(dim, t.dim())
        return t[(slice(None),) * d + (slice(start, end, step),)]

    def clone_all(ts):
        return tuple(t.clone() for t in ts)

    # ================================================================ 1. view copies
    def alias_copy(input):
        return input.clone()

    def detach_copy(input):
        return input.detach().clone()

    def diagonal_copy(input, offset=0, dim1=0, dim2=1):
        return axle.diagonal(input, offset, dim1, dim2).clone()

    def expand_copy(input, size, *, implicit=False):
        return input.expand(size).clone()

    def narrow_copy(input, dim, start, length):
        return input.narrow(dim, start, length).clone()

    def permute_copy(input, dims):
        return input.permute(dims).clone()

    def select_copy(input, dim, index):
        return input.select(dim, index).clone()

    def slice_copy(input, dim=0, start=None, end=None, step=1):
        return slice_view(input, dim, start, end, step).clone()

    def squeeze_copy(input, dim=None):
        return (input.squeeze() if dim is None else input.squeeze(dim)).clone()

    def t_copy(input):
        return input.t().clone()

    def transpose_copy(input, dim0, dim1):
        return input.transpose(dim0, dim1).clone()

    def unsqueeze_copy(input, dim):
        return input.unsqueeze(dim).clone()

    def view_copy(input, *size, dtype=None):
        if len(size) == 1 and isinstance(size[0], (list, tuple)):
            size = tuple(size[0])
        return input.view(*size).clone()

    def unbind_copy(input, dim=0):
        return clone_all(input.unbind(dim))

    def split_copy(input, split_size, dim=0):
        return clone_all(input.split(split_size, dim))

    def split_with_sizes_copy(input, split_sizes, dim=0):
        return clone_all(input.split_with_sizes(split_sizes, dim))

    # ================================================================ 2. functional / misc
    def select_scatter(input, src, dim, index):
        out = input.clone()
        out.select(dim, index).copy_(src)
        return out

    def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
        out = input.clone()
        slice_view(out, dim, start, end, step).copy_(src)
        return out

    def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
        out = input.clone()
        axle.diagonal(out, offset, dim1, dim2).copy_(src)
        return out

    def index_put(input, indices, values, accumulate=False):
        return input.clone().index_put_(tuple(indices), values, accumulate)

    def put_(self, index, source, accumulate=False):
        if index.dtype != axle.int64:
            raise axle.TypeError("put_(): Expected a long tensor for index, but got %s" % index.dtype)
        if self.dtype != source.dtype:
            raise axle.TypeError("put_(): self and source expected to have the same dtype, but got "
                                 "self.dtype = %s and source.dtype = %s" % (self.dtype, source.dtype))
        if index.numel() != source.numel():
            raise axle.ShapeError("put_(): Expected source and index to have the same number of elements, "
                                  "but got source.numel() = %d, index.numel() = %d"
                                  % (source.numel(), index.numel()))
        if self.is_contiguous():
            self.view(-1).index_put_((index.reshape(-1),), source.reshape(-1), accumulate)
        else:
            flat = self.contiguous().view(-1)
            flat.index_put_((index.reshape(-1),), source.reshape(-1), accumulate)
            self.copy_(flat.view(self.shape))
        return self

    def put(input, index, source, accumulate=False):
        return put_(input.clone(), index, source, accumulate)

    def rsub(input, other, alpha=1):
        return other - (input if alpha == 1 else input * alpha)

    def fill(input, value):
        if isinstance(value, Tensor):
            if value.dim() != 0:
                raise axle.ValueError("fill only supports 0-dimension value tensor but got tensor with %d "
                                      "dimensions." % value.dim())
            value = value.item()
        return axle.full_like(input, value)

    def argwhere(input):
        return axle.nonzero(input)

    def msort(input):
        return axle.sort(input, 0)[0]

    def dist(input, other, p=2):
        d = (input - other).abs()
        if not d.dtype.is_floating_point:
            raise axle.DTypeError("dist only supports floating-point dtypes")
        d = d.reshape(-1)
        if p == _math.inf:
            return d.max() if d.numel() else axle.zeros((), dtype=d.dtype)
        if p == -_math.inf:
            return d.min() if d.numel() else axle.zeros((), dtype=d.dtype)
        if p == 0:
            return (d != 0).to(d.dtype).sum()
        if p == 1:
            return d.sum()
        if p == 2:
            return d.square().sum().sqrt()
        return d.pow(p).sum().pow(1.0 / p)

    def fmax(input, other):
        m = axle.maximum(input, other)
        if not m.dtype.is_floating_point:
            return m
        a, b = input.to(m.dtype), as_tensor_like(other, m).to(m.dtype)
        return axle.where(axle.isnan(a), b, axle.where(axle.isnan(b), a, m))

    def fmin(input, other):
        m = axle.minimum(input, other)
        if not m.dtype.is_floating_point:
            return m
        a, b = input.to(m.dtype), as_tensor_like(other, m).to(m.dtype)
        return axle.where(axle.isnan(a), b, axle.where(axle.isnan(b), a, m))

    def integral_pair(name, input, other):
        other = as_tensor_like(other, input)
        for t in (input, other):
            if t.dtype.is_floating_point or t.dtype == axle.bool:
                raise axle.DTypeError('"%s_cpu" not implemented for \'%s\'' % (name, str(t.dtype).split(".")[-1]))
        dt = axle.promote_types(input.dtype, other.dtype)
        a, b = axle.broadcast_tensors(input.to(dt), other.to(dt))
        return a, b

    def gcd(input, other):
        a, b = integral_pair("gcd", input, other)
        a, b = a.abs(), b.abs()
        # Euclid, vectorized: at most ~ 1.44 * bits steps (Fibonacci worst case)
        for _ in range(100):
            nz = b != 0
            if not bool(nz.any()):
                break
            safe = axle.where(nz, b, axle.ones_like(b))
            a, b = axle.where(nz, b, a), axle.where(nz, a % safe, axle.zeros_like(b))
        return a

    def lcm(input, other):
        a, b = integral_pair("lcm", input, other)
        g = gcd(a, b)
        safe = axle.where(g == 0, axle.ones_like(g), g)
        return axle.where(g == 0, axle.zeros_like(g), (axle.div(a, safe, rounding_mode="trunc") * b).abs())

    def cov(input, *, correction=1, fweights=None, aweights=None):
        if input.dim() > 2:
            raise axle.ValueError("cov(): expected input to have two or fewer dimensions but got an input "
                                  "with %d dimensions" % input.dim())
        x = input.reshape(1, -1) if input.dim() < 2 else input
        x = floating(x)
        n = x.shape[1]
        w = None
        if fweights is not None:
            if fweights.dtype.is_floating_point:
                raise axle.TypeError("cov(): expected fweights to have integral dtype but got fweights with "
                                     "%s dtype" % str(fweights.dtype).split(".")[-1])
            if fweights.dim() > 1 or fweights.numel() != n:
                raise axle.ShapeError("cov(): expected fweights to have one dimension and %d elements" % n)
            if bool((fweights < 0).any()):
                raise axle.ValueError("cov(): fweights cannot be negative")
            w = fweights.to(x.dtype)
        if aweights is not None:
            if not aweights.dtype.is_floating_point:
                raise axle.TypeError("cov(): expected aweights to have floating point dtype but got aweights "
                                     "with %s dtype" % str(aweights.dtype).split(".")[-1])
            if aweights.dim() > 1 or aweights.numel() != n:
                raise axle.ShapeError("cov(): expected aweights to have one dimension and %d elements" % n)
            if bool((aweights < 0).any()):
                raise axle.ValueError("cov(): aweights cannot be negative")
            aw = aweights.to(x.dtype)
            w = aw if w is None else w * aw
        if w is None:
            avg = x.mean(1)
            norm = float(n - correction)
        else:
            w_sum = w.sum()
            avg = (x * w).sum(1) / w_sum
            if correction == 0:
                norm = w_sum
            elif aweights is None:
                norm = w_sum - correction
            else:
                norm = w_sum - correction * (w * aweights.to(x.dtype)).sum() / w_sum
        if (float(norm) if isinstance(norm, Tensor) else norm) <= 0:
            _warnings.warn("cov(): degrees of freedom is <= 0", RuntimeWarning)
            norm = 0.0
        xm = x - avg.unsqueeze(1)
        c = axle.mm(xm, (xm if w is None else xm * w).t())
        return (c / norm).squeeze()

    def corrcoef(input):
        c = cov(input)
        if c.dim() == 0:
            return c / c
        d = axle.diagonal(c, 0, 0, 1)
        s = d.sqrt()
        c = c / s.unsqueeze(1)
        c = c / s.unsqueeze(0)
        return c.clamp(-1, 1)

    def block_diag(*tensors):
        mats = []
        for i, t in enumerate(tensors):
            if t.dim() > 2:
                raise axle.ValueError("torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                                      "Input %d has %d dimensions" % (i, t.dim()))
            mats.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
        if not mats:
            return axle.empty(1, 0)
        dt = mats[0].dtype
        for m in mats[1:]:
            dt = axle.promote_types(dt, m.dtype)
        total = _b.sum(m.shape[1] for m in mats)
        rows, left = [], 0
        for m in mats:
            r, c = m.shape
            parts = []
            if left:
                parts.append(axle.zeros(r, left, dtype=dt, device=m.device))
            parts.append(m.to(dt))
            if total - left - c:
                parts.append(axle.zeros(r, total - left - c, dtype=dt, device=m.device))
            rows.append(axle.cat(parts, 1) if len(parts) > 1 else parts[0])
            left += c
        return axle.cat(rows, 0)

    def chain_matmul(*matrices):
        _warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
                       "Use torch.linalg.multi_dot instead", UserWarning)
        if len(matrices) == 0:
            raise axle.ValueError("chain_matmul(): Expected one or more matrices")
        for m in matrices:
            if m.dim() != 2:
                raise axle.ShapeError("chain_matmul(): Expected all matrices to be 2-D, got %d-D" % m.dim())
        if len(matrices) == 1:
            return matrices[0].clone()
        return _functools.reduce(axle.mm, matrices)

    def sum_to_size(self, *size):
        if len(size) == 1 and isinstance(size[0], (list, tuple)):
            size = tuple(size[0])
        shape = tuple(self.shape)
        lead = len(shape) - len(size)
        ok = lead >= 0 and all(s == 1 or s == shape[lead + i] for i, s in enumerate(size))
        if not ok:
            raise axle.ShapeError("size {%s} is not expandable to size {%s}."
                                  % (", ".join(map(str, size)), ", ".join(map(str, shape))))
        out = self
        if lead:
            out = out.sum(tuple(range(lead)))
        dims = tuple(i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1)
        if dims:
            out = out.sum(dims, keepdim=True)
        return out

    def renorm(input, p, dim, maxnorm):
        if not input.dtype.is_floating_point:
            raise axle.DTypeError("renorm: expected a floating point input")
        if p <= 0:
            raise axle.ValueError("renorm: non-positive-norm not supported")
        if input.dim() <= 1:
            raise axle.ValueError("renorm: input needs at least 2 dimensions, got %d dimensions" % input.dim())
        d = wrap_dim(dim, input.dim())
        dims = tuple(i for i in range(input.dim()) if i != d)
        a = input.abs()
        if p == _math.inf:
            norm = a.amax(dims, keepdim=True)
        elif p == 1:
            norm = a.sum(dims, keepdim=True)
        elif p == 2:
            norm = a.square().sum(dims, keepdim=True).sqrt()
        else:
            norm = a.pow(p).sum(dims, keepdim=True).pow(1.0 / p)
        factor = axle.where(norm > maxnorm, maxnorm / (norm + 1e-7), axle.ones_like(norm))
        return input * factor

    def renorm_(self, p, dim, maxnorm):
        return self.copy_(renorm(self, p, dim, maxnorm))

    def fill_diagonal_(self, fill_value, wrap=False):
        n = self.dim()
        if n < 2:
            raise axle.ValueError("dimensions must larger than 1")
        h, w = self.shape[0], self.shape[1]
        if n > 2 and any(s != h for s in self.shape):
            raise axle.ValueError("all dimensions of input must be of equal length")
        size = _b.min(h, w)
        stride = _b.sum(self.stride())
        off = self.storage_offset()
        self.as_strided((size,), (stride,), off).fill_(fill_value)
        if wrap and n == 2 and h > w + 1:
            step = w + 1
            wrap_size = (self.numel() + step - 1) // step - size
            self.as_strided((wrap_size,), (stride,), off + self.stride(0) * (w + 1)).fill_(fill_value)
        return self

    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        return self.copy_(axle.addmm(self, mat1, mat2, beta=beta, alpha=alpha))

    def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
        if batch1.dim() != 3 or batch2.dim() != 3:
            raise axle.ShapeError("batch1 and batch2 must be 3D tensors")
        prod = axle.bmm(batch1, batch2).sum(0)
        if alpha != 1:
            prod = prod * alpha
        if beta == 0:
            return prod  # torch ignores input (even NaN) when beta is 0
        return (input if beta == 1 else input * beta) + prod

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        return self.copy_(addbmm(self, batch1, batch2, beta=beta, alpha=alpha))

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        return self.copy_(axle.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha))

    def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                      pin_memory=False):
        size, stride = tuple(size), tuple(stride)
        if len(size) != len(stride):
            raise axle.ValueError("mismatch in length of strides and shape")
        if any(s < 0 for s in size):
            raise axle.ValueError("Trying to create tensor with negative dimension")
        need = 0 if 0 in size else 1 + _b.sum((s - 1) * st for s, st in zip(size, stride))
        base = axle.empty(need, dtype=dtype, device=device)
        out = base.as_strided(size, stride, 0)
        if requires_grad:
            out = out.requires_grad_()
        return out

    def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
        import numpy
        name = str(dtype).split(".")[-1]
        if name not in _NUMPY_NAMES:
            raise axle.TypeError("frombuffer(): unsupported dtype %s" % dtype)
        mv = memoryview(buffer)
        nbytes = mv.nbytes
        if nbytes <= 0 or count == 0:
            raise axle.ValueError("both buffer length (%d) and count (%d) must not be 0" % (nbytes, count))
        if offset < 0 or offset >= nbytes:
            raise axle.ValueError("offset (%d bytes) must be non-negative and no greater than buffer length "
                                  "(%d bytes) minus 1" % (offset, nbytes))
        a = numpy.frombuffer(mv.cast("B") if mv.ndim != 1 or mv.format != "B" else mv,
                             dtype=numpy.dtype(_NUMPY_NAMES[name]), count=count, offset=offset)
        if not a.flags.writeable:
            _warnings.warn("The given buffer is not writable, and PyTorch does not support non-writable "
                           "tensors. This means you can write to the underlying (supposedly non-writable) "
                           "buffer using the tensor. You may want to copy the buffer to protect its data or "
                           "make it writable before converting it to a tensor. (axle copies it.)", UserWarning)
            a = numpy.array(a)
        t = axle.from_numpy(a)
        if requires_grad:
            t = t.requires_grad_()
        return t

    # windows
    def make_window(name, formula):
        def window(window_length, periodic=True, *args, dtype=None, layout=None, device=None,
                   requires_grad=False, **kw):
            dt = dtype if dtype is not None else axle.get_default_dtype()
            if not dt.is_floating_point:
                raise axle.DTypeError("%s expects floating point dtypes, got: %s" % (name, dt))
            if window_length < 0:
                raise axle.ValueError("%s requires non-negative window_length, got window_length=%d"
                                      % (name, window_length))
            if window_length == 0:
                out = axle.empty(0, dtype=dt, device=device)
            elif window_length == 1:
                out = axle.ones(1, dtype=dt, device=device)
            else:
                n = window_length + 1 if periodic else window_length
                k = axle.arange(n, dtype=axle.float64, device=device)
                out = formula(k, n, *args, **kw)
                if periodic:
                    out = out[:-1]
                out = out.to(dt)
            if requires_grad:
                out = out.requires_grad_()
            return out

        window.__name__ = name
        window.__doc__ = "torch.%s: the window of length window_length (periodic drops the last sample)." % name
        return window

    def _hamming(k, n, alpha=0.54, beta=0.46):
        return alpha - beta * axle.cos(k * (2 * _math.pi / (n - 1)))

    hann_window = make_window("hann_window", lambda k, n: _hamming(k, n, 0.5, 0.5))
    hamming_window = make_window("hamming_window", _hamming)
    blackman_window = make_window(
        "blackman_window",
        lambda k, n: 0.42 - 0.5 * axle.cos(k * (2 * _math.pi / (n - 1))) + 0.08 * axle.cos(k * (4 * _math.pi / (n - 1))))
    bartlett_window = make_window("bartlett_window", lambda k, n: 1 - (k * (2.0 / (n - 1)) - 1).abs())

    def _kaiser(k, n, beta=12.0):
        # I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta), a = (n - 1) / 2 (axle.i0, in float64).
        a = (n - 1) / 2.0
        r = (k - a) / a
        arg = float(beta) * axle.sqrt(axle.clamp(1 - r * r, min=0.0))
        return axle.i0(arg) / axle.i0(axle.tensor([float(beta)], dtype=axle.float64))

    kaiser_window = make_window("kaiser_window", _kaiser)

    def range_(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False):
        _warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior "
                       "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
                       "values in [start, end).", UserWarning)
        if end is None:
            start, end = 0, start
        if step == 0:
            raise axle.ValueError("step must be nonzero")
        if (step > 0 and end < start) or (step < 0 and end > start):
            raise axle.ValueError("upper bound and larger bound inconsistent with step sign")
        dt = dtype if dtype is not None else axle.get_default_dtype()
        size = int(_math.floor((end - start) / step)) + 1
        out = (axle.arange(size, dtype=axle.float64, device=device) * step + start).to(dt)
        if requires_grad:
            out = out.requires_grad_()
        return out
    range_.__name__ = "range"

    def get_device(input):
        return -1 if input.device.type == "cpu" else (input.device.index or 0)

    def is_inference(input):
        return False

    def is_inference_mode_enabled():
        return False

    def is_anomaly_enabled():
        return False

    def set_warn_always(b):
        _state["warn_always"] = bool(b)

    def is_warn_always_enabled():
        return _state["warn_always"]

    def is_storage(obj):
        kinds = tuple(getattr(axle, n) for n in ("UntypedStorage", "TypedStorage") if isinstance(getattr(axle, n, None), type))
        return bool(kinds) and isinstance(obj, kinds)

    def unfold(self, dimension, size, step):
        if step <= 0:
            raise axle.ValueError("step is %d but must be > 0" % step)
        nd = self.dim()
        d = wrap_dim(dimension, nd)
        shape = list(self.shape) if nd else [1]
        strides = list(self.stride()) if nd else [1]
        if size > shape[d]:
            raise axle.ValueError("maximum size for tensor at dimension %d is %d but size is %d"
                                  % (d, shape[d], size))
        new_shape = list(shape)
        new_strides = list(strides)
        new_shape[d] = (shape[d] - size) // step + 1
        new_strides[d] = strides[d] * step
        if nd:
            new_shape.append(size)
            new_strides.append(strides[d])
        else:
            new_shape, new_strides = [size], [1]
        # a view; overlapping windows' gradients sum in the view's backward
        return self.as_strided(new_shape, new_strides, self.storage_offset())

    def unfold_copy(input, dimension, size, step):
        return unfold(input, dimension, size, step).clone()

    def trace(self):
        if self.dim() != 2:
            raise axle.ValueError("trace: expected a matrix, but got tensor with dim %d" % self.dim())
        return axle.diagonal(self, 0, 0, 1).sum()

    def share_memory_(self):
        return self

    def is_shared(self):
        return False

    # ================================================================ 3. inverse hyperbolics
    def acosh(input):
        x = floating(input)
        t = x - 1
        small = axle.log1p(t + axle.sqrt(t * (t + 2)))
        xs = axle.where(x > 2, x, axle.full_like(x, 3.0))  # keep the unused branch finite
        mid = axle.log(2 * xs - 1 / (xs + axle.sqrt(xs * xs - 1)))
        xl = axle.where(x > 2 ** 28, x, axle.full_like(x, 2.0 ** 29))
        big = axle.log(xl) + _LN2
        return axle.where(x > 2 ** 28, big, axle.where(x > 2, mid, small))

    def asinh(input):
        x = floating(input)
        a = x.abs()
        small = axle.log1p(a + a * a / (1 + axle.sqrt(1 + a * a)))
        as_ = axle.where(a > 2, a, axle.full_like(a, 3.0))
        mid = axle.log(2 * as_ + 1 / (axle.sqrt(as_ * as_ + 1) + as_))
        al = axle.where(a > 2 ** 28, a, axle.full_like(a, 2.0 ** 29))
        big = axle.log(al) + _LN2
        r = axle.where(a > 2 ** 28, big, axle.where(a > 2, mid, small))
        r = axle.where(x < 0, -r, r)
        return axle.where(a < 2 ** -28, x, r)

    def atanh(input):
        x = floating(input)
        a = x.abs()
        one_m = 1 - a
        small = 0.5 * axle.log1p(2 * a + 2 * a * a / one_m)
        big = 0.5 * axle.log1p(2 * a / one_m)
        r = axle.where(a < 0.5, small, big)
        r = axle.where(x < 0, -r, r)
        return axle.where(a < 2 ** -28, x, r)

    def in_place(fn, name):
        def op_(self, *args, **kwargs):
            if not self.dtype.is_floating_point:
                raise axle.DTypeError("result type Float can't be cast to the desired output type %s"
                                      % str(self.dtype).split(".")[-1])
            return self.copy_(fn(self, *args, **kwargs))
        op_.__name__ = name
        return op_

    # ================================================================ 3. random fills
    def uniform64(self):
        return axle.rand(tuple(self.shape), dtype=axle.float64, device=self.device)

    def random_(self, *args, **kwargs):
        lo, hi = 0, None
        if "from" in kwargs:
            lo = kwargs.pop("from")
        if "to" in kwargs:
            hi = kwargs.pop("to")
        generator = kwargs.pop("generator", None)
        if kwargs:
            raise axle.TypeError("random_() got unexpected arguments %s" % sorted(kwargs))
        if len(args) == 1:
            hi = args[0]
        elif len(args) == 2:
            lo, hi = args
        elif len(args) > 2:
            raise axle.TypeError("random_() takes at most 2 positional arguments")
        name = str(self.dtype).split(".")[-1]
        if hi is None:
            if self.dtype == axle.bool:
                hi = 2
            elif name in _INT_BITS:
                hi = 2 ** (_INT_BITS[name] - (0 if name == "uint8" else 1))
            else:
                hi = 2 ** {"float16": 11, "bfloat16": 8, "float32": 24}.get(name, 53) + 1
        if lo >= hi:
            raise axle.ValueError("random_ expects 'from' to be less than 'to', but got from=%d >= to=%d"
                                  % (lo, hi))
        if name in _INT_BITS:  # torch's bounds checks (no silent wrap-around)
            bits = _INT_BITS[name]
            low, high = (0, 2 ** bits - 1) if name == "uint8" else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
            if not low <= lo <= high:
                raise axle.ValueError("random_: from is out of bounds for %s (got %d, range [%d, %d])"
                                      % (name, lo, low, high))
            if not low <= hi - 1 <= high:
                raise axle.ValueError("random_: to - 1 is out of bounds for %s (got %d, range [%d, %d])"
                                      % (name, hi - 1, low, high))
        # Integers drawn by randint (int64; int64's own range [0, 2^63 - 1] shifted
        # by one, as randint's `high` is exclusive), then converted.
        shift = 1 if hi > 2 ** 63 - 1 else 0
        if lo - shift < -2 ** 63:
            raise axle.ValueError("random_ expects a range within int64, got from=%d to=%d" % (lo, hi))
        v = axle.randint(lo - shift, hi - shift, tuple(self.shape), generator=generator, dtype=axle.int64,
                         device=self.device)
        if shift:
            v = v + 1
        return self.copy_(v.to(self.dtype))

    def exponential_(self, lambd=1, *, generator=None):
        if lambd <= 0:
            raise axle.ValueError("exponential_ expects lambda > 0.0, but found lambda=%s" % lambd)
        u = uniform64(self)
        return self.copy_(-axle.log1p(-u) / lambd)

    def geometric_(self, p, *, generator=None):
        if not 0 < p < 1:
            raise axle.ValueError("geometric_ expects p to be in (0, 1), but got p=%s" % p)
        u = uniform64(self)
        v = (axle.log1p(-u) / _math.log1p(-p)).ceil()
        return self.copy_(axle.maximum(v, axle.ones_like(v)))

    def cauchy_(self, median=0, sigma=1, *, generator=None):
        u = uniform64(self)
        return self.copy_(median + sigma * axle.tan(_math.pi * (u - 0.5)))

    def log_normal_(self, mean=1, std=2, *, generator=None):
        if std <= 0:
            raise axle.ValueError("log_normal_ expects std > 0.0, but found std=%s" % std)
        z = axle.randn(tuple(self.shape), dtype=axle.float64, device=self.device)
        return self.copy_(axle.exp(mean + std * z))

    # ================================================================ install
    functions = {
        # name: (function, also a Tensor method)
        "alias_copy": (alias_copy, False), "detach_copy": (detach_copy, False),
        "diagonal_copy": (diagonal_copy, False), "expand_copy": (expand_copy, False),
        "narrow_copy": (narrow_copy, True), "permute_copy": (permute_copy, False),
        "select_copy": (select_copy, False), "slice_copy": (slice_copy, False),
        "squeeze_copy": (squeeze_copy, False), "t_copy": (t_copy, False),
        "transpose_copy": (transpose_copy, False), "unsqueeze_copy": (unsqueeze_copy, False),
        "view_copy": (view_copy, False), "unfold_copy": (unfold_copy, False),
        "unbind_copy": (unbind_copy, False), "split_copy": (split_copy, False),
        "split_with_sizes_copy": (split_with_sizes_copy, False),
        "select_scatter": (select_scatter, True), "slice_scatter": (slice_scatter, True),
        "diagonal_scatter": (diagonal_scatter, True), "index_put": (index_put, True),
        "put": (put, True), "rsub": (rsub, False), "fill": (fill, False), "argwhere": (argwhere, True),
        "msort": (msort, True), "dist": (dist, True), "fmax": (fmax, True), "fmin": (fmin, True),
        "gcd": (gcd, True), "lcm": (lcm, True), "corrcoef": (corrcoef, True), "cov": (cov, True),
        "block_diag": (block_diag, False), "chain_matmul": (chain_matmul, False),
        "sum_to_size": (sum_to_size, False), "renorm": (renorm, True), "addbmm": (addbmm, True),
        "empty_strided": (empty_strided, False), "frombuffer": (frombuffer, False),
        "hann_window": (hann_window, False), "hamming_window": (hamming_window, False),
        "blackman_window": (blackman_window, False), "bartlett_window": (bartlett_window, False),
        "kaiser_window": (kaiser_window, False),
        "range": (range_, False), "get_device": (get_device, True), "is_inference": (is_inference, True),
        "is_inference_mode_enabled": (is_inference_mode_enabled, False),
        "is_anomaly_enabled": (is_anomaly_enabled, False),
        "is_warn_always_enabled": (is_warn_always_enabled, False), "set_warn_always": (set_warn_always, False),
        "is_storage": (is_storage, False),
        "acosh": (acosh, True), "asinh": (asinh, True), "atanh": (atanh, True),
        "arccosh": (acosh, True), "arcsinh": (asinh, True), "arctanh": (atanh, True),
    }
    if not hasattr(axle, "as_strided"):  # the strided helpers need as_strided
        for name in ("empty_strided",):
            functions.pop(name)
    for name, (fn, method) in functions.items():
        if not hasattr(axle, name):
            setattr(axle, name, fn)
            installed[name] = fn
        if method and not hasattr(Tensor, name):
            setattr(Tensor, name, fn)

    methods = {
        "sum_to_size": sum_to_size, "trace": trace, "put_": put_,
        "renorm_": renorm_, "fill_diagonal_": fill_diagonal_, "addmm_": addmm_, "addbmm_": addbmm_,
        "baddbmm_": baddbmm_, "share_memory_": share_memory_, "is_shared": is_shared,
        "acosh_": in_place(acosh, "acosh_"), "asinh_": in_place(asinh, "asinh_"),
        "atanh_": in_place(atanh, "atanh_"), "arccosh_": in_place(acosh, "arccosh_"),
        "arcsinh_": in_place(asinh, "arcsinh_"), "arctanh_": in_place(atanh, "arctanh_"),
        "gcd_": lambda self, other: self.copy_(gcd(self, other)),
        "lcm_": lambda self, other: self.copy_(lcm(self, other)),
        "random_": random_, "exponential_": exponential_, "geometric_": geometric_,
        "cauchy_": cauchy_, "log_normal_": log_normal_,
    }
    if hasattr(Tensor, "as_strided"):
        methods["unfold"] = unfold
    for name, fn in methods.items():
        if fn is not None and not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    for name in ("is_cpu", "is_cuda"):
        if not hasattr(Tensor, name):
            kind = name[3:]
            setattr(Tensor, name, property(lambda self, kind=kind: self.device.type == kind,
                                           doc="True when the tensor lives on a %s device." % kind))
    return installed
