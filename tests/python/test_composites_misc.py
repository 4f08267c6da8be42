"""The miscellaneous functions written in Python over axle's ops
(bindings/python/axle/_composites_misc.py), compared with torch 1.13: view copies,
scatter inverses of views, put / index_put, gcd / lcm, cov / corrcoef, block_diag,
renorm, fill_diagonal_, in-place BLAS, empty_strided, frombuffer, windows, range,
inverse hyperbolics, query helpers; the random fills by their distributions."""

import math
import warnings

import numpy as np
import pytest

import axle
from axle import _composites_misc

_composites_misc.install(axle)

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def dtype_name(dt):
    return str(dt).split(".")[-1]


def same(a, t, rtol=1e-7, atol=0.0):
    if isinstance(t, (tuple, list)):
        assert isinstance(a, tuple) and len(a) == len(t)
        for x, y in zip(a, t):
            same(x, y, rtol, atol)
        return
    assert isinstance(a, axle.Tensor), type(a)
    assert dtype_name(a.dtype) == dtype_name(t.dtype), (a.dtype, t.dtype)
    assert tuple(a.shape) == tuple(t.shape), (tuple(a.shape), tuple(t.shape))
    np.testing.assert_allclose(np.asarray(a.detach(), dtype=np.float64), t.detach().double().numpy(),
                               rtol=rtol, atol=atol, equal_nan=True)


def pair(shape, dtype=np.float64, lo=-3, hi=3):
    if np.issubdtype(dtype, np.integer):
        a = RNG.integers(lo, hi, size=shape).astype(dtype)
    else:
        a = RNG.uniform(lo, hi, size=shape).astype(dtype)
    return axle.from_numpy(a.copy()), torch.from_numpy(a.copy())


# ---------------------------------------------------------------- 1. view copies
COPIES = [
    ("alias_copy", ()), ("detach_copy", ()), ("diagonal_copy", (1, 0, 1)), ("expand_copy", ((2, 3, 4, 5),)),
    ("narrow_copy", (1, 1, 2)), ("permute_copy", ((2, 0, 1),)), ("select_copy", (1, 2)),
    ("squeeze_copy", ()), ("t_copy", None), ("transpose_copy", (0, 2)), ("unsqueeze_copy", (1,)),
    ("view_copy", ((12, 5),)), ("unfold_copy", (2, 2, 2)), ("unbind_copy", (1,)), ("split_copy", (2, 1)),
    ("split_with_sizes_copy", ([1, 3], 1)),
]


@pytest.mark.parametrize("name,args", COPIES, ids=[c[0] for c in COPIES])
def test_view_copies(name, args):
    a, t = pair((3, 4, 5))
    if args is None:
        a, t = pair((3, 4))
        args = ()
    out = getattr(axle, name)(a, *args)
    same(out, getattr(torch, name)(t, *args))
    first = out[0] if isinstance(out, tuple) else out
    before = np.asarray(a).copy()
    first.view(-1)[0] = 1234.0  # a fresh copy: the input is untouched
    np.testing.assert_array_equal(np.asarray(a), before)


def test_slice_copy_and_narrow_copy_method():
    a, t = pair((6, 5))
    same(axle.slice_copy(a, 0, 1, 5, 2), torch.slice_copy(t, 0, 1, 5, 2))
    same(axle.slice_copy(a, 1, 0, 5, 1), torch.slice_copy(t, 1, 0, 5, 1))
    # (torch 1.13's Python binding mis-parses slice_copy defaults; axle slices to the end)
    assert tuple(axle.slice_copy(a, 1).shape) == (6, 5)
    same(a.narrow_copy(0, 2, 3), t.narrow_copy(0, 2, 3))


# ---------------------------------------------------------------- 2. scatter / put
def test_scatters():
    a, t = pair((4, 5))
    sa, st = pair((5,))
    same(axle.select_scatter(a, sa, 0, 2), torch.select_scatter(t, st, 0, 2))
    sa, st = pair((4, 2))
    same(axle.slice_scatter(a, sa, 1, 0, 4, 2), torch.slice_scatter(t, st, 1, 0, 4, 2))
    sa, st = pair((4,))
    same(axle.diagonal_scatter(a, sa, 1), torch.diagonal_scatter(t, st, 1))
    same(a.diagonal_scatter(sa, 1), t.diagonal_scatter(st, 1))


