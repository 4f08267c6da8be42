"""The math functions written in Python over axle's ops (bindings/python/axle/_composites_math.py),
compared with torch 1.13: order statistics, NaN-aware reductions, searching and counting,
pointwise functions, trapezoid rules, norms and distances, dtype and creation helpers; the
random samplers by their distributions (fixed seeds, generous bounds) and repeatability."""

import numpy as np
import pytest

import axle
from axle import _composites_math

_composites_math.install(axle)  # (harmless once axle/__init__.py installs it too)

torch = pytest.importorskip("torch")

nan, inf = float("nan"), float("inf")
RNG = np.random.default_rng(1234)


# ---------------------------------------------------------------- helpers
def dtype_name(dt):
    return str(dt).split(".")[-1]


def same(a, t, rtol=1e-6, atol=0.0, check_dtype=True):
    """An axle result equals torch's: the same type of result, dtype, shape and values (NaN equal)."""
    if isinstance(t, tuple):
        assert isinstance(a, tuple) and len(a) == len(t), (a, t)
        if hasattr(t, "_fields"):
            assert getattr(a, "_fields", None) == t._fields, (type(a), type(t))
        for x, y in zip(a, t):
            same(x, y, rtol, atol, check_dtype)
        return
    if isinstance(t, torch.Tensor):
        assert isinstance(a, axle.Tensor), type(a)
        if check_dtype:
            assert dtype_name(a.dtype) == dtype_name(t.dtype), (a.dtype, t.dtype)
        assert tuple(a.shape) == tuple(t.shape), (tuple(a.shape), tuple(t.shape))
        got = np.asarray(a.detach().float() if a.dtype in (axle.bfloat16,) else a.detach(), dtype=np.float64)
        want = t.detach().double().numpy()
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        return
    assert a == t, (a, t)


