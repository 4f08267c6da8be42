"""The reductions of dispatcher/src/ops/reduction.cpp through the Python API,
compared with torch 1.13 (values, shapes, dtypes; torch raising => axle raises):
the Python call forms (overload choice by arguments, keywords, Tensor methods)
the C++ samples do not cover."""
import math

import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")


def pair(a):
    a = np.asarray(a)
    return axle.from_numpy(a.copy()), torch.from_numpy(a.copy())


def same(got, want, rtol=1e-5, atol=1e-6):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, rtol, atol)
        return
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    np.testing.assert_allclose(np.asarray(got.to(axle.float64)), want.to(torch.float64).numpy(), rtol=rtol,
                               atol=atol, equal_nan=True)


def both(fa, ft, *arrays):
    """Runs fa on axle tensors and ft on torch tensors; both raise or both agree."""
    pa = [pair(a) for a in arrays]
    try:
        want = ft(*[t for _, t in pa])
    except Exception:  # noqa: BLE001 - torch raises RuntimeError and builtins
        with pytest.raises(axle.AxleError):
            fa(*[x for x, _ in pa])
        return
    same(fa(*[x for x, _ in pa]), want)


RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)
XI = RNG.integers(-5, 5, (3, 4)).astype(np.int32)
NANS = np.array([[1.0, np.nan, 3.0, 2.0], [0.5, 4.0, np.nan, np.nan]], dtype=np.float32)


@pytest.mark.parametrize("call", [
    lambda m, t: m.prod(t),
    lambda m, t: m.prod(t, 1),
    lambda m, t: m.prod(t, 1, keepdim=True, dtype=m.float64),
    lambda m, t: m.amax(t),
    lambda m, t: m.amax(t, (0, 2), True),
    lambda m, t: m.amin(t, dim=-1),
    lambda m, t: m.max(t),
    lambda m, t: m.max(t, 1),
    lambda m, t: m.max(t, dim=-1, keepdim=True),
    lambda m, t: m.min(t, 0),
    lambda m, t: m.max(t, t.transpose(0, 2).transpose(0, 2) * 0.5),
    lambda m, t: m.min(t, other=t[0]),
    lambda m, t: m.argmax(t),
    lambda m, t: m.argmax(t, 1, True),
    lambda m, t: m.argmin(t, dim=2),
    lambda m, t: m.var(t),
    lambda m, t: m.var(t, 1),
    lambda m, t: m.var(t, False),
    lambda m, t: m.var(t, (0, 2), keepdim=True),
    lambda m, t: m.var(t, dim=1, correction=0),
    lambda m, t: m.var(t, unbiased=False),
    lambda m, t: m.std(t),
    lambda m, t: m.std(t, 1, True, True),
    lambda m, t: m.std(t, dim=[0, 1], correction=2, keepdim=True),
    lambda m, t: m.norm(t),
    lambda m, t: m.norm(t, 1),
    lambda m, t: m.norm(t, p=1, dim=1, keepdim=True),
    lambda m, t: m.norm(t, float("inf"), dim=(0, 1)),
    lambda m, t: m.norm(t, "fro"),
    lambda m, t: m.norm(t, "fro", dim=(1, 2)),
    lambda m, t: m.norm(t, dim=1),
    lambda m, t: m.logsumexp(t, 1),
    lambda m, t: m.logsumexp(t, (0, 2), keepdim=True),
    lambda m, t: m.all(t),
    lambda m, t: m.any(t, 1),
    lambda m, t: m.cumsum(t, 1),
    lambda m, t: m.cumsum(t, dim=-1, dtype=m.float64),
    lambda m, t: m.cumprod(t, 2),
    lambda m, t: m.count_nonzero(t),
    lambda m, t: m.count_nonzero(t, 1),
    lambda m, t: m.count_nonzero(t, dim=(0, 2)),
    lambda m, t: m.topk(t, 2),
    lambda m, t: m.topk(t, 3, dim=0, largest=False),
    lambda m, t: m.sort(t),
    lambda m, t: m.sort(t, 1, True),
    lambda m, t: m.sort(t, dim=0, descending=True, stable=True),
    lambda m, t: m.argsort(t),
    lambda m, t: m.argsort(t, dim=1, descending=True),
])
def test_functions_match_torch(call):
    both(lambda t: call(axle, t), lambda t: call(torch, t), X)