def test_index_put_and_put():
    a, t = pair((3, 4))
    ia, it = axle.tensor([0, 2, 0]), torch.tensor([0, 2, 0])
    va, vt = axle.tensor([1.0, 2.0, 3.0], dtype=axle.float64), torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    same(axle.index_put(a, (ia,), va.unsqueeze(1).expand(3, 4)), torch.index_put(t, (it,), vt.unsqueeze(1).expand(3, 4)))
    same(axle.index_put(a, (ia, ia), va, True), torch.index_put(t, (it, it), vt, True))
    pi, pti = axle.tensor([0, 5, -1, 5]), torch.tensor([0, 5, -1, 5])
    sa, st = axle.tensor([1.0, 2.0, 3.0, 4.0], dtype=axle.float64), torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    same(axle.put(a, pi, sa, True), torch.put(t, pti, st, True))
    same(a.put(pi[:3], sa[:3]), t.put(pti[:3], st[:3]))
    at, tt = a.t().clone().t(), t.t().clone().t()  # non-contiguous self
    at.put_(pi, sa, accumulate=True)
    tt.put_(pti, st, accumulate=True)
    same(at, tt)
    with pytest.raises(Exception):
        a.clone().put_(pi[:2], sa)


# ---------------------------------------------------------------- 2. pointwise and friends
def test_rsub_fill_argwhere_msort():
    a, t = pair((3, 4))
    b, u = pair((3, 4))
    same(axle.rsub(a, b), torch.rsub(t, u))
    same(axle.rsub(a, b, alpha=2), torch.rsub(t, u, alpha=2))
    same(axle.rsub(a, 2.5), torch.rsub(t, 2.5))
    same(axle.fill(a, 1.5), torch.fill(t, 1.5))
    same(axle.fill(a, axle.tensor(2.0)), torch.fill(t, torch.tensor(2.0)))
    ia, it = pair((3, 4), np.int64, -1, 2)
    same(axle.argwhere(ia), torch.argwhere(it))
    same(axle.msort(a), torch.msort(t))
    same(a.msort(), t.msort())


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, 0, math.inf, -math.inf])
def test_dist(p):
    a, t = pair((3, 4))
    b, u = pair((4,))
    same(axle.dist(a, b, p), torch.dist(t, u, p), rtol=1e-12)


def test_fmax_fmin():
    x = np.array([1.0, np.nan, 3.0, np.nan, -1.0])
    y = np.array([2.0, 1.0, np.nan, np.nan, -2.0])
    for fn in ("fmax", "fmin"):
        same(getattr(axle, fn)(axle.from_numpy(x), axle.from_numpy(y)),
             getattr(torch, fn)(torch.from_numpy(x), torch.from_numpy(y)))
    ia, it = pair((5,), np.int32)
    ib, ib_t = pair((5,), np.int32)
    same(axle.fmax(ia, ib), torch.fmax(it, ib_t))


def test_gcd_lcm():
    x = np.array([12, -18, 0, 7, 0, 1071, 2 ** 40, -5], dtype=np.int64)
    y = np.array([8, 12, 0, 0, -3, 462, 6 ** 10, -10], dtype=np.int64)
    a, b, t, u = axle.from_numpy(x), axle.from_numpy(y), torch.from_numpy(x), torch.from_numpy(y)
    same(axle.gcd(a, b), torch.gcd(t, u))
    same(axle.lcm(a[:6], b[:6]), torch.lcm(t[:6], u[:6]))
    ia, it = pair((4, 5), np.int32, -50, 50)
    ib, ib_t = pair((5,), np.int32, -50, 50)
    same(axle.gcd(ia, ib), torch.gcd(it, ib_t))
    same(ia.clone().lcm_(ib), it.clone().lcm_(ib_t))
    same(ia.clone().gcd_(ib), it.clone().gcd_(ib_t))
    with pytest.raises(Exception):
        axle.gcd(axle.ones(3), axle.ones(3))


def test_cov_corrcoef():
    a, t = pair((3, 7))
    same(axle.cov(a), torch.cov(t), rtol=1e-12)
    same(axle.cov(a, correction=0), torch.cov(t, correction=0), rtol=1e-12)
    fw = np.array([1, 2, 1, 3, 1, 1, 2])
    aw = RNG.uniform(0.1, 1, 7)
    same(axle.cov(a, fweights=axle.from_numpy(fw), aweights=axle.from_numpy(aw)),
         torch.cov(t, fweights=torch.from_numpy(fw), aweights=torch.from_numpy(aw)), rtol=1e-12)
    same(axle.cov(a, aweights=axle.from_numpy(aw)), torch.cov(t, aweights=torch.from_numpy(aw)), rtol=1e-12)
    same(axle.cov(a[0]), torch.cov(t[0]), rtol=1e-12)
    same(axle.corrcoef(a), torch.corrcoef(t), rtol=1e-12, atol=1e-15)
    same(a.corrcoef(), t.corrcoef(), rtol=1e-12, atol=1e-15)
    same(axle.corrcoef(a[0]), torch.corrcoef(t[0]))
    ia, it = pair((2, 5), np.int64, 0, 9)
    same(axle.cov(ia), torch.cov(it), rtol=1e-6)
    with pytest.raises(Exception):
        axle.cov(a, fweights=axle.from_numpy(aw))


