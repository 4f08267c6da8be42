"""torch 1.13's numerical helpers that axle has no kernel for, written in Python over its
declared ops: vander, combinations, gradient (finite differences, edge_order 1 and 2),
histogram / histogramdd,
frobenius_norm, index_reduce / index_reduce_ (over scatter_reduce) and segment_reduce.

``install(axle)`` attaches each name where it is free: a declared op always wins.
Everything here is compared with torch in tests/python/test_composites_more.py.

Where axle differs from torch 1.13: gradient refuses a spacing list or coordinate tensor whose
length does not match the dims (torch 1.13 reads past its end); histogramdd refuses a bins
list of the wrong length; segment_reduce computes one row of lengths at a time in Python.
"""
import builtins as _b
import collections as _collections
import itertools as _itertools
import math as _math
import numbers as _numbers

from . import _C
from ._composites_math import wrap_dim
from . import return_types as _return_types


def _named(name):
    t = getattr(_return_types, name, None)
    if t is None:
        t = _collections.namedtuple(name, ("hist", "bin_edges"))
        t.__module__ = _return_types.__name__
        setattr(_return_types, name, t)
    return t


def install(axle):
    """Attaches the functions to the axle module (and Tensor) where the name is free."""
    Tensor = _C.Tensor
    installed = {}

    def is_number(v):
        return isinstance(v, _numbers.Number) and not isinstance(v, _b.bool)

    # ================================================================ vander, combinations
    def vander(x, N=None, increasing=False):
        """Columns x^(N-1) ... x^0 (x^0 ... x^(N-1) when increasing); integral x gives int64."""
        if x.dim() != 1:
            raise axle.ShapeError("vander(): x must be a one-dimensional tensor, got %d dims" % x.dim())
        n = x.shape[0] if N is None else N
        if n < 0:
            raise axle.ValueError("vander(): N must be non-negative, got %d" % n)
        dt = x.dtype if x.dtype.is_floating_point else axle.int64
        if n == 0:
            return axle.empty((x.shape[0], 0), dtype=dt, device=x.device)
        cols = [axle.ones((x.shape[0], 1), dtype=dt, device=x.device)]
        if n > 1:
            cols.append(axle.cumprod(x.to(dt).unsqueeze(1).expand(x.shape[0], n - 1), 1))
        out = axle.cat(cols, 1)
        return out if increasing else out.flip(1)

    def combinations(input, r=2, with_replacement=False):
        """The length-r combinations of a 1-d tensor's elements, one per row (itertools' order)."""
        if input.dim() != 1:
            raise axle.ShapeError("combinations(): Expect a 1D vector, but got shape %s" % list(input.shape))
        if r < 0:
            raise axle.ValueError("combinations(): Expect a non-negative number, but got %d" % r)
        if r == 0:
            return axle.empty(0, dtype=input.dtype, device=input.device)
        pick = _itertools.combinations_with_replacement if with_replacement else _itertools.combinations
        rows = list(pick(_b.range(input.shape[0]), r))
        if not rows:
            return axle.empty((0, r), dtype=input.dtype, device=input.device)
        idx = axle.tensor([i for row in rows for i in row], dtype=axle.int64, device=input.device)
        return input.index_select(0, idx).view(len(rows), r)

    # ================================================================ gradient
    def gradient(input, *, spacing=1, dim=None, edge_order=1):
        """Finite differences of input along each dim (torch.gradient): second-order central
        differences inside, first- or second-order one-sided ones at the edges; spacing is a
        number, one number per dim, or one coordinate tensor per dim."""
        if edge_order not in (1, 2):
            raise axle.ValueError("gradient(): only supports edge_order=1 and edge_order=2, got %r" % (edge_order,))
        if input.dtype == axle.bool:
            raise axle.DTypeError("gradient(): bool tensors are not supported")
        if dim is None:
            dims = list(_b.range(input.dim()))
        elif isinstance(dim, _b.int):
            dims = [wrap_dim(dim, input.dim(), "gradient")]
        else:
            dims = [wrap_dim(d, input.dim(), "gradient") for d in dim]
            if len(set(dims)) != len(dims):
                raise axle.ValueError("gradient(): dim %s appears multiple times in the list of dims" % list(dim))
        if isinstance(spacing, Tensor) and spacing.dim() == 0:
            spacing = spacing.item()
        if is_number(spacing):
            steps = [spacing] * len(dims)
        elif isinstance(spacing, (list, tuple)):
            steps = list(spacing)
            if len(steps) != len(dims):
                raise axle.ValueError("gradient(): expected spacing to be a number or a list of %d (one per dim), "
                                      "got a list of length %d" % (len(dims), len(steps)))
            kinds = {isinstance(s, Tensor) for s in steps}
            if len(kinds) > 1:
                raise axle.TypeError("gradient(): spacing must hold only numbers or only tensors")
            for s, d in zip(steps, dims):
                if isinstance(s, Tensor):
                    if s.dim() != 1:
                        raise axle.ShapeError("gradient(): expected each element of spacing to have one dimension, "
                                              "but got an element with %d dimensions!" % s.dim())
                    if s.shape[0] != input.shape[d]:
                        raise axle.ShapeError("gradient(): the coordinates for dim %d have %d elements, the input "
                                              "has size %d there" % (d, s.shape[0], input.shape[d]))
                elif not is_number(s):
                    raise axle.TypeError("gradient(): spacing must hold numbers or tensors, got %s" %
                                         type(s).__name__)
        else:
            raise axle.TypeError("gradient(): spacing must be a number or a list or tuple, got %s"
                                 % type(spacing).__name__)
        for d in dims:
            if input.shape[d] < edge_order + 1:
                raise axle.ShapeError("gradient(): expected each dimension size to be at least edge_order+1, dim "
                                      "%d has size %d" % (d, input.shape[d]))
        return tuple(one_gradient(input, d, s, edge_order) for d, s in zip(dims, steps))

    def along(t, d, n):
        shape = [1] * t.dim()
        shape[d] = n
        return shape

    def one_gradient(input, d, step, edge_order):
        f = input if input.dtype.is_floating_point else input.to(axle.get_default_dtype())
        n = f.shape[d]

        def part(start, length):
            return f.narrow(d, start, length)

        if isinstance(step, Tensor):
            x = step if step.dtype.is_floating_point else step.to(axle.get_default_dtype())
            dx = x[1:] - x[:-1]

            def gap(start, length):  # spacing differences shaped to broadcast along d
                return dx.narrow(0, start, length).reshape(along(f, d, length))

            h1, h2 = gap(0, n - 2), gap(1, n - 2)
            inner = (part(0, n - 2) * (-h2 / (h1 * (h1 + h2))) + part(1, n - 2) * ((h2 - h1) / (h1 * h2)) +
                     part(2, n - 2) * (h1 / (h2 * (h1 + h2))))
            if edge_order == 1:
                first = (part(1, 1) - part(0, 1)) / gap(0, 1)
                last = (part(n - 1, 1) - part(n - 2, 1)) / gap(n - 2, 1)
            else:
                a, b = gap(0, 1), gap(1, 1)
                first = (part(0, 1) * (-(2 * a + b) / (a * (a + b))) + part(1, 1) * ((a + b) / (a * b)) +
                         part(2, 1) * (-a / (b * (a + b))))
                a, b = gap(n - 3, 1), gap(n - 2, 1)
                last = (part(n - 3, 1) * (b / (a * (a + b))) + part(n - 2, 1) * (-(a + b) / (a * b)) +
                        part(n - 1, 1) * ((2 * b + a) / (b * (a + b))))
        else:
            h = step
            inner = (part(2, n - 2) - part(0, n - 2)) / (2 * h)
            if edge_order == 1:
                first = (part(1, 1) - part(0, 1)) / h
                last = (part(n - 1, 1) - part(n - 2, 1)) / h
            else:
                first = (part(0, 1) * -1.5 + part(1, 1) * 2 - part(2, 1) * 0.5) / h
                last = (part(n - 3, 1) * 0.5 - part(n - 2, 1) * 2 + part(n - 1, 1) * 1.5) / h
        return axle.cat([first, inner, last], d)

    # ================================================================ histograms
    def check_float(name, t, what):
        if not t.dtype.is_floating_point:
            raise axle.DTypeError("%s(): %s must be a floating-point tensor, got %s" % (name, what, t.dtype))

    def edges_for(name, points, d, bins, rng):
        """The bin edges of dim d: the given tensor, or bins + 1 even steps over the range."""
        if isinstance(bins, Tensor):
            if bins.dim() != 1:
                raise axle.ShapeError("%s(): bins tensor should have one dimension, but got %d dimensions in the "
                                      "bins tensor for dimension %d" % (name, bins.dim(), d))
            if bins.dtype != points.dtype:
                raise axle.DTypeError("%s(): input tensor and bins tensors should have the same dtype, but got input "
                                      "with dtype %s and bins for dimension %d with dtype %s"
                                      % (name, points.dtype, d, bins.dtype))
            if bins.shape[0] < 2:
                raise axle.ValueError("%s(): bins must be > 0, but got %d for dimension %d"
                                      % (name, bins.shape[0] - 1, d))
            return bins
        if not isinstance(bins, _b.int) or isinstance(bins, _b.bool):
            raise axle.TypeError("%s(): bins must be an int or a tensor, got %s" % (name, type(bins).__name__))
        if bins <= 0:
            raise axle.ValueError("%s(): bins must be > 0, but got %d for dimension %d" % (name, bins, d))
        if rng is not None:
            lo, hi = float(rng[0]), float(rng[1])
        elif points.shape[0] == 0:
            lo, hi = 0.0, 1.0
        else:
            col = points[:, d]
            lo, hi = col.min().item(), col.max().item()
        if not (_math.isfinite(lo) and _math.isfinite(hi)):
            raise axle.ValueError("%s(): dimension %d's range [%s, %s] is not finite" % (name, d, lo, hi))
        if lo > hi:
            raise axle.ValueError("%s(): min should not exceed max, but got min %s max %s for dimension %d"
                                  % (name, lo, hi, d))
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        return axle.linspace(lo, hi, bins + 1, dtype=points.dtype, device=points.device)

    def histogram_points(name, points, bins, rng, weight, density):
        """hist, edges of the rows of points (M, D) (torch.histogramdd's core)."""
        m, D = points.shape
        if len(bins) != D:
            raise axle.ValueError("%s(): for a %d-dimensional histogram bins should have %d elements, but got %d"
                                  % (name, D, D, len(bins)))
        if rng is not None:
            rng = [float(v) for v in rng]
            if len(rng) != 2 * D:
                raise axle.ValueError("%s(): for a %d-dimensional histogram range should have %d elements, but got "
                                      "%d" % (name, D, 2 * D, len(rng)))
            if any(isinstance(b, Tensor) for b in bins):
                raise axle.TypeError("%s(): range is only taken with integer bins" % name)
        if weight is not None:
            if weight.dtype != points.dtype:
                raise axle.DTypeError("%s(): if weight tensor is provided, input tensor and weight tensor should "
                                      "have the same dtype, but got input(%s), and weight(%s)"
                                      % (name, points.dtype.name, weight.dtype.name))
            if weight.numel() != m:
                raise axle.ShapeError("%s(): weight should have one element per point (%d), got shape %s"
                                      % (name, m, list(weight.shape)))
        edges = [edges_for(name, points, d, b, None if rng is None else rng[2 * d:2 * d + 2])
                 for d, b in enumerate(bins)]
        counts = [e.shape[0] - 1 for e in edges]
        keep = axle.ones(m, dtype=axle.bool, device=points.device)
        flat = axle.zeros(m, dtype=axle.int64, device=points.device)
        for d, e in enumerate(edges):
            col = points[:, d].contiguous()
            keep = keep & (col >= e[0]) & (col <= e[-1])
            pos = axle.searchsorted(e, col, right=True) - 1
            pos = axle.clamp(pos, 0, counts[d] - 1)
            flat = flat * counts[d] + pos
        w = (weight.reshape(-1) if weight is not None else axle.ones(m, dtype=points.dtype, device=points.device))
        w = axle.where(keep, w, axle.zeros_like(w))
        total = _math.prod(counts)
        hist = axle.zeros(total, dtype=points.dtype, device=points.device).index_add(0, flat, w).view(counts)
        if density:
            hist = hist / hist.sum()
            for d, e in enumerate(edges):
                hist = hist / (e[1:] - e[:-1]).reshape(along(hist, d, counts[d]))
        return hist, edges

    def histogram(input, bins=100, *, range=None, weight=None, density=False):
        """Counts (or weight sums) of input's elements in bins equal-width bins over range (the
        data's min and max by default) or between the edges of a bins tensor; the last bin holds
        its right edge. Returns (hist, bin_edges)."""
        check_float("histogram", input, "input")
        if isinstance(bins, Tensor) and range is not None:
            raise axle.TypeError("histogram(): range is only taken with an integer bins")
        hist, edges = histogram_points("histogram", input.reshape(-1, 1), [bins], range, weight, density)
        return _named("histogram")(hist, edges[0])

    def histogramdd(input, bins, *, range=None, weight=None, density=False):
        """The D-dimensional histogram of the points in input's last dim (torch.histogramdd):
        (hist, bin_edges), one edges tensor per dim."""
        check_float("histogramdd", input, "input")
        if input.dim() < 2:
            raise axle.ShapeError("histogramdd(): input tensor should have at least 2 dimensions, got %d"
                                  % input.dim())
        if weight is not None and tuple(weight.shape) != tuple(input.shape[:-1]):
            raise axle.ShapeError("histogramdd(): if weight tensor is provided it should have the same shape as the "
                                  "input tensor excluding its innermost dimension, but got input with shape %s and "
                                  "weight with shape %s" % (list(input.shape), list(weight.shape)))
        points = input.reshape(-1, input.shape[-1])
        if isinstance(bins, _b.int) and not isinstance(bins, _b.bool):
            bins = [bins] * points.shape[1]
        elif isinstance(bins, Tensor):
            bins = [bins]
        else:
            bins = list(bins)
        hist, edges = histogram_points("histogramdd", points, bins, range, weight, density)
        return _named("histogramdd")(hist, tuple(edges))

    # ================================================================ frobenius_norm
    def frobenius_norm(input, dim=(), keepdim=False):
        """sqrt of the sum of squares over dim (at most 2 dims; () means all)."""
        if not input.dtype.is_floating_point:
            raise axle.DTypeError("frobenius_norm(): input dtype should be floating point, got %s" % input.dtype)
        dims = [dim] if isinstance(dim, _b.int) else list(dim)
        if len(dims) > 2:
            raise axle.ValueError("frobenius_norm(): Expected at most 2 dimensions, but got %d dimensions instead."
                                  % len(dims))
        if not dims:
            if input.dim() == 0:
                return input.abs()
            dims = list(_b.range(input.dim()))
        wrapped = [wrap_dim(d, input.dim(), "frobenius_norm") for d in dims]
        if len(set(wrapped)) != len(wrapped):
            raise axle.ValueError("frobenius_norm(): Expected dims to be different, got %s instead" % dims)
        if input.dim() == 0:
            return input.abs()
        return axle.norm(input, 2, wrapped, keepdim)

    # ================================================================ index_reduce, segment_reduce
    def check_index_reduce(self, dim, index, source, reduce):
        if reduce not in ("prod", "mean", "amax", "amin"):
            raise axle.ValueError("index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s."
                                  % reduce)
        if index.dtype not in (axle.int64, axle.int32):
            raise axle.DTypeError("index_reduce_(): Expected dtype int32/int64 for index but got: %s" % index.dtype)
        if index.dim() > 1:
            raise axle.IndexError("index_reduce_(): Index is supposed to be a vector, but got dim: %d"
                                  % index.dim())
        if self.dtype != source.dtype:
            raise axle.DTypeError("index_reduce_(): self (%s) and source (%s) must have the same scalar type"
                                  % (self.dtype.name, source.dtype.name))
        d = wrap_dim(dim, self.dim(), "index_reduce")
        n = source.shape[d] if source.dim() else 1
        if index.numel() != n:
            raise axle.ShapeError("index_reduce_(): Number of indices (%d) should be equal to source.size(dim): "
                                  "(%d), for dim: %d" % (index.numel(), n, d))
        if index.numel():
            size = self.shape[d] if self.dim() else 1
            lo, hi = index.min().item(), index.max().item()
            if lo < 0 or hi >= size:
                raise axle.IndexError("index_reduce(): index out of range in self (indices must be in [0, %d), got "
                                      "%d)" % (size, lo if lo < 0 else hi))
        return d

    def index_reduce(input, dim, index, source, reduce, *, include_self=True):
        """input with source's slices reduced into the slices at index along dim (torch.index_reduce)."""
        d = check_index_reduce(input, dim, index, source, reduce)
        if input.dim() == 0:
            return index_reduce(input.view(1), 0, index, source.reshape(-1), reduce,
                                include_self=include_self).view(())
        shape = [1] * source.dim()
        shape[d] = -1
        idx = index.to(axle.int64).reshape(shape).expand(tuple(source.shape))
        return input.scatter_reduce(d, idx, source, reduce, include_self=include_self)

    def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
        return self.copy_(index_reduce(self, dim, index, source, reduce, include_self=include_self))

    def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
        """Reduces consecutive segments of data along axis (their lengths given by lengths, or
        by the differences of offsets) with sum, mean, max, min or prod; initial joins every
        segment (an empty one gives initial, else 0 / nan / -inf / inf / 1)."""
        if reduce not in ("sum", "mean", "max", "min", "prod"):
            raise axle.ValueError("segment_reduce(): unsupported reduction given! %s" % reduce)
        if indices is not None:
            raise axle.NotImplementedError("segment_reduce(): indices based reduction is not supported yet.")
        if (lengths is None) == (offsets is None):
            raise axle.ValueError("segment_reduce(): Either lengths or offsets must be defined (exactly one).")
        check_float("segment_reduce", data, "data")
        given = lengths if lengths is not None else offsets
        if given.dtype not in (axle.int64, axle.int32):
            raise axle.DTypeError("segment_reduce(): lengths and offsets must be int32 or int64, got %s" % given.dtype)
        if lengths is None:
            lengths = offsets[..., 1:] - offsets[..., :-1]
        batch = lengths.dim() - 1
        if wrap_dim(axis, data.dim(), "segment_reduce") != batch:
            raise axle.ValueError("segment_reduce(): Expected axis to be the last dimension of lengths but got %d."
                                  % axis)
        if tuple(lengths.shape[:-1]) != tuple(data.shape[:batch]):
            raise axle.ShapeError("segment_reduce(): lengths' leading dims %s must match data's %s"
                                  % (list(lengths.shape[:-1]), list(data.shape[:batch])))
        if lengths.numel() and lengths.min().item() < 0:
            raise axle.ValueError("segment_reduce(): lengths contains negative value!")
        if batch:
            rows = [segment_reduce(data[i], reduce, lengths=lengths[i], axis=batch - 1, unsafe=unsafe, initial=initial)
                    for i in _b.range(data.shape[0])]
            return axle.stack(rows, 0)
        total = lengths.sum().item() if lengths.numel() else 0
        if total > data.shape[0] or (not unsafe and total != data.shape[0]):
            raise axle.ValueError("segment_reduce(): Expected all rows of lengths along axis to sum to data.size(%d) "
                                  "(%d) when !unsafe, got %d" % (axis, data.shape[0], total))
        return reduce_segments(data, reduce, lengths.to(axle.int64), total, initial)

    def reduce_segments(data, reduce, lengths, total, initial):
        s = lengths.shape[0]
        rest = tuple(data.shape[1:])
        seg = axle.repeat_interleave(axle.arange(s, device=data.device), lengths)
        used = data.narrow(0, 0, total)
        idx = seg.reshape((-1,) + (1,) * len(rest)).expand((total,) + rest)
        empty = (lengths == 0).reshape((s,) + (1,) * len(rest))
        name = {"sum": "sum", "mean": "sum", "max": "amax", "min": "amin", "prod": "prod"}[reduce]
        neutral = {"sum": 0.0, "mean": 0.0, "max": -_math.inf, "min": _math.inf, "prod": 1.0}[reduce]
        start = neutral if initial is None or reduce == "mean" else initial
        base = axle.full((s,) + rest, start, dtype=data.dtype, device=data.device)
        out = base.scatter_reduce(0, idx, used, name, include_self=True)
        if reduce == "mean":
            if initial is not None:
                out = out + initial
            count = lengths.to(data.dtype).reshape((s,) + (1,) * len(rest))
            out = out / count
            if initial is not None:
                out = axle.where(empty, axle.full_like(out, initial), out)
        return out

    # ================================================================ install
    functions = {
        # name: (function, also a Tensor method)
        "vander": (vander, False), "combinations": (combinations, False), "gradient": (gradient, False),
        "histogram": (histogram, True), "histogramdd": (histogramdd, False),
        "frobenius_norm": (frobenius_norm, False),
        "index_reduce": (index_reduce, True), "segment_reduce": (segment_reduce, False),
    }
    for name, (fn, method) in functions.items():
        if not hasattr(axle, name):
            setattr(axle, name, fn)
            installed[name] = fn
        if method and not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    if not hasattr(Tensor, "index_reduce_"):
        Tensor.index_reduce_ = index_reduce_
    return installed