@pytest.mark.parametrize("call", [
    lambda t: t.sum(),  # keeps sum/mean working beside the new ops
    lambda t: t.mean(dim=(0, 2)),
    lambda t: t.max(),
    lambda t: t.max(1),
    lambda t: t.max(t[1]),
    lambda t: t.argmax(),
    lambda t: t.var(1),
    lambda t: t.norm(),
    lambda t: t.cumsum(0),
    lambda t: t.sort(descending=True),
    lambda t: t.topk(1),
    lambda t: t.transpose(0, 2).amax(1),
    lambda t: t.transpose(0, 2).cumprod(1),
])
def test_methods_match_torch(call):
    both(call, call, X)


@pytest.mark.parametrize("call", [
    lambda m, t: m.prod(t),
    lambda m, t: m.prod(t, 0),
    lambda m, t: m.cumsum(t, 1),
    lambda m, t: m.cumprod(t, 0),
    lambda m, t: m.max(t, 1),
    lambda m, t: m.argmin(t),
    lambda m, t: m.all(t, 1),
    lambda m, t: m.count_nonzero(t),
    lambda m, t: m.logsumexp(t, 1),
    lambda m, t: m.sort(t, 1, True),
    lambda m, t: m.var(t),
    lambda m, t: m.norm(t),
])
def test_integers(call):
    both(lambda t: call(axle, t), lambda t: call(torch, t), XI)


@pytest.mark.parametrize("call", [
    lambda m, t: m.max(t),
    lambda m, t: m.max(t, 1),
    lambda m, t: m.min(t, 1),
    lambda m, t: m.amax(t, 1),
    lambda m, t: m.amin(t),
    lambda m, t: m.argmax(t, 1),
    lambda m, t: m.argmin(t),
    lambda m, t: m.sort(t, 1),
    lambda m, t: m.sort(t, 1, True),
    lambda m, t: m.logsumexp(t, 1),
    lambda m, t: m.norm(t, float("inf"), dim=1),
    lambda m, t: m.cumsum(t, 1),
    lambda m, t: m.count_nonzero(t, 1),
])
def test_nan(call):
    both(lambda t: call(axle, t), lambda t: call(torch, t), NANS)


def test_dtype_rules():
    u8 = np.array([[0, 3], [1, 1]], dtype=np.uint8)
    b = np.array([[True, False], [True, True]])
    for a in (u8, b):
        for call in (lambda m, t: m.all(t), lambda m, t: m.any(t, 0), lambda m, t: m.all(t, 1, True),
                     lambda m, t: m.prod(t), lambda m, t: m.cumsum(t, 0), lambda m, t: m.cumprod(t, 1),
                     lambda m, t: m.logsumexp(t, 0)):
            both(lambda t: call(axle, t), lambda t: call(torch, t), a)


@pytest.mark.parametrize("call", [
    lambda m, t: m.max(t),
    lambda m, t: m.argmax(t),
    lambda m, t: m.amax(t),
    lambda m, t: m.max(t, 0),
    lambda m, t: m.argmin(t, 0),
    lambda m, t: m.amin(t, 0),
    lambda m, t: m.max(t, 1),
    lambda m, t: m.prod(t),
    lambda m, t: m.prod(t, 0),
    lambda m, t: m.var(t, 0),
    lambda m, t: m.norm(t, float("inf")),
    lambda m, t: m.logsumexp(t, 0),
    lambda m, t: m.all(t),
    lambda m, t: m.any(t, 0),
    lambda m, t: m.cumsum(t, 0),
    lambda m, t: m.count_nonzero(t, 0),
    lambda m, t: m.topk(t, 0, dim=0),
    lambda m, t: m.sort(t, 0),
])
def test_zero_size(call):
    both(lambda t: call(axle, t), lambda t: call(torch, t), np.zeros((0, 3), dtype=np.float32))