def test_block_diag_chain_matmul_trace():
    a, t = pair((2, 3))
    b, u = pair((3,))
    c, v = pair(())
    same(axle.block_diag(a, b, c), torch.block_diag(t, u, v))
    ia, it = pair((2, 2), np.int32)
    same(axle.block_diag(a, ia), torch.block_diag(t, it))
    m1, n1 = pair((2, 3))
    m2, n2 = pair((3, 4))
    m3, n3 = pair((4, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(axle.chain_matmul(m1, m2, m3), torch.chain_matmul(n1, n2, n3), rtol=1e-12)
    sq, tq = pair((4, 4))
    same(sq.trace(), tq.trace())


def test_sum_to_size():
    a, t = pair((2, 3, 4))
    for size in [(3, 1), (1, 3, 4), (4,), (2, 1, 1), (3, 4)]:
        same(a.sum_to_size(*size), t.sum_to_size(*size), rtol=1e-12)
    same(a.sum_to_size((1, 4)), t.sum_to_size((1, 4)), rtol=1e-12)
    with pytest.raises(Exception):
        a.sum_to_size(2, 4)


@pytest.mark.parametrize("p", [1, 2, 3, math.inf])
def test_renorm(p):
    a, t = pair((3, 4, 2))
    same(axle.renorm(a, p, 1, 2.0), torch.renorm(t, p, 1, 2.0), rtol=1e-12)
    same(a.clone().renorm_(p, 0, 1.0), t.clone().renorm_(p, 0, 1.0), rtol=1e-12)


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((7, 3), False), ((7, 3), True), ((3, 5), True),
                                        ((3, 3, 3), False)])
def test_fill_diagonal(shape, wrap):
    a, t = pair(shape)
    same(a.fill_diagonal_(9.0, wrap), t.fill_diagonal_(9.0, wrap))


def test_in_place_blas():
    s, st = pair((3, 4))
    m1, n1 = pair((3, 5))
    m2, n2 = pair((5, 4))
    same(s.clone().addmm_(m1, m2, beta=0.5, alpha=2), st.clone().addmm_(n1, n2, beta=0.5, alpha=2), rtol=1e-12)
    b1, c1 = pair((2, 3, 5))
    b2, c2 = pair((2, 5, 4))
    same(axle.addbmm(s, b1, b2), torch.addbmm(st, c1, c2), rtol=1e-12)
    same(axle.addbmm(s, b1, b2, beta=2, alpha=0.5), torch.addbmm(st, c1, c2, beta=2, alpha=0.5), rtol=1e-12)
    same(s.clone().addbmm_(b1, b2, beta=0), st.clone().addbmm_(c1, c2, beta=0), rtol=1e-12)
    bs, bt = pair((2, 3, 4))
    same(bs.clone().baddbmm_(b1, b2, alpha=3), bt.clone().baddbmm_(c1, c2, alpha=3), rtol=1e-12)


def test_empty_strided_and_unfold():
    e = axle.empty_strided((2, 3), (1, 2), dtype=axle.float64)
    te = torch.empty_strided((2, 3), (1, 2), dtype=torch.float64)
    assert tuple(e.shape) == tuple(te.shape) and tuple(e.stride()) == te.stride()
    assert dtype_name(e.dtype) == "float64"
    a, t = pair((4, 7))
    for dim, size, step in [(1, 3, 2), (0, 2, 1), (-1, 7, 1), (1, 1, 3)]:
        ua, ut = a.unfold(dim, size, step), t.unfold(dim, size, step)
        same(ua, ut)
        assert tuple(ua.stride()) == ut.stride()
    v = a.unfold(1, 3, 2)
    v[0, 0, 0] = 100.0  # a view, like torch's
    assert float(a[0, 0]) == 100.0
    with pytest.raises(Exception):
        a.unfold(1, 8, 1)
    with pytest.raises(Exception):
        a.unfold(1, 2, 0)
    g = axle.arange(6.0, dtype=axle.float64).requires_grad_()
    tg = torch.arange(6.0, dtype=torch.float64).requires_grad_()
    g.unfold(0, 3, 1).sum().backward()
    tg.unfold(0, 3, 1).sum().backward()
    same(g.grad, tg.grad)
    g.grad = None
    (g.unfold(0, 2, 2) * axle.arange(6.0, dtype=axle.float64).reshape(3, 2)).sum().backward()
    same(g.grad, torch.arange(6.0, dtype=torch.float64))