def both(fn, *arrays):
    """fn(L, *tensors) for L in (axle, torch), the tensors made from the same numpy arrays."""
    out = []
    for L in (axle, torch):
        ts = [L.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
        out.append(fn(L, *ts))
    return out


def check(fn, *arrays, **tol):
    got, want = both(fn, *arrays)
    same(got, want, **tol)
    return got, want


def same_error(fn, kind, *arrays):
    """torch refuses fn; axle raises kind with torch's message text."""
    with pytest.raises(Exception) as t_err:
        fn(torch, *[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays])
    with pytest.raises(kind) as a_err:
        fn(axle, *[axle.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays])
    t_msg = str(t_err.value).split("\n")[0].strip()
    a_msg = str(a_err.value).strip()
    assert a_msg and (t_msg in a_msg or a_msg in t_msg), (a_msg, t_msg)


def grads(fn, *arrays, rtol=1e-7, atol=1e-10):
    """The gradients of fn(L, *inputs).sum() agree (float64 inputs)."""
    got = []
    for L in (axle, torch):
        ts = [L.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
        out = fn(L, *ts)
        out.sum().backward()
        got.append([t.grad for t in ts])
    for g, w, t in zip(*got, arrays):
        g = np.zeros(np.shape(t)) if g is None else np.asarray(g)  # (no gradient: zeros in torch)
        w = np.zeros(np.shape(t)) if w is None else w.numpy()
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


def data(shape, dtype=np.float32, special=False, low=-5, high=5):
    if np.dtype(dtype).kind in "iu":
        return np.asarray(RNG.integers(low, high, size=shape), dtype=dtype)
    if np.dtype(dtype).kind == "b":
        return np.asarray(RNG.integers(0, 2, size=shape), dtype=bool)
    a = np.asarray(RNG.standard_normal(shape) * 3, dtype=dtype)
    if special and a.size >= 4:
        flat = a.reshape(-1)
        flat[RNG.choice(a.size, size=_builtin_min(3, a.size), replace=False)] = np.array([nan, inf, -inf])[
            :_builtin_min(3, a.size)]
    return a


_builtin_min = min


def gathered_matches(values, indices, x, dim, keepdim):
    """indices point at values: x.gather(dim, indices) == values (NaN equal)."""
    idx = indices if keepdim else indices.unsqueeze(dim)
    picked = x.gather(dim, idx)
    if not keepdim:
        picked = picked.squeeze(dim)
    np.testing.assert_array_equal(np.asarray(picked), np.asarray(values))


# ---------------------------------------------------------------- order statistics
@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, True), (-1, False), (-2, True)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_kthvalue_matches_torch(dim, keepdim, dtype):
    x = data((5, 7), dtype, special=dtype != np.int64)
    for k in (1, 3, x.shape[dim]):
        got, want = both(lambda L, t: L.kthvalue(t, k, dim, keepdim), x)
        same(got.values, want.values)
        assert type(got).__name__ == "kthvalue" and got._fields == ("values", "indices")
        gathered_matches(got.values, got.indices, axle.tensor(x), dim, keepdim)
    u = RNG.permutation(35).reshape(5, 7).astype(np.float32)  # distinct values: the same indices as torch
    check(lambda L, t: L.kthvalue(t, 2, dim, keepdim), u)
    check(lambda L, t: t.kthvalue(3, dim=dim, keepdim=keepdim), u)


def test_kthvalue_edges_and_errors():
    check(lambda L, t: L.kthvalue(t, 1), np.array(2.5, dtype=np.float32))
    check(lambda L, t: L.kthvalue(t, 3), np.array([3.0, nan, 1.0], dtype=np.float32))
    check(lambda L, t: L.kthvalue(t, 1, 0), np.zeros((1, 0), dtype=np.float32))
    same_error(lambda L, t: L.kthvalue(t, 3), axle.IndexError, np.array([3.0, 1.0]))
    same_error(lambda L, t: L.kthvalue(t, 0), axle.IndexError, np.array([3.0, 1.0]))
    same_error(lambda L, t: L.kthvalue(t, 1, 2), axle.IndexError, np.array([3.0, 1.0]))


@pytest.mark.parametrize("fn", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_median_matches_torch(fn, dtype):
    x = data((6, 9), dtype)
    if dtype != np.int32:
        x[1, 3] = x[4, 0] = x[4, 5] = nan
        x[5, :] = nan
    check(lambda L, t: getattr(L, fn)(t), x)
    check(lambda L, t: getattr(t, fn)(), x)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            got, want = both(lambda L, t: getattr(L, fn)(t, dim, keepdim), x)
            same(got.values, want.values)
            assert got._fields == ("values", "indices") and type(got).__name__ == fn
            gathered_matches(got.values, got.indices, axle.tensor(x), dim, keepdim)
    u = RNG.permutation(54).reshape(6, 9).astype(dtype)  # distinct: indices equal torch's
    if dtype != np.int32:
        u[2, 4] = u[3, 1] = u[3, 7] = nan
        if fn == "median":  # (nanmedian's index on a row of NaN only is whatever torch's nth_element leaves)
            u[0, :] = nan
    check(lambda L, t: getattr(L, fn)(t, 1), u)
    check(lambda L, t: getattr(L, fn)(t, 0, keepdim=True), u)


def test_median_edges():
    check(lambda L, t: L.median(t), np.zeros(0, dtype=np.float32))
    check(lambda L, t: L.nanmedian(t), np.array([nan, nan], dtype=np.float32))
    check(lambda L, t: L.median(t, 0), np.array(4.0, dtype=np.float32))
    check(lambda L, t: L.median(t, 0), np.zeros((2, 0), dtype=np.float32))
    check(lambda L, t: L.nanmedian(t, 1), np.array([[nan, nan], [1.0, nan]], dtype=np.float32))
    same_error(lambda L, t: L.median(t, 0), axle.IndexError, np.zeros((0, 2), dtype=np.float32))
    same_error(lambda L, t: L.median(t, 2), axle.IndexError, np.zeros((2, 2), dtype=np.float32))


def test_median_gradients():
    x = np.array([[3.0, 1.0, 2.0, 2.0], [5.0, 5.0, 1.0, 0.0]])
    grads(lambda L, t: L.median(t), x)  # evenly shared by the equal elements
    grads(lambda L, t: L.nanmedian(t), np.array([1.0, nan, 2.0, 1.0]))
    grads(lambda L, t: L.median(t, 1).values, np.array([[3.0, 1.0, 2.0, 4.0], [5.0, 6.0, 1.0, 0.0]]))
    grads(lambda L, t: L.kthvalue(t, 2, 0).values, np.array([[3.0, 1.0], [5.0, 6.0], [0.0, 2.0]]))


@pytest.mark.parametrize("dtype", [np.int64, np.int16, np.float32, np.float64, np.uint8])
def test_mode_matches_torch(dtype):
    x = data((6, 11), dtype, low=0, high=4)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            got, want = check(lambda L, t: L.mode(t, dim, keepdim), x)
            assert type(got).__name__ == "mode"
    check(lambda L, t: t.mode(), x)


def test_mode_edges_and_errors():
    check(lambda L, t: L.mode(t), np.array([1, 2, 2, 1, 3, 1, 2]))
    check(lambda L, t: L.mode(t), np.array([2.0, nan, nan, 1.0], dtype=np.float32))
    check(lambda L, t: L.mode(t), np.array([5, 5, 3, 3]))
    check(lambda L, t: L.mode(t), np.array([True, False, True]))
    check(lambda L, t: L.mode(t), np.array(7))
    check(lambda L, t: L.mode(t, 0), np.zeros((3, 0), dtype=np.float32))
    same_error(lambda L, t: L.mode(t), axle.IndexError, np.zeros(0))
    same_error(lambda L, t: L.mode(t), axle.IndexError, np.zeros((2, 0)))
    grads(lambda L, t: L.mode(t, 1).values, np.array([[1.0, 2.0, 2.0, 1.0, 1.0], [3.0, 3.0, 4.0, 4.0, 5.0]]))


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quantile_matches_torch(interpolation, fn, dtype):
    x = data((5, 8), dtype)
    x[1, 2] = x[3, 0] = x[3, 7] = nan
    x[4, :] = nan
    qs = [0.0, 0.25, 0.4, 0.5, 0.9, 1.0]
    for q in (0.3, 0.5, 1.0, np.array(0.7, dtype=dtype), np.array(qs, dtype=dtype)):
        for dim in (None, 0, 1, -1):
            for keepdim in (False, True):
                check(lambda L, t, q: getattr(L, fn)(t, q, dim, keepdim, interpolation=interpolation), x, q,
                      rtol=1e-6)
    # ranks that fall exactly halfway, for 'nearest' (rounded half to even as torch)
    y = np.arange(5, dtype=dtype)
    check(lambda L, t, q: getattr(L, fn)(t, q, interpolation=interpolation), y,
          np.array([0.125, 0.375, 0.625, 0.875], dtype=dtype))
    check(lambda L, t: getattr(t, fn)(0.5, 0, interpolation=interpolation), np.array(3.0, dtype=dtype))


def test_quantile_errors_and_gradient():
    x = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    same_error(lambda L, t: L.quantile(t, 0.5), axle.DTypeError, np.array([1, 2]))
    same_error(lambda L, t: L.quantile(t, 1.5), axle.ValueError, x)
    same_error(lambda L, t: L.quantile(t, -0.1), axle.ValueError, x)
    same_error(lambda L, t: L.quantile(t, 0.5), axle.ValueError, np.zeros(0, dtype=np.float32))
    same_error(lambda L, t, q: L.quantile(t, q), axle.ShapeError, x, np.array([[0.5]], dtype=np.float32))
    same_error(lambda L, t, q: L.quantile(t, q), axle.DTypeError, x, np.array([0.5]))
    same_error(lambda L, t, q: L.quantile(t, q), axle.ValueError, x, np.array([0.5, 2.0], dtype=np.float32))
    same_error(lambda L, t: L.quantile(t, 0.5, interpolation="foo"), axle.ValueError, x)
    same_error(lambda L, t: L.nanquantile(t, 0.5, dim=1), axle.ValueError, np.zeros((3, 0), dtype=np.float32))
    same_error(lambda L, t: L.quantile(t, 0.5, dim=2), axle.IndexError, np.zeros((3, 2), dtype=np.float32))
    g = np.array([[3.0, 1.0, 2.5, 7.0], [0.5, 4.0, 1.5, 2.0]])
    grads(lambda L, t: L.quantile(t, L.tensor([0.3, 0.5], dtype=L.float64), dim=1), g)
    grads(lambda L, t: L.nanquantile(t, 0.6), g)


# ---------------------------------------------------------------- reductions
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nansum_nanmean_match_torch(dtype):
    x = data((4, 5, 3), dtype)
    x[0, 1, 2] = x[2, 0, 0] = x[3, 3, 1] = nan
    x[1, :, 0] = nan
    for fn in ("nansum", "nanmean"):
        check(lambda L, t: getattr(L, fn)(t), x, rtol=1e-5)
        check(lambda L, t: getattr(t, fn)(), x, rtol=1e-5)
        for dim in (0, -1, (0, 2), [1]):
            for keepdim in (False, True):
                check(lambda L, t: getattr(L, fn)(t, dim, keepdim), x, rtol=1e-5)
        check(lambda L, t: getattr(L, fn)(t, 1, dtype=L.float64), x, rtol=1e-6)
        check(lambda L, t: getattr(L, fn)(t), np.zeros((0, 3), dtype=dtype))
    check(lambda L, t: L.nansum(t), np.array([1, 2, 3]))
    check(lambda L, t: L.nansum(t, 0), np.array([True, True]))
    same_error(lambda L, t: L.nanmean(t), axle.DTypeError, np.array([1, 2]))
    grads(lambda L, t: L.nansum(t, 1), np.array([[1.0, nan], [2.0, 3.0]]))
    grads(lambda L, t: L.nanmean(t, 0), np.array([[1.0, nan], [2.0, 3.0]]))


def test_std_mean_var_mean_match_torch():
    x = data((4, 6), np.float32)
    for fn in ("std_mean", "var_mean"):
        for call in (lambda L, t: getattr(L, fn)(t), lambda L, t: getattr(L, fn)(t, False),
                     lambda L, t: getattr(L, fn)(t, 1), lambda L, t: getattr(L, fn)(t, 0, False, True),
                     lambda L, t: getattr(L, fn)(t, (0, 1), keepdim=True),
                     lambda L, t: getattr(L, fn)(t, dim=1, correction=0),
                     lambda L, t: getattr(L, fn)(t, dim=[0], unbiased=True, keepdim=True)):
            got, want = check(call, x, rtol=1e-5)
            assert type(got) is tuple and type(want) is tuple
    grads(lambda L, t: L.std_mean(t, 1)[0].sum() + L.var_mean(t, 0, keepdim=True)[1].sum(), data((3, 4), np.float64))
    grads(lambda L, t: L.var_mean(t)[0] + L.std_mean(t, None, correction=0)[1], data((3, 4), np.float64))


def test_aminmax_matches_torch():
    x = data((4, 5), np.float32, special=True)
    for kw in ({}, {"dim": 0}, {"dim": -1, "keepdim": True}, {"keepdim": True}):
        got, want = check(lambda L, t: L.aminmax(t, **kw), x)
        assert got._fields == ("min", "max")
        check(lambda L, t: t.aminmax(**kw), x)
    check(lambda L, t: L.aminmax(t), np.array([1, 5]))
    check(lambda L, t: L.aminmax(t), np.array([True, False]))
    check(lambda L, t: L.aminmax(t, dim=1), np.zeros((0, 2), dtype=np.float32))
    check(lambda L, t: L.aminmax(t, dim=0), np.array(3.0, dtype=np.float32))
    same_error(lambda L, t: L.aminmax(t), axle.ValueError, np.zeros(0, dtype=np.float32))
    same_error(lambda L, t: L.aminmax(t, dim=0), axle.IndexError, np.zeros((0, 2), dtype=np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logcumsumexp_matches_torch(dtype):
    x = (RNG.standard_normal((6, 37)) * 30).astype(dtype)
    for dim in (0, 1, -1):
        check(lambda L, t: L.logcumsumexp(t, dim), x, rtol=1e-5 if dtype == np.float32 else 1e-12)
        check(lambda L, t: t.logcumsumexp(dim), x, rtol=1e-5 if dtype == np.float32 else 1e-12)
    special = np.array([[-1000.0, 0.0, inf, 1.0], [-inf, -inf, 1.0, -inf], [nan, 0.0, 1.0, 2.0],
                        [-inf, inf, -inf, 3.0]], dtype=dtype)
    check(lambda L, t: L.logcumsumexp(t, 1), special)
    check(lambda L, t: L.logcumsumexp(t, 0), np.array(2.0, dtype=dtype))
    check(lambda L, t: L.logcumsumexp(t, 1), np.zeros((2, 0), dtype=dtype))
    same_error(lambda L, t: L.logcumsumexp(t, 0), axle.DTypeError, np.array([1, 2]))
    grads(lambda L, t: L.logcumsumexp(t, 1), RNG.standard_normal((3, 9)))
    # -inf elements: the gradients torch gives for -1e300 (torch's own are NaN at -inf); the first
    # output is the first element itself: gradient 1
    x = axle.tensor([[-inf, 0.0, -inf, 1.0], [2.0, -inf, -inf, 0.5]], dtype=axle.float64, requires_grad=True)
    axle.logcumsumexp(x, 1).sum().backward()
    t = torch.tensor([[-1e300, 0.0, -1e300, 1.0], [2.0, -1e300, -1e300, 0.5]], dtype=torch.float64,
                     requires_grad=True)
    torch.logcumsumexp(t, 1).sum().backward()
    g = np.asarray(x.grad)
    assert g[0, 0] == 1.0  # out[0] is x[0]
    np.testing.assert_allclose(g[:, 1:], t.grad.numpy()[:, 1:], rtol=1e-12)
    np.testing.assert_allclose(g[1, 0], t.grad.numpy()[1, 0], rtol=1e-12)


# ---------------------------------------------------------------- counting and searching
def test_bincount_matches_torch():
    x = RNG.integers(0, 9, size=40)
    check(lambda L, t: L.bincount(t), x)
    check(lambda L, t: t.bincount(minlength=20), x)
    for wdt in (np.float32, np.float64, np.int64):
        check(lambda L, t, w: L.bincount(t, w), x, RNG.standard_normal(40).astype(wdt) if wdt != np.int64
              else RNG.integers(0, 5, 40), rtol=1e-6)
    check(lambda L, t: L.bincount(t), np.array([1, 2], dtype=np.uint8))
    check(lambda L, t: L.bincount(t), np.zeros(0, dtype=np.int64))
    check(lambda L, t: L.bincount(t, minlength=3), np.zeros(0, dtype=np.int64))
    same_error(lambda L, t: L.bincount(t), axle.ValueError, np.array([-1, 2]))
    same_error(lambda L, t: L.bincount(t), axle.DTypeError, np.array([1.0]))
    same_error(lambda L, t: L.bincount(t), axle.ShapeError, np.array([[1]]))
    same_error(lambda L, t: L.bincount(t, minlength=-1), axle.ValueError, np.array([1]))
    same_error(lambda L, t, w: L.bincount(t, w), axle.ShapeError, np.array([1]), np.array([1.0, 2.0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histc_matches_torch(dtype):
    x = RNG.standard_normal(500).astype(dtype)
    for kw in ({}, {"bins": 7}, {"bins": 10, "min": -1, "max": 1}, {"bins": 4, "min": -0.5, "max": 0.25}):
        check(lambda L, t: L.histc(t, **kw), x)
        check(lambda L, t: t.histc(**kw), x)
    edges = np.array([0.0, 0.75, 1.5, 2.25, 3.0, -0.1, 3.1, 1.0, 2.0], dtype=dtype)
    check(lambda L, t: L.histc(t, bins=4, min=0, max=3), edges)
    check(lambda L, t: L.histc(t, bins=3, min=0, max=2), np.array([1.0, inf, -inf], dtype=dtype))
    check(lambda L, t: L.histc(t, bins=4), np.array([1.0, 1.0], dtype=dtype))
    check(lambda L, t: L.histc(t, bins=3), np.zeros(0, dtype=dtype))
    check(lambda L, t: L.histc(t, bins=5), (RNG.standard_normal((3, 4)) * 10).astype(dtype))
    same_error(lambda L, t: L.histc(t), axle.DTypeError, np.array([1, 2]))
    same_error(lambda L, t: L.histc(t, bins=0), axle.ValueError, np.array([1.0, 2.0], dtype=dtype))
    same_error(lambda L, t: L.histc(t, min=3, max=2), axle.ValueError, np.array([1.0, 2.0], dtype=dtype))
    same_error(lambda L, t: L.histc(t, bins=3), axle.ValueError, np.array([1.0, inf], dtype=dtype))


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_and_bucketize_match_torch(right):
    seq = np.sort(RNG.integers(-10, 10, size=13)).astype(np.float32)  # with repeats
    vals = np.concatenate([RNG.integers(-12, 12, size=30).astype(np.float32), [nan, -inf, inf, 0.5]])
    check(lambda L, s, v: L.searchsorted(s, v, right=right), seq, vals)
    check(lambda L, s, v: L.searchsorted(s, v, side="right" if right else "left"), seq, vals)
    check(lambda L, s, v: L.searchsorted(s, v, right=right, out_int32=True), seq, vals.reshape(2, 17))
    check(lambda L, s, v: L.bucketize(v, s, right=right), seq, vals.reshape(17, 2))
    check(lambda L, s, v: L.bucketize(v, s, right=right, out_int32=True), seq, vals)
    check(lambda L, s: L.searchsorted(s, 3, right=right), seq)
    check(lambda L, s: L.bucketize(3.5, s, right=right), seq)
    check(lambda L, s, v: L.searchsorted(s, v, right=right), np.array([1.0, 2.0, nan], dtype=np.float32),
          np.array([nan, 2.0, 0.0, 5.0], dtype=np.float32))
    nd = np.sort(RNG.standard_normal((3, 4, 9)), -1)
    check(lambda L, s, v: L.searchsorted(s, v, right=right), nd, RNG.standard_normal((3, 4, 5)))
    check(lambda L, s, v: L.searchsorted(s, v, right=right), nd, nd[..., ::2].copy())
    # a sorter, mixed dtypes, empty sequences and values
    unsorted = RNG.standard_normal(10)
    order = np.argsort(unsorted)
    check(lambda L, s, v, o: L.searchsorted(s, v, right=right, sorter=o), unsorted, unsorted[[3, 1]], order)
    check(lambda L, s, v: L.searchsorted(s, v, right=right), np.array([1.0, 2.0], dtype=np.float32),
          np.array([1, 2, 3]))
    check(lambda L, s, v: L.searchsorted(s, v, right=right), np.array([1, 2, 2, 5]),
          np.array([1.5, 2.0], dtype=np.float32))
    check(lambda L, s, v: L.searchsorted(s, v, right=right), np.zeros(0, dtype=np.float32),
          np.array([1.0], dtype=np.float32))
    check(lambda L, s, v: L.searchsorted(s, v, right=right), seq, np.zeros((2, 0), dtype=np.float32))


def test_searchsorted_errors():
    s = np.array([1.0, 2.0])
    same_error(lambda L, s, v: L.searchsorted(s, v), axle.ShapeError, np.array([[1.0, 2.0]]),
               np.array([[1.0, 2.0], [2.0, 3.0]]))
    same_error(lambda L, s, v: L.searchsorted(s, v, side="left", right=True), axle.ValueError, s, s)
    same_error(lambda L, s, v: L.searchsorted(s, v, side="foo"), axle.ValueError, s, s)
    same_error(lambda L, s, v: L.searchsorted(s, v), axle.ShapeError, np.array(2.0), s)
    same_error(lambda L, v, b: L.bucketize(v, b), axle.ShapeError, s, np.array([[1.0]]))


def test_isin_matches_torch():
    e = RNG.integers(0, 10, size=(4, 6))
    t = RNG.integers(0, 10, size=5)
    for kw in ({}, {"invert": True}, {"assume_unique": True}):
        check(lambda L, a, b: L.isin(a, b, **kw), e, t)
    check(lambda L, a, b: L.isin(a, b), np.array([1.0, nan, 2.5], dtype=np.float32),
          np.array([nan, 1.0], dtype=np.float32))
    check(lambda L, a: L.isin(a, 2), np.array([1, 2]))
    check(lambda L, b: L.isin(2, b), np.array([1, 2]))
    check(lambda L, a, b: L.isin(a, b), np.array([1, 2]), np.array([1.5, 2.0]))
    check(lambda L, a, b: L.isin(a, b), np.array([1, 2]), np.zeros(0, dtype=np.int64))
    check(lambda L, a, b: L.isin(a, b, invert=True), np.zeros((0, 2)), np.array([1.0]))


# ---------------------------------------------------------------- pointwise
def test_addcmul_addcdiv_match_torch():
    a, b, c = (data((3, 4), np.float32) for _ in range(3))
    c[c == 0] = 1
    for value in (1, 0.5, -2.25):
        check(lambda L, x, y, z: L.addcmul(x, y, z, value=value), a, b, c, rtol=1e-6)
        check(lambda L, x, y, z: L.addcdiv(x, y, z, value=value), a, b, c, rtol=1e-6)
        check(lambda L, x, y, z: x.addcmul(y, z[0], value=value), a, b, c, rtol=1e-6)
    check(lambda L, x, y, z: L.addcmul(x, y, z, value=2.7), np.array([1, 2]), np.array([1, 2]), np.array([1, 2]))
    check(lambda L, x, y, z: L.addcmul(x, y, z, value=2), np.array([1, 2]), np.array([1.0, 2.0],
                                                                                     dtype=np.float32),
          np.array([1, 2]))
    check(lambda L, x, y, z: L.addcdiv(x, y, z), np.array([1, 2]), np.array([1.0, 2.0], dtype=np.float32),
          np.array([3, 2]))
    check(lambda L, x, y, z: L.addcmul(x, y, z), a.astype(np.float64), b, c, rtol=1e-12)
    same_error(lambda L, x, y, z: L.addcdiv(x, y, z), axle.DTypeError, np.array([1.0]), np.array([1]), np.array([2]))

    def in_place(L, x, y, z):
        r = x.addcmul_(y, z, value=0.5)
        assert r is x
        return x.addcdiv_(y, z, value=2)
    check(in_place, a, b, c, rtol=1e-5)
    with pytest.raises(axle.DTypeError):
        axle.tensor([1, 2]).addcmul_(axle.tensor([1.5, 2.0]), axle.tensor([1.0, 1.0]))
    grads(lambda L, x, y, z: L.addcmul(x, y, z, value=0.5) + L.addcdiv(x, y, z, value=3), a, b, c)


@pytest.mark.parametrize("fn", ["logaddexp", "logaddexp2"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logaddexp_matches_torch(fn, dtype):
    a, b = (RNG.standard_normal((5, 6)) * 20).astype(dtype), (RNG.standard_normal((5, 6)) * 20).astype(dtype)
    check(lambda L, x, y: getattr(L, fn)(x, y), a, b, rtol=1e-6 if dtype == np.float32 else 1e-13)
    check(lambda L, x, y: getattr(x, fn)(y), a, b[0], rtol=1e-6 if dtype == np.float32 else 1e-13)
    sp = np.array([inf, -inf, 1.0, nan, inf, -inf, 1000.0, -1000.0], dtype=dtype)
    sq = np.array([inf, -inf, 2.0, 1.0, -inf, 5.0, 1000.0, -1000.0], dtype=dtype)
    check(lambda L, x, y: getattr(L, fn)(x, y), sp, sq, rtol=1e-6)
    check(lambda L, x, y: getattr(L, fn)(x, y), a, b.astype(np.float64), rtol=1e-6)
    same_error(lambda L, x, y: getattr(L, fn)(x, y), axle.DTypeError, np.array([1]), np.array([2]))
    grads(lambda L, x, y: getattr(L, fn)(x, y), a, b)
    grads(lambda L, x, y: getattr(L, fn)(x, y), np.array([1.0, 3.0]), np.array([1.0, -2.0]))


def test_xlogy_matches_torch():
    x = np.array([0.0, 1.0, 2.0, 0.0, -1.5, 0.0, 3.0, nan, 0.0], dtype=np.float32)
    y = np.array([0.0, 2.0, 3.0, nan, 0.5, inf, 0.0, 1.0, -1.0], dtype=np.float32)
    check(lambda L, a, b: L.xlogy(a, b), x, y)
    check(lambda L, a, b: a.xlogy(b), x, y)
    check(lambda L, a, b: L.xlogy(a, b), np.array([0, 1, 2]), np.array([0, 2, 3]))
    check(lambda L, b: L.xlogy(2, b), y)
    check(lambda L, a: L.xlogy(a, 3), x)
    check(lambda L, a: L.xlogy(a, 3), x.astype(np.float64))
    check(lambda L, a, b: L.xlogy(a, b), np.array([True, False]), np.array([True, True]))
    check(lambda L, a, b: L.xlogy(a, b), x[:, None], y[None, :4])
    check(lambda L, a, b: a.xlogy_(b), x.copy(), y)
    grads(lambda L, a, b: L.xlogy(a, b), np.array([0.0, 1.0, 2.0, 0.5, 0.0]), np.array([1.5, 2.0, 3.0, 0.25, 0.0]))


def test_hypot_copysign_heaviside_match_torch():
    a = np.array([3.0, inf, -inf, nan, 0.0, 1e30, 1e-30, -5.0, nan, 0.0], dtype=np.float32)
    b = np.array([4.0, nan, 1.0, inf, 0.0, 1e30, 1e-30, 12.0, 1.0, -0.0], dtype=np.float32)
    check(lambda L, x, y: L.hypot(x, y), a, b)
    check(lambda L, x, y: L.hypot(x, y), a.astype(np.float64), b.astype(np.float64), rtol=1e-15)
    big = np.array([1e300, 1e-300, 3e-320, 1.5, 2.0 ** 600], dtype=np.float64)
    check(lambda L, x, y: L.hypot(x, y), big, big[::-1].copy(), rtol=1e-15)
    r1, r2 = RNG.standard_normal(200) * 1e3, RNG.standard_normal(200)
    check(lambda L, x, y: L.hypot(x, y), r1, r2, rtol=2.3e-16)
    check(lambda L, x, y: x.hypot(y), r1.astype(np.float32), r2.astype(np.float32))
    check(lambda L, x, y: L.hypot(x, y), r1.astype(np.float32), r2)
    same_error(lambda L, x, y: L.hypot(x, y), axle.DTypeError, np.array([3]), np.array([4]))
    same_error(lambda L, x: L.hypot(x, 4), axle.TypeError, np.array([3.0]))
    grads(lambda L, x, y: L.hypot(x, y), r1[:5], r2[:5])

    c = np.array([1.0, -2.0, 0.0, -0.0, inf, nan, 3.0, -nan], dtype=np.float32)
    d = np.array([-0.0, 0.0, -1.0, 1.0, -inf, -1.0, nan, 2.0], dtype=np.float32)
    check(lambda L, x, y: L.copysign(x, y), c, d)
    check(lambda L, x, y: L.signbit(L.copysign(x, y)), c, d)
    check(lambda L, x, y: L.copysign(x, y), np.array([1, 2]), np.array([-0.0, 1.0], dtype=np.float32))
    check(lambda L, x: L.copysign(x, -1), np.array([1, 2]))
    check(lambda L, x: x.copysign(-0.0), c)
    check(lambda L, x, y: L.copysign(x, y), c, np.array([-1], dtype=np.int32))
    check(lambda L, x, y: L.copysign(x, y), np.array([1, 2]), np.array([-1, 1]))
    check(lambda L, x, y: L.copysign(x, y), c[:, None], d[None, :3])
    grads(lambda L, x, y: L.copysign(x, y), np.array([1.5, -2.0, 3.0]), np.array([-1.0, -2.0, 0.5]))

    check(lambda L, x, y: L.heaviside(x, y), np.array([-1.0, 0.0, 2.0, nan], dtype=np.float32),
          np.array([0.5], dtype=np.float32))
    check(lambda L, x, y: x.heaviside(y), np.array([-1, 0, 3]), np.array([7]))
    same_error(lambda L, x, y: L.heaviside(x, y), axle.DTypeError, np.array([1, 0]),
               np.array([0.5], dtype=np.float32))


def test_float_power_signbit_and_inf_tests_match_torch():
    x = data((3, 4), np.float32)
    check(lambda L, a: L.float_power(a, 2), np.array([2, 3]))
    check(lambda L, a: L.float_power(a, 0.5), np.abs(x))
    check(lambda L, b: L.float_power(2, b), x)
    check(lambda L, a, b: L.float_power(a, b), np.abs(x), x)
    check(lambda L, a, b: a.float_power(b), np.abs(x), np.array([1, 2, 3, 4]))
    check(lambda L, a: a.float_power_(2), np.array([2.0, 3.0]))
    same_error(lambda L, a: a.float_power_(2), axle.DTypeError, np.array([2.0], dtype=np.float32))

    s = np.array([-0.0, 0.0, -nan, nan, -1.0, 1.0, -inf, inf], dtype=np.float32)
    for arr in (s, s.astype(np.float64), np.array([-1, 0, 2]), np.array([True]), np.array([1], dtype=np.uint8),
                s.astype(np.float16), np.array(-0.0, dtype=np.float32)):
        check(lambda L, a: L.signbit(a), arr)
        check(lambda L, a: a.signbit(), arr)
        for fn in ("isneginf", "isposinf", "isreal"):
            check(lambda L, a: getattr(L, fn)(a), arr)


def test_sinc_ldexp_match_torch():
    x = np.array([0.0, 0.5, 1.0, -2.5, inf, nan, 1e-8, -0.0, 3.3], dtype=np.float32)
    check(lambda L, a: L.sinc(a), x, rtol=2e-6, atol=1e-7)
    check(lambda L, a: a.sinc(), x.astype(np.float64), rtol=1e-13, atol=1e-16)
    check(lambda L, a: L.sinc(a), np.array([0, 1, 2]), atol=1e-7)
    check(lambda L, a: a.sinc_(), x.copy(), rtol=2e-6, atol=1e-7)
    grads(lambda L, a: L.sinc(a), np.array([0.0, 0.5, 1.0, -2.5, 0.1]), rtol=1e-6)

    check(lambda L, a, b: L.ldexp(a, b), np.array([1.0, 2.0, -3.0], dtype=np.float32), np.array([3, -1, 10]))
    check(lambda L, a, b: L.ldexp(a, b), np.array([1, 2]), np.array([3, -1]))
    check(lambda L, a, b: L.ldexp(a, b), np.array([1.0]), np.array([200]))
    check(lambda L, a, b: L.ldexp(a, b), np.array([1.0]), np.array([2.0]))
    check(lambda L, a, b: a.ldexp(b), np.array([1.0, 0.5]), np.array([[2], [3]]))
    same_error(lambda L, a: L.ldexp(a, 2), axle.TypeError, np.array([1.0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_frexp_matches_torch(dtype):
    info = np.finfo(dtype)
    x = np.array([0.0, -0.0, 1.0, 8.0, -3.5, inf, -inf, nan, float(info.tiny), float(info.tiny) / 4,
                  float(info.smallest_subnormal), float(info.max), -float(info.max), 0.75, 1 - float(info.eps) / 2,
                  2 - float(info.eps)], dtype=dtype)
    scale = 4 if dtype == np.float16 else 30
    x = np.concatenate([x, (RNG.standard_normal(100) * 10.0 ** RNG.integers(-scale, scale, 100)).astype(dtype)])
    got, want = check(lambda L, a: L.frexp(a), x, rtol=0)
    assert type(got).__name__ == "frexp" and got._fields == ("mantissa", "exponent")
    check(lambda L, a: a.frexp(), x, rtol=0)
    same_error(lambda L, a: L.frexp(a), axle.DTypeError, np.array([1, 2]))
    grads(lambda L, a: L.frexp(a).mantissa, np.array([3.0, -0.1, 1024.5]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nextafter_matches_torch(dtype):
    info = np.finfo(dtype)
    tiny, sub, big = float(info.tiny), float(info.smallest_subnormal), float(info.max)
    x = np.array([0.0, 1.0, 1.0, -0.0, inf, nan, 1.0, -inf, big, -big, tiny, tiny, sub, -sub, 0.5, 0.5, -2.0, -2.0,
                  3.0, 0.0, 2 * sub, 1e-3], dtype=dtype)
    y = np.array([1.0, 2.0, 0.0, -1.0, 0.0, 1.0, nan, 0.0, inf, -inf, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, -3.0,
                  3.0, -0.0, 0.0, -1e-3], dtype=dtype)
    check(lambda L, a, b: L.nextafter(a, b), x, y, rtol=0)
    check(lambda L, a, b: L.signbit(L.nextafter(a, b)), x, y)
    r = (RNG.standard_normal(200) * 10.0 ** RNG.integers(-35, 35, 200)).astype(dtype)
    check(lambda L, a, b: a.nextafter(b), r, -r[::-1].copy(), rtol=0)
    with np.errstate(over="ignore"):
        check(lambda L, a, b: L.nextafter(a, b), x.astype(np.float32), y.astype(np.float64), rtol=0)
    same_error(lambda L, a, b: L.nextafter(a, b), axle.DTypeError, np.array([1]), np.array([2]))


def test_logspace_matches_torch():
    for args, kw in [((0, 2, 3), {}), ((0, 2, 3), {"base": 2, "dtype": "int64"}), ((0, 1, 1), {}),
                     ((0, 1, 0), {}), ((-1, 1, 4), {"dtype": "float64"}), ((-3.5, 2.25, 11), {"base": 3.0}),
                     ((2, -2, 9), {"base": 0.5, "dtype": "float64"}), ((0, 10, 11), {"base": 2, "dtype": "int32"})]:
        got, want = both(lambda L: L.logspace(*args, **{k: getattr(L, v) if k == "dtype" else v
                                                        for k, v in kw.items()}))
        same(got, want, rtol=1e-6)
    same_error(lambda L: L.logspace(0, 1, -1), axle.ValueError)


def test_trapezoid_rules_match_torch():
    y = data((4, 7), np.float32)
    x = np.sort(data(7, np.float32))
    xs = np.sort(data((4, 7), np.float32), axis=1)
    for dim in (-1, 1):
        check(lambda L, a: L.trapezoid(a, dim=dim), y, rtol=1e-5)
        check(lambda L, a: L.trapezoid(a, dx=0.5, dim=dim), y, rtol=1e-5)
        check(lambda L, a, b: L.trapezoid(a, b, dim=dim), y, x, rtol=1e-5)
        check(lambda L, a, b: L.trapezoid(a, b, dim=dim), y, xs, rtol=1e-5)
        check(lambda L, a: L.cumulative_trapezoid(a, dim=dim), y, rtol=1e-5)
        check(lambda L, a: L.cumulative_trapezoid(a, dx=2, dim=dim), y, rtol=1e-5)
        check(lambda L, a, b: L.cumulative_trapezoid(a, b, dim=dim), y, x, rtol=1e-5, atol=1e-6)
        check(lambda L, a, b: L.cumulative_trapezoid(a, b, dim=dim), y, xs, rtol=1e-5, atol=1e-6)
    check(lambda L, a, b: L.trapezoid(a, b, dim=0), y, x[:4].copy(), rtol=1e-5)
    check(lambda L, a: L.trapz(a, dx=3), y, rtol=1e-5)
    check(lambda L, a, b: L.trapz(a, b), y, x, rtol=1e-5)
    check(lambda L, a: L.trapz(a), y, rtol=1e-5)
    for arr in (np.array([1, 2, 4]), np.array([1, 2], dtype=np.int32), np.zeros((2, 0), dtype=np.float32),
                np.zeros((3, 1), dtype=np.float32), np.zeros((3, 0), dtype=np.float32)):
        check(lambda L, a: L.trapezoid(a), arr)
        check(lambda L, a: L.trapezoid(a, dx=2), arr)
        check(lambda L, a: L.cumulative_trapezoid(a), arr)
    check(lambda L, a, b: L.trapezoid(a, b), np.array([1, 2, 4]), np.array([1, 2, 5]))
    check(lambda L, a, b: L.trapezoid(a, b), np.ones((3, 1), dtype=np.float32), np.ones((3, 1), dtype=np.float32))
    same_error(lambda L, a: L.trapezoid(a), axle.IndexError, np.array(1.0))
    same_error(lambda L, a, b: L.trapezoid(a, b), axle.ShapeError, np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0]))
    same_error(lambda L, a: L.trapezoid(a), axle.DTypeError, np.array([True, True]))
    grads(lambda L, a, b: L.trapezoid(a, b) + L.cumulative_trapezoid(a, b).sum(-1), data((2, 5), np.float64),
          np.sort(data(5, np.float64)))


# ---------------------------------------------------------------- linalg
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_norm_matches_torch(dtype):
    x = data((3, 4, 5), dtype)
    x[0, 0, :2] = 0
    for ord in (2, 1, 0, inf, -inf, 3, -1, 0.5, 2.5):
        for dim in (None, 0, -1, (0, 2), [1, 2]):
            for keepdim in (False, True):
                check(lambda L, a: L.linalg.vector_norm(a, ord, dim, keepdim), x, rtol=2e-5, atol=1e-6)
    check(lambda L, a: L.linalg.vector_norm(a, dtype=L.float64), x)
    check(lambda L, a: L.linalg.vector_norm(a), np.array(3.0, dtype=dtype))
    check(lambda L, a: L.linalg.vector_norm(a), np.zeros(0, dtype=dtype))
    check(lambda L, a: L.linalg.vector_norm(a, -inf, dim=1), np.zeros((0, 2), dtype=dtype))
    same_error(lambda L, a: L.linalg.vector_norm(a), axle.DTypeError, np.array([1, 2]))
    same_error(lambda L, a: L.linalg.vector_norm(a, dtype=L.int64), axle.DTypeError, x)
    same_error(lambda L, a: L.linalg.vector_norm(a, dtype=L.float16), axle.DTypeError, x.astype(np.float32))
    same_error(lambda L, a: L.linalg.vector_norm(a, inf), axle.ValueError, np.zeros(0, dtype=dtype))
    same_error(lambda L, a: L.linalg.vector_norm(a, -inf, dim=0), axle.ValueError, np.zeros((0, 2), dtype=dtype))
    same_error(lambda L, a: L.linalg.vector_norm(a, 2, (0, 0)), axle.ValueError, x)
    same_error(lambda L, a: L.linalg.vector_norm(a, "fro"), axle.TypeError, x)
    for ord in (2, 1, inf, 3):
        grads(lambda L, a: L.linalg.vector_norm(a, ord, 1), data((3, 4), np.float64))
    grads(lambda L, a: L.linalg.vector_norm(a), np.zeros((2, 2)))


def test_matrix_norm_and_norm_match_torch():
    x = data((2, 3, 4), np.float32)
    for ord in ("fro", 1, -1, inf, -inf):
        for dim in ((-2, -1), (0, 2), (2, 1)):
            for keepdim in (False, True):
                check(lambda L, a: L.linalg.matrix_norm(a, ord, dim, keepdim), x, rtol=1e-5)
        grads(lambda L, a: L.linalg.matrix_norm(a, ord), data((3, 4), np.float64))
    m = x[0].copy()
    for ord in (None, "fro", 1, -1, inf, -inf):
        check(lambda L, a: L.linalg.norm(a, ord), m, rtol=1e-5)
        check(lambda L, a: L.linalg.norm(a, ord, dim=(1, 0), keepdim=True), m, rtol=1e-5)
    for ord in (None, 1, 0, inf, 3):
        check(lambda L, a: L.linalg.norm(a, ord), m[0], rtol=1e-5)
        check(lambda L, a: L.linalg.norm(a, ord, dim=1), x, rtol=1e-5)
    check(lambda L, a: L.linalg.norm(a), x, rtol=1e-5)
    check(lambda L, a: L.linalg.norm(a, dtype=L.float64), x, rtol=1e-6)
    check(lambda L, a: L.linalg.matrix_norm(a, 1), np.zeros((0, 2), dtype=np.float32))
    same_error(lambda L, a: L.linalg.matrix_norm(a, 3), axle.ValueError, m)
    same_error(lambda L, a: L.linalg.matrix_norm(a, "foo"), axle.ValueError, m)
    same_error(lambda L, a: L.linalg.matrix_norm(a), axle.ShapeError, m[0])
    same_error(lambda L, a: L.linalg.matrix_norm(a, dim=(0, 0)), axle.ValueError, m)
    same_error(lambda L, a: L.linalg.matrix_norm(a, dim=(0,)), axle.ValueError, m)
    same_error(lambda L, a: L.linalg.matrix_norm(a), axle.DTypeError, np.ones((2, 2), dtype=np.int64))
    same_error(lambda L, a: L.linalg.norm(a, 1), axle.ValueError, x)
    same_error(lambda L, a: L.linalg.norm(a, "fro", dim=1), axle.ValueError, m)
    same_error(lambda L, a: L.linalg.norm(a, 2, dim=(0, 1, 2)), axle.ValueError, x)
    for ord in ("nuc", 2, -2):  # from the singular values (the linalg family's SVD)
        for dim in ((-2, -1), (0, 2), (2, 1)):
            check(lambda L, a: L.linalg.matrix_norm(a, ord, dim, True), x, rtol=1e-5)
        check(lambda L, a: L.linalg.norm(a, ord), m, rtol=1e-5)
        grads(lambda L, a: L.linalg.matrix_norm(a, ord), data((3, 4), np.float64))
    import axle.linalg as linalg_module
    assert linalg_module is axle.linalg
    check(lambda L, a, b: L.linalg.vecdot(a, b), x, m[0], rtol=1e-5)
    check(lambda L, a, b: L.linalg.vecdot(a, b, dim=1), x, x[:, :, :1].copy(), rtol=1e-5)


def test_cdist_pdist_vdot_match_torch():
    a, b = data((5, 3), np.float32), data((4, 3), np.float32)
    for p in (2.0, 1.0, 0.0, inf, 3.0, 0.5):
        check(lambda L, x, y: L.cdist(x, y, p), a, b, rtol=1e-5, atol=1e-6)
        check(lambda L, x: L.pdist(x, p), a, rtol=1e-5, atol=1e-6)
    check(lambda L, x, y: L.cdist(x, y), data((2, 5, 3), np.float64), data((2, 4, 3), np.float64), rtol=1e-12)
    check(lambda L, x, y: L.cdist(x, y), data((2, 1, 5, 3), np.float64), data((3, 4, 3), np.float64), rtol=1e-12)
    check(lambda L, x, y: L.cdist(x, y), np.zeros((2, 0, 3), dtype=np.float32), np.zeros((1, 4, 3), dtype=np.float32))
    check(lambda L, x: L.pdist(x), np.zeros((1, 2), dtype=np.float32))
    check(lambda L, x: L.pdist(x), np.zeros((0, 2), dtype=np.float32))
    same_error(lambda L, x, y: L.cdist(x, y), axle.ShapeError, np.zeros(3), np.zeros(3))
    same_error(lambda L, x, y: L.cdist(x, y), axle.ShapeError, np.zeros((2, 3)), np.zeros((2, 4)))
    same_error(lambda L, x, y: L.cdist(x, y, -1), axle.ValueError, np.zeros((2, 3)), np.zeros((2, 3)))
    same_error(lambda L, x, y: L.cdist(x, y), axle.DTypeError, np.zeros((2, 3), dtype=np.int64),
               np.zeros((2, 3), dtype=np.int64))
    same_error(lambda L, x, y: L.cdist(x, y), axle.DTypeError, np.zeros((2, 3), dtype=np.float32),
               np.zeros((2, 3)))
    same_error(lambda L, x: L.pdist(x), axle.ShapeError, np.zeros(3))
    same_error(lambda L, x: L.pdist(x, -1), axle.ValueError, np.zeros((3, 2)))
    same_error(lambda L, x: L.pdist(x), axle.DTypeError, np.zeros((2, 2), dtype=np.int64))
    x = data((4, 3), np.float64)
    x[2] = x[0]  # a zero distance: a zero gradient, as torch
    grads(lambda L, p, q: L.cdist(p, q), x, data((3, 3), np.float64))
    grads(lambda L, p: L.pdist(p), x)
    grads(lambda L, p: L.pdist(p, 1), data((4, 3), np.float64))
    check(lambda L, p, q: L.vdot(p, q), a[0], b[0], rtol=1e-6)
    check(lambda L, p, q: p.vdot(q), a[0].astype(np.float64), b[0].astype(np.float64), rtol=1e-12)
    same_error(lambda L, p, q: L.vdot(p, q), axle.ShapeError, np.ones((2, 2)), np.ones((2, 2)))
    same_error(lambda L, p, q: L.vdot(p, q), axle.DTypeError, np.ones(2, dtype=np.float32), np.ones(2, dtype=np.int64))


# ---------------------------------------------------------------- random
def test_randperm_is_a_uniform_permutation_and_repeats():
    g = axle.Generator()
    g.manual_seed(7)
    p = axle.randperm(1000, generator=g)
    assert p.dtype == axle.int64 and sorted(p.tolist()) == list(range(1000))
    g.manual_seed(7)
    assert axle.randperm(1000, generator=g).tolist() == p.tolist()
    assert axle.randperm(5, dtype=axle.int32).dtype == axle.int32
    assert axle.randperm(0).tolist() == []
    # position of element 0 over many draws: uniform over 5 places (chi-square, 4 dof)
    axle.manual_seed(3)
    counts = np.zeros(5)
    for _ in range(2000):
        counts[axle.randperm(5).tolist().index(0)] += 1
    chi2 = ((counts - 400) ** 2 / 400).sum()
    assert chi2 < 25, counts
    with pytest.raises(axle.ValueError):
        axle.randperm(-1)


def test_randint_like():
    x = axle.zeros(2000, dtype=axle.float64)
    r = axle.randint_like(x, 5)
    assert r.dtype == axle.float64 and tuple(r.shape) == (2000,)
    vals = np.asarray(r)
    assert set(np.unique(vals)) == {0, 1, 2, 3, 4}
    r2 = axle.randint_like(axle.zeros((3, 4), dtype=axle.int32), 3, 5)
    assert r2.dtype == axle.int32 and set(np.unique(np.asarray(r2))) <= {3, 4}
    assert axle.randint_like(x, 3, 5, dtype=axle.int64).dtype == axle.int64
    same_error(lambda L, t: L.randint_like(t, 5, 3), axle.ValueError, np.zeros(2))


def test_bernoulli_frequencies_and_errors():
    g = axle.Generator()
    g.manual_seed(11)
    p = axle.tensor([0.0, 0.1, 0.5, 0.9, 1.0]).expand(20000, 5).contiguous()
    draw = axle.bernoulli(p, generator=g)
    assert draw.dtype == axle.float32 and tuple(draw.shape) == (20000, 5)
    freq = np.asarray(draw).mean(0)
    np.testing.assert_allclose(freq, [0.0, 0.1, 0.5, 0.9, 1.0], atol=0.02)
    assert freq[0] == 0 and freq[-1] == 1
    g.manual_seed(11)
    assert axle.equal(axle.bernoulli(p, generator=g), draw)
    half = axle.bernoulli(axle.zeros(20000, dtype=axle.float64), 0.3)
    assert half.dtype == axle.float64 and abs(float(half.mean()) - 0.3) < 0.02
    t = axle.zeros(20000, dtype=axle.int64)
    assert t.bernoulli_(0.25) is t and abs(float(t.double().mean()) - 0.25) < 0.02
    u = axle.zeros(2, 10000)
    u.bernoulli_(axle.tensor([[0.2], [0.8]]))
    np.testing.assert_allclose(np.asarray(u).mean(1), [0.2, 0.8], atol=0.02)
    assert float(axle.tensor([0.7]).bernoulli(0.0).item()) == 0.0
    same_error(lambda L, t: L.bernoulli(t), axle.ValueError, np.array([1.5], dtype=np.float32))
    same_error(lambda L, t: L.bernoulli(t), axle.ValueError, np.array([nan], dtype=np.float32))
    same_error(lambda L, t: L.bernoulli(t, p=2.0), axle.ValueError, np.array([0.5], dtype=np.float32))
    same_error(lambda L, t: t.bernoulli_(1.5), axle.ValueError, np.zeros(2, dtype=np.float32))
    same_error(lambda L, t: L.bernoulli(t), axle.DTypeError, np.array([1, 0]))


def test_multinomial_frequencies_and_errors():
    w = axle.tensor([[1.0, 0.0, 3.0, 6.0], [0.0, 0.0, 5.0, 5.0]])
    g = axle.Generator()
    g.manual_seed(5)
    s = axle.multinomial(w, 20000, True, generator=g)
    assert s.dtype == axle.int64 and tuple(s.shape) == (2, 20000)
    counts = np.stack([np.bincount(np.asarray(row), minlength=4) for row in s.tolist()]) / 20000
    np.testing.assert_allclose(counts, [[0.1, 0.0, 0.3, 0.6], [0.0, 0.0, 0.5, 0.5]], atol=0.015)
    assert counts[0, 1] == 0 and counts[1, :2].sum() == 0
    g.manual_seed(5)
    assert axle.equal(axle.multinomial(w, 20000, True, generator=g), s)
    # without replacement: distinct categories; the first draw follows the weights, the
    # second the weights of the rest renormalised
    first = np.zeros(4)
    second = np.zeros(4)
    axle.manual_seed(9)
    wts = axle.tensor([1.0, 2.0, 3.0, 4.0]).expand(4000, 4).contiguous()
    draws = np.asarray(axle.multinomial(wts, 4))
    assert all(sorted(r) == [0, 1, 2, 3] for r in draws.tolist())
    for r in draws.tolist():
        first[r[0]] += 1
        if r[0] == 3:
            second[r[1]] += 1
    np.testing.assert_allclose(first / 4000, [0.1, 0.2, 0.3, 0.4], atol=0.025)
    np.testing.assert_allclose(second / second.sum(), [1 / 6, 2 / 6, 3 / 6, 0], atol=0.04)
    one = axle.multinomial(axle.tensor([0.0, 2.0, 0.0]), 1)
    assert tuple(one.shape) == (1,) and one.tolist() == [1]
    check(lambda L, t: L.multinomial(t, 2), np.array([1.0, 0.0], dtype=np.float32))  # zero weights come last
    assert tuple(axle.multinomial(axle.zeros(0, 3), 1).shape) == (0, 1)
    for arr, n, kind in [(np.array([0.0, 0.0]), 1, axle.ValueError), (np.array([-1.0, 2.0]), 1, axle.ValueError),
                         (np.array([nan, 2.0]), 1, axle.ValueError), (np.array([inf, 2.0]), 1, axle.ValueError),
                         (np.array([1.0, 2.0]), 3, axle.ValueError), (np.ones((2, 2, 2)), 1, axle.ShapeError),
                         (np.array([1, 2]), 1, axle.DTypeError), (np.array([1.0, 2.0]), 0, axle.ValueError),
                         (np.array([[1.0, 0.0], [0.0, 0.0]]), 1, axle.ValueError)]:
        same_error(lambda L, t: L.multinomial(t, n), kind, arr.astype(np.float32) if arr.dtype.kind == "f" else arr)
    # With replacement torch names the first bad entry's kind (NaN counts as < 0).
    for arr in (np.array([1.0, -1.0, inf]), np.array([1.0, inf, -1.0]), np.array([nan, 1.0]),
                np.array([[1.0, 2.0], [2.0, inf]]), np.array([0.0, 0.0])):
        same_error(lambda L, t: L.multinomial(t, 2, True), axle.ValueError, arr)


def test_normal_overloads_and_distribution():
    g = axle.Generator()
    g.manual_seed(21)
    a = axle.normal(2.0, 3.0, (40000,), generator=g)
    assert a.dtype == axle.float32
    v = np.asarray(a)
    assert abs(v.mean() - 2.0) < 0.06 and abs(v.std() - 3.0) < 0.06
    g.manual_seed(21)
    assert axle.equal(axle.normal(2.0, 3.0, size=(40000,), generator=g), a)
    mean = axle.tensor([0.0, 10.0, -5.0]).expand(20000, 3).contiguous()
    b = np.asarray(axle.normal(mean, 2.0))
    np.testing.assert_allclose(b.mean(0), [0, 10, -5], atol=0.06)
    np.testing.assert_allclose(b.std(0), [2, 2, 2], atol=0.06)
    std = axle.tensor([0.5, 1.0, 4.0], dtype=axle.float64).expand(20000, 3).contiguous()
    c = axle.normal(1.0, std)
    assert c.dtype == axle.float64
    np.testing.assert_allclose(np.asarray(c).std(0), [0.5, 1.0, 4.0], rtol=0.03)
    d = axle.normal(axle.zeros(20000, 1), axle.tensor([1.0, 3.0]))
    assert tuple(d.shape) == (20000, 2)
    np.testing.assert_allclose(np.asarray(d).std(0), [1.0, 3.0], rtol=0.03)
    assert axle.normal(axle.zeros(2, dtype=axle.float64), 1.0).dtype == axle.float64
    assert float(axle.normal(axle.tensor([4.0]), 0.0).item()) == 4.0
    same_error(lambda L, m, s: L.normal(m, s), axle.ValueError, np.zeros(2), np.array([-1.0, 1.0]))
    same_error(lambda L: L.normal(0.0, -1.0, (2,)), axle.ValueError)
    same_error(lambda L, m: L.normal(m, -1.0), axle.ValueError, np.zeros(2))
    same_error(lambda L, m, s: L.normal(m, s), axle.ShapeError, np.zeros(2), np.ones(3))
    same_error(lambda L, m: L.normal(m, 1.0), axle.DTypeError, np.zeros(2, dtype=np.int64))


# ---------------------------------------------------------------- misc
DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]


def test_result_type_and_can_cast_match_torch():
    samples = {"f": np.array([1.5], dtype=np.float32), "d": np.array(2.0), "i": np.array([1, 2]),
               "u": np.array([1], dtype=np.uint8), "b": np.array([True]), "h": np.array([1.0], dtype=np.float16),
               "i0": np.array(3, dtype=np.int32), "b0": np.array(True)}
    operands = list(samples.values()) + [1, 2.5, True, 1000]
    for x in operands:
        for y in operands:
            if not isinstance(x, np.ndarray) and not isinstance(y, np.ndarray):
                got, want = both(lambda L: L.result_type(x, y))
            else:
                got, want = both(lambda L, p, q: L.result_type(p, q), x, y)
            assert dtype_name(got) == dtype_name(want), (x, y, got, want)
    for a in DTYPES:
        for b in DTYPES:
            assert axle.can_cast(getattr(axle, a), getattr(axle, b)) == torch.can_cast(getattr(torch, a),
                                                                                    getattr(torch, b)), (a, b)


def test_is_helpers_match_torch():
    for arr in (np.array([0.5]), np.array([[0]]), np.array(nan), np.array([False])):
        check(lambda L, t: L.is_nonzero(t), arr)
        check(lambda L, t: t.is_nonzero(), arr)
    same_error(lambda L, t: L.is_nonzero(t), axle.ValueError, np.zeros(0))
    same_error(lambda L, t: L.is_nonzero(t), axle.ValueError, np.zeros(2))
    check(lambda L, a, b: L.is_same_size(a, b), np.zeros(2), np.zeros((2, 1)))
    check(lambda L, a, b: a.is_same_size(b), np.zeros((2, 1)), np.ones((2, 1)))
    for name in DTYPES:
        got, want = both(lambda L: L.is_signed(L.zeros(1, dtype=getattr(L, name))))
        assert got == want, name
        got, want = both(lambda L: L.zeros(1, dtype=getattr(L, name)).is_signed())
        assert got == want, name


def test_scalar_tensor_as_tensor_asarray():
    for s, kw in [(3, {}), (True, {}), (2.5, {}), (2, {"dtype": "int64"}), (1.25, {"dtype": "float64"})]:
        got, want = both(lambda L: L.scalar_tensor(s, **{k: getattr(L, v) for k, v in kw.items()}))
        same(got, want)
    assert axle.scalar_tensor(1.0, requires_grad=True).requires_grad
    a = np.arange(6.0).reshape(2, 3)
    t = axle.as_tensor(a)
    a[0, 0] = 42.0  # the memory is shared, as torch.as_tensor
    assert t.dtype == axle.float64 and float(t[0, 0].item()) == 42.0
    c = axle.as_tensor(a, dtype=axle.float32)
    a[0, 1] = -1.0
    assert float(c[0, 1].item()) == 1.0  # a copy where the dtype changes
    x = axle.ones(3)
    assert axle.as_tensor(x) is x and axle.as_tensor(x, dtype=axle.float32) is x
    assert axle.as_tensor(x, dtype=axle.float64).dtype == axle.float64
    same(axle.as_tensor([1, 2, 3]), torch.as_tensor([1, 2, 3]))
    same(axle.as_tensor([[1.5, 2.0]], dtype=axle.float64), torch.as_tensor([[1.5, 2.0]], dtype=torch.float64))
    ro = np.arange(3.0)
    ro.flags.writeable = False
    assert axle.as_tensor(ro).tolist() == [0.0, 1.0, 2.0]

    b = np.arange(4, dtype=np.int32)
    shared = axle.asarray(b)
    b[1] = 9
    assert shared.tolist() == [0, 9, 2, 3]
    copied = axle.asarray(b, copy=True)
    b[2] = 7
    assert copied.tolist() == [0, 9, 2, 3]
    assert axle.asarray(x) is x
    y = axle.asarray(x, copy=True)
    assert y is not x and y.tolist() == x.tolist()
    assert axle.asarray(x, dtype=axle.int64).dtype == axle.int64
    with pytest.raises(axle.ValueError):
        axle.asarray(x, dtype=axle.int64, copy=False)
    same(axle.asarray([[1, 2]], dtype=axle.float32), torch.asarray([[1, 2]], dtype=torch.float32))
    same(axle.asarray(3.5), torch.asarray(3.5))
    assert axle.asarray([1.0, 2.0], requires_grad=True).requires_grad


def test_thread_count():
    n = axle.get_num_threads()
    assert isinstance(n, int) and n >= 1
    axle.set_num_threads(n)  # the configured count: nothing to change
    with pytest.raises(axle.NotImplementedError, match="cpu.threads"):
        axle.set_num_threads(n + 1)
    with pytest.raises(axle.ValueError):
        axle.set_num_threads(0)


def test_existing_ops_are_not_replaced_and_methods_exist():
    import importlib

    from axle import _composites_math as mod

    before = axle.count_nonzero
    mod.install(axle)  # a second install changes nothing that is there
    assert axle.count_nonzero is before
    importlib.reload(mod)
    for name in ("kthvalue", "median", "nanmedian", "mode", "quantile", "nanquantile", "nansum", "nanmean",
                 "aminmax", "logcumsumexp", "bincount", "histc", "addcmul", "addcdiv", "addcmul_", "addcdiv_",
                 "logaddexp", "logaddexp2", "xlogy", "xlogy_", "hypot", "hypot_", "copysign", "copysign_",
                 "heaviside", "float_power", "float_power_", "signbit", "isneginf", "isposinf", "isreal", "sinc",
                 "sinc_", "ldexp", "ldexp_", "frexp", "nextafter", "nextafter_", "bernoulli", "bernoulli_",
                 "multinomial", "is_nonzero", "is_same_size", "is_signed", "vdot"):
        assert hasattr(axle.Tensor, name), name
        assert hasattr(torch.Tensor, name), name


@pytest.mark.parametrize("shapes", [((0,), (0,)), ((), ()), ((3, 1), (4,)), ((), (2, 3)), ((2, 0, 3), (1, 3))])
@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.float64, np.float32), (np.float32, np.int64),
                                    (np.int32, np.float64)])
def test_binary_pointwise_shapes_and_dtypes_match_torch(shapes, dtypes):
    a, b = data(shapes[0], dtypes[0], special=True), data(shapes[1], dtypes[1], special=True)
    floats = all(np.dtype(d).kind == "f" for d in dtypes) or np.dtype(dtypes[0]).kind == "f" or \
        np.dtype(dtypes[1]).kind == "f"
    for fn in ("logaddexp", "logaddexp2", "xlogy", "hypot", "copysign", "float_power", "nextafter"):
        if fn == "nextafter" and not all(np.dtype(d).kind == "f" for d in dtypes):
            continue
        if fn in ("logaddexp", "logaddexp2", "hypot") and not floats:
            continue
        check(lambda L, x, y: getattr(L, fn)(x, y), a, b, rtol=1e-6)
    check(lambda L, x, y: L.addcmul(x, y, y, value=0.5), a, b, rtol=1e-6)
    if np.dtype(dtypes[1]).kind != "f":
        check(lambda L, x, y: L.ldexp(x, y), a, np.asarray(np.clip(b, -20, 20)), rtol=1e-6)
    check(lambda L, x, y: L.heaviside(x, y), a, np.asarray(np.nan_to_num(b, posinf=1, neginf=-1), dtype=dtypes[0]))


@pytest.mark.parametrize("shape", [(0,), (), (2, 0), (3, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_unary_pointwise_shapes_match_torch(shape, dtype):
    x = data(shape, dtype, special=True)
    for fn in ("sinc", "signbit", "isneginf", "isposinf", "isreal"):
        check(lambda L, a: getattr(L, fn)(a), x, rtol=2e-6, atol=1e-7)
    if dtype != np.int64:
        check(lambda L, a: L.frexp(a), x, rtol=0)