@pytest.mark.parametrize("call", [
    lambda m, t: m.max(t, 0),
    lambda m, t: m.argmax(t, -1, True),
    lambda m, t: m.amax(t, 0),
    lambda m, t: m.prod(t, -1),
    lambda m, t: m.var(t, 0, correction=0),
    lambda m, t: m.cumsum(t, 0),
    lambda m, t: m.topk(t, 1),
    lambda m, t: m.topk(t, 0),
    lambda m, t: m.sort(t, -1),
    lambda m, t: m.all(t, 0),
    lambda m, t: m.count_nonzero(t, 0),
    lambda m, t: m.logsumexp(t, 0),
    lambda m, t: m.max(t, 1),
    lambda m, t: m.topk(t, 2),
])
def test_zero_dim(call):
    both(lambda t: call(axle, t), lambda t: call(torch, t), np.array(2.5, dtype=np.float32))


@pytest.mark.parametrize("call", [
    lambda m, t: m.max(t, 3),
    lambda m, t: m.amax(t, (1, 1)),
    lambda m, t: m.topk(t, 6),
    lambda m, t: m.topk(t, -1),
    lambda m, t: m.sort(t, -4),
    lambda m, t: m.var(t.int() if m is torch else t.to(axle.int32)),
    lambda m, t: m.norm(t.int() if m is torch else t.to(axle.int32)),
    lambda m, t: m.norm(t, "abc"),
    lambda m, t: m.count_nonzero(t, (0, 0)),
    lambda m, t: m.cumsum(t, 1, dtype=m.bool),
])
def test_errors(call):
    both(lambda t: call(axle, t), lambda t: call(torch, t), X)


def test_error_messages_name_the_op():
    x = axle.zeros([0, 3])
    with pytest.raises(IndexError, match="max.dim.*reduction dim 0 to have non-zero size"):
        axle.max(x, 0)
    with pytest.raises(IndexError, match="argmax.*numel\\(\\) == 0"):
        axle.argmax(x)
    with pytest.raises(IndexError, match="topk.*selected index k out of range"):
        axle.topk(axle.zeros([3]), 4)


def test_ties_and_stability():
    a = np.array([[2, 1, 2, 1, 2, 1, 1, 2, 2, 1, 1, 1, 2, 2, 2, 1, 1, 2, 1, 2] * 2], dtype=np.int64)
    xa, xt = pair(a)
    same(axle.sort(xa, stable=True), torch.sort(xt, stable=True))
    same(axle.sort(xa, descending=True, stable=True), torch.sort(xt, descending=True, stable=True))
    same(axle.argsort(xa, stable=True, dim=1), torch.argsort(xt, stable=True, dim=1))
    same(axle.argmax(xa), torch.argmax(xt))
    same(axle.max(xa, 1), torch.max(xt, 1))


def test_logsumexp_is_stable():
    xa, xt = pair(np.array([1000.0, 1000.0, -math.inf], dtype=np.float64))
    same(axle.logsumexp(xa, 0), torch.logsumexp(xt, 0))
    xa, xt = pair(np.array([math.inf, 1.0]))
    same(axle.logsumexp(xa, 0), torch.logsumexp(xt, 0))


def test_norm_orders():
    xa, xt = pair(X)
    for p in (0, 1, 2, 3, 0.5, -1, -2.5, math.inf, -math.inf):
        same(axle.norm(xa, p, dim=(1, 2)), torch.norm(xt, p, dim=(1, 2)), rtol=1e-4)
    same(axle.norm(xa[0], "nuc"), torch.norm(xt[0], "nuc"), rtol=1e-5)
    same(axle.norm(xa, "nuc", dim=(2, 1), keepdim=True), torch.norm(xt, "nuc", dim=(2, 1), keepdim=True), rtol=1e-5)