def test_frombuffer():
    buf = bytearray(np.arange(6, dtype=np.float32).tobytes())
    a = axle.frombuffer(buf, dtype=axle.float32, count=3, offset=4)
    t = torch.frombuffer(bytearray(buf), dtype=torch.float32, count=3, offset=4)
    same(a, t)
    a[0] = 42.0  # shares memory with the buffer
    assert np.frombuffer(buf, dtype=np.float32)[1] == 42.0
    with pytest.warns(UserWarning):
        r = axle.frombuffer(b"\x01\x02\x03\x04", dtype=axle.int16)
    same(r, torch.tensor([0x0201, 0x0403], dtype=torch.int16))
    with pytest.raises(Exception):
        axle.frombuffer(bytearray(), dtype=axle.float32)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, n, periodic):
    same(getattr(axle, name)(n, periodic), getattr(torch, name)(n, periodic), rtol=1e-5, atol=1e-6)
    same(getattr(axle, name)(n, periodic, dtype=axle.float64),
         getattr(torch, name)(n, periodic, dtype=torch.float64), rtol=1e-12, atol=1e-14)


def test_range_and_flags():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(axle.range(1, 4), torch.range(1, 4))
        same(axle.range(0, 1, 0.25, dtype=axle.float64), torch.range(0, 1, 0.25, dtype=torch.float64))
        same(axle.range(5, 1, -2, dtype=axle.int64), torch.range(5, 1, -2, dtype=torch.int64))
    with pytest.warns(UserWarning):
        axle.range(0, 2)
    x = axle.ones(2)
    assert x.get_device() == -1 and axle.get_device(x) == -1
    assert x.is_cpu is True and x.is_cuda is False
    assert axle.is_inference(x) is False and x.is_inference() is False
    assert axle.is_inference_mode_enabled() is False and axle.is_anomaly_enabled() is False
    assert axle.is_storage(x) is False
    assert x.share_memory_() is x and x.is_shared() is False
    old = axle.is_warn_always_enabled()
    axle.set_warn_always(True)
    assert axle.is_warn_always_enabled() is True
    axle.set_warn_always(old)


# ---------------------------------------------------------------- 3. inverse hyperbolics
@pytest.mark.parametrize("name,lo,hi", [("acosh", 1.0, 1.5), ("acosh", 1.5, 50.0), ("asinh", -3.0, 3.0),
                                        ("asinh", -1e-3, 1e-3), ("atanh", -0.99, 0.99), ("atanh", -1e-3, 1e-3)])
def test_inverse_hyperbolic(name, lo, hi):
    x = RNG.uniform(lo, hi, 200)
    a, t = axle.from_numpy(x.copy()), torch.from_numpy(x.copy())
    same(getattr(axle, name)(a), getattr(torch, name)(t), rtol=1e-12)
    same(getattr(axle, "arc" + name[1:])(a), getattr(torch, "arc" + name[1:])(t), rtol=1e-12)
    same(getattr(a.clone(), name + "_")(), getattr(t.clone(), name + "_")(), rtol=1e-12)
    same(getattr(a, name)(), getattr(t, name)(), rtol=1e-12)


def test_inverse_hyperbolic_edges_and_grads():
    x = np.array([1.0, 2.0, 1e10, 1e300, 0.5, np.inf])
    same(axle.acosh(axle.from_numpy(x)), torch.acosh(torch.from_numpy(x)), rtol=1e-12)
    y = np.array([0.0, -0.0, 1e-30, -1e300, 1e300, 2.0, -2.5])
    same(axle.asinh(axle.from_numpy(y)), torch.asinh(torch.from_numpy(y)), rtol=1e-12)
    z = np.array([0.0, 1.0, -1.0, 0.5, -0.5, 2.0])
    same(axle.atanh(axle.from_numpy(z)), torch.atanh(torch.from_numpy(z)), rtol=1e-12)
    same(axle.acosh(axle.tensor([1, 2, 3])), torch.acosh(torch.tensor([1, 2, 3])), rtol=1e-6)
    for name, vals in [("acosh", [1.5, 3.0, 40.0]), ("asinh", [-2.0, 0.3, 5.0]), ("atanh", [-0.7, 0.1, 0.6])]:
        a = axle.tensor(vals, dtype=axle.float64).requires_grad_()
        t = torch.tensor(vals, dtype=torch.float64).requires_grad_()
        getattr(axle, name)(a).sum().backward()
        getattr(torch, name)(t).sum().backward()
        same(a.grad, t.grad, rtol=1e-10)


def test_grads_misc():
    a = axle.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=axle.float64).requires_grad_()
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64).requires_grad_()
    b = axle.tensor([0.5, -1.0], dtype=axle.float64).requires_grad_()
    u = torch.tensor([0.5, -1.0], dtype=torch.float64).requires_grad_()
    (axle.dist(a, b, 3) + axle.block_diag(a, b).square().sum() + axle.renorm(a, 2, 0, 3.0).sum()
     + axle.slice_scatter(a, b.unsqueeze(0), 0, 1, 2, 1).pow(3).sum() + axle.cov(a).sum()).backward()
    (torch.dist(t, u, 3) + torch.block_diag(t, u).square().sum() + torch.renorm(t, 2, 0, 3.0).sum()
     + torch.slice_scatter(t, u.unsqueeze(0), 0, 1, 2, 1).pow(3).sum() + torch.cov(t).sum()).backward()
    same(a.grad, t.grad, rtol=1e-10)
    same(b.grad, u.grad, rtol=1e-10)


# ---------------------------------------------------------------- 3. random fills
def test_random_fills():
    axle.manual_seed(0)
    n = 20000
    r = axle.empty(n, dtype=axle.int64).random_(3, 10)
    v = np.asarray(r)
    assert v.min() == 3 and v.max() == 9 and abs(v.mean() - 6.0) < 0.1
    r = axle.empty(n, dtype=axle.int64).random_(5)
    assert np.asarray(r).min() == 0 and np.asarray(r).max() == 4
    r = axle.empty(n, dtype=axle.uint8).random_()
    assert np.asarray(r).max() > 200
    r = axle.empty(n, dtype=axle.float32).random_(**{"from": -2, "to": 2})
    assert set(np.unique(np.asarray(r)).tolist()) == {-2.0, -1.0, 0.0, 1.0}
    # torch's bounds checks, no silent wrap-around.
    with pytest.raises(axle.ValueError, match="to - 1 is out of bounds for uint8"):
        axle.empty(3, dtype=axle.uint8).random_(0, 1000)
    with pytest.raises(axle.ValueError, match="from is out of bounds for int8"):
        axle.empty(3, dtype=axle.int8).random_(-200, 5)
    # int64's whole range (what torch's RandomSampler draws its seed with), and a generator.
    big = np.asarray(axle.empty(n, dtype=axle.int64).random_())
    assert big.min() >= 0 and big.max() > 2 ** 62
    gen = axle.Generator()
    gen.manual_seed(7)
    a = axle.empty(6, dtype=axle.int64).random_(generator=gen).tolist()
    gen.manual_seed(7)
    assert axle.empty(6, dtype=axle.int64).random_(generator=gen).tolist() == a
    e = np.asarray(axle.empty(n, dtype=axle.float64).exponential_(2.0))
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.02
    g = np.asarray(axle.empty(n, dtype=axle.float64).geometric_(0.25))
    assert g.min() >= 1 and np.all(g == np.round(g)) and abs(g.mean() - 4.0) < 0.15
    c = np.asarray(axle.empty(n, dtype=axle.float64).cauchy_(1.0, 2.0))
    assert abs(np.median(c) - 1.0) < 0.1 and abs(np.percentile(c, 75) - 3.0) < 0.2
    ln = np.asarray(axle.empty(n, dtype=axle.float64).log_normal_(0.5, 0.25))
    assert ln.min() > 0 and abs(np.log(ln).mean() - 0.5) < 0.01 and abs(np.log(ln).std() - 0.25) < 0.01
    axle.manual_seed(3)
    x1 = np.asarray(axle.empty(5, dtype=axle.float32).exponential_())
    axle.manual_seed(3)
    x2 = np.asarray(axle.empty(5, dtype=axle.float32).exponential_())
    np.testing.assert_array_equal(x1, x2)
    with pytest.raises(Exception):
        axle.empty(3).random_(5, 2)
    with pytest.raises(Exception):
        axle.empty(3).geometric_(1.5)
