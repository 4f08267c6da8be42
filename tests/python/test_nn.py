"""The NN ops (axle.nn.functional) against torch 1.13: values, shapes, dtypes, and
"torch raises => axle raises AxleError". torch 1.13 has no rms_norm and no
scaled_dot_product_attention: those are compared with a float64 composition of
torch ops instead (torch 2.x semantics)."""
import math
import numpy as np

import pytest

import axle
import axle.nn.functional as AF

torch = pytest.importorskip("torch")
F = torch.nn.functional

TOL = {torch.float32: (2e-5, 2e-5), torch.float64: (1e-10, 1e-10), torch.bfloat16: (3e-2, 3e-2),
       torch.float16: (3e-3, 3e-3)}


def A(t):
    """torch tensor -> axle tensor with the same strides (DLPack, zero-copy; bool through numpy)."""
    if t is None:
        return None
    return axle.from_numpy(t.numpy()) if t.dtype == torch.bool else axle.from_dlpack(t)


def T(a):
    import numpy as np

    return torch.from_numpy(np.asarray(a)) if a.dtype == axle.bool else torch.from_dlpack(a)


def via64(f, t):
    """torch 1.13's bfloat16 group_norm / bilinear kernels round intermediates to bfloat16 (errors of
    several ulp): for bfloat16 compare with the float64 computation rounded once instead."""
    if t.dtype != torch.bfloat16:
        return lambda: f(t)
    return lambda: f(t.double()).to(t.dtype)


def check(got, want, tol=None):
    got = T(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    rtol, atol = tol or TOL.get(want.dtype, (0, 0))
    torch.testing.assert_close(got.double(), want.double(), rtol=rtol, atol=atol, equal_nan=True)


def both(fa, ft, tol=None):
    """Calls torch; if it raises, axle must raise AxleError; else values must match."""
    try:
        want = ft()
    except Exception:  # noqa: BLE001 - any torch error means "must raise"
        with pytest.raises(axle.AxleError):
            fa()
        return
    check(fa(), want, tol)


def rnd(*shape, dtype=torch.float32, seed=0, scale=3.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax(op, dtype):
    x = rnd(2, 3, 5, dtype=dtype)
    for t, dim in [(x, 1), (x.transpose(0, 2), 0), (x[..., ::2], -1), (torch.tensor(2.0, dtype=dtype), 0),
                   (rnd(0, 3, dtype=dtype), 1)]:
        both(lambda: getattr(AF, op)(A(t), dim), lambda: getattr(F, op)(t, dim=dim))
        both(lambda: getattr(AF, op)(A(t), dim, dtype=axle.float64),
             lambda: getattr(F, op)(t, dim=dim, dtype=torch.float64))
    both(lambda: getattr(axle, op)(A(x), 3), lambda: getattr(torch, op)(x, 3))
    big = torch.tensor([[1000.0, 0.0, -1000.0], [float("-inf"), 1.0, 2.0]])
    check(getattr(AF, op)(A(big), 1), getattr(F, op)(big, dim=1))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_batch_norm(dtype):
    x = rnd(4, 3, 5, 2, dtype=dtype)
    m, v, w, b = rnd(3, dtype=dtype), rnd(3, dtype=dtype).abs() + 0.5, rnd(3, dtype=dtype), rnd(3, dtype=dtype)
    for inp in (x, x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2), x[:, :, 0]):
        both(lambda: AF.batch_norm(A(inp), A(m), A(v), A(w), A(b), eps=1e-3),
             lambda: F.batch_norm(inp, m, v, w, b, eps=1e-3))
        both(lambda: AF.batch_norm(A(inp), None, None, A(w), None, training=True),
             lambda: F.batch_norm(inp, None, None, w, None, training=True))
    both(lambda: AF.batch_norm(A(x), A(m[:2]), A(v[:2])), lambda: F.batch_norm(x, m[:2], v[:2]))
    both(lambda: AF.batch_norm(A(x), None, None), lambda: F.batch_norm(x, None, None))
    both(lambda: AF.batch_norm(A(x[:1, :, :1, :1]), None, None, training=True),
         lambda: F.batch_norm(x[:1, :, :1, :1], None, None, training=True))


def test_batch_norm_mixed_and_running_stats():
    x = rnd(2, 3, 4, dtype=torch.bfloat16)
    m, v = rnd(3), rnd(3).abs() + 0.5
    both(lambda: AF.batch_norm(A(x), A(m), A(v)), lambda: F.batch_norm(x, m, v))
    both(lambda: AF.batch_norm(A(x.float()), A(m.double()), A(v.double())),
         lambda: F.batch_norm(x.float(), m.double(), v.double()))
    # Training with running statistics: updated in place (momentum, unbiased variance), twice.
    for dtype, tol in ((torch.float64, 1e-12), (torch.float32, 1e-5)):
        xs = [rnd(4, 3, 5, dtype=dtype), rnd(4, 3, 5, dtype=dtype) * 3 + 1]
        am, av, tm, tv = A(m.to(dtype)), A(v.to(dtype)), m.to(dtype).clone(), v.to(dtype).clone()
        for xi in xs:
            got = AF.batch_norm(A(xi), am, av, training=True, momentum=0.3)
            want = F.batch_norm(xi, tm, tv, training=True, momentum=0.3)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)
        np.testing.assert_allclose(am.numpy(), tm.numpy(), rtol=tol, atol=tol)
        np.testing.assert_allclose(av.numpy(), tv.numpy(), rtol=tol, atol=tol)
    # Running statistics of the wrong size: refused before anything is written (torch's message).
    bad = A(torch.ones(5))
    with pytest.raises(axle.ShapeError, match="running_mean should contain 3 elements not 5"):
        AF.batch_norm(A(rnd(4, 3, 5)), bad, None, training=True, momentum=0.5)
    assert bad.tolist() == [1.0] * 5
    # An empty batch: an empty result, the running statistics untouched (torch's).
    for training in (True, False):
        am, tm = A(m.clone()), m.clone()
        e = rnd(4, 3, 2)[:0]
        got = AF.batch_norm(A(e), am, A(v), A(w3 := rnd(3)), None, training=training)
        want = F.batch_norm(e, tm, v.clone(), w3, None, training=training)
        assert tuple(got.shape) == tuple(want.shape) == (0, 3, 2)
        np.testing.assert_array_equal(am.numpy(), tm.numpy())
    # Only one of the two given: that one is updated.
    am = A(m.double())
    AF.batch_norm(A(xs[0].double()), am, None, training=True, momentum=0.5)
    tm = m.double()
    F.batch_norm(xs[0].double(), tm, None, training=True, momentum=0.5)
    np.testing.assert_allclose(am.numpy(), tm.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_layer_norm(dtype):
    x = rnd(2, 3, 4, dtype=dtype)
    w, b = rnd(3, 4, dtype=dtype), rnd(4, dtype=dtype)
    both(lambda: AF.layer_norm(A(x), [4], A(b), A(b)), lambda: F.layer_norm(x, [4], b, b))
    both(lambda: AF.layer_norm(A(x.transpose(0, 2)), [2], eps=1e-2), lambda: F.layer_norm(x.transpose(0, 2), [2], eps=1e-2))
    both(lambda: AF.layer_norm(A(x), [3, 4], A(w)), lambda: F.layer_norm(x, [3, 4], w))
    for bad in ([3], [], [1, 2, 3, 4]):
        both(lambda: AF.layer_norm(A(x), bad), lambda: F.layer_norm(x, bad))
    both(lambda: AF.layer_norm(A(x), [4], A(w)), lambda: F.layer_norm(x, [4], w))
    both(lambda: AF.layer_norm(A(x), [4], A(b.double())), lambda: F.layer_norm(x, [4], b.double()))
    both(lambda: AF.layer_norm(A(rnd(0, 4, dtype=dtype)), [4]), lambda: F.layer_norm(rnd(0, 4, dtype=dtype), [4]))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_group_norm(dtype):
    x = rnd(2, 6, 3, 2, dtype=dtype)
    w, b = rnd(6, dtype=dtype), rnd(6, dtype=dtype)
    for g in (1, 2, 3, 6, 4, 0, -1):
        both(lambda: AF.group_norm(A(x), g, A(w), A(b)),
             via64(lambda t: F.group_norm(t, g, w.to(t.dtype), b.to(t.dtype)), x))
    xt = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    both(lambda: AF.group_norm(A(xt), 3, eps=1e-3), lambda: F.group_norm(xt, 3, eps=1e-3))
    both(lambda: AF.group_norm(A(x), 3, A(w[:3])), lambda: F.group_norm(x, 3, w[:3]))
    both(lambda: AF.group_norm(A(x[:, :, 0, 0]), 2), lambda: F.group_norm(x[:, :, 0, 0], 2))


def rms_reference(x, shape, w, eps):
    """torch 2.x F.rms_norm, composed in float64."""
    dims = tuple(range(-len(shape), 0))
    if eps is None:
        eps = torch.finfo(x.dtype).eps
    y = x.double() * torch.rsqrt(x.double().pow(2).mean(dims, keepdim=True) + eps)
    if w is not None:
        y = y * w.double()
    return y.to(torch.result_type(x, w) if w is not None else x.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_rms_norm_vs_float64_composition(dtype):
    x = rnd(2, 3, 4, dtype=dtype)
    w = rnd(4, dtype=dtype)
    check(AF.rms_norm(A(x), [4], A(w)), rms_reference(x, [4], w, None))
    check(AF.rms_norm(A(x.transpose(1, 2)), [4, 3], None, 1e-2), rms_reference(x.transpose(1, 2), [4, 3], None, 1e-2))
    check(AF.rms_norm(A(x), [4], A(w.double())), rms_reference(x, [4], w.double(), None))
    with pytest.raises(axle.ShapeError):
        AF.rms_norm(A(x), [3])
    with pytest.raises(axle.ShapeError):
        AF.rms_norm(A(x), [4], A(w[:3]))


def test_dropout():
    x = rnd(3, 4)
    check(AF.dropout(A(x), 0.5, training=False), F.dropout(x, 0.5, training=False))
    check(AF.dropout(A(x), 0.0), F.dropout(x, 0.0))
    check(AF.dropout(A(x), 1.0), F.dropout(x, 1.0))
    check(axle.dropout(A(x), 0.3, False), torch.dropout(x, 0.3, False))
    both(lambda: AF.dropout(A(x), 1.5), lambda: F.dropout(x, 1.5))
    # Training: each element kept with probability 1 - p and scaled by 1 / (1 - p);
    # reproducible per seed (the default generator).
    big = axle.ones(100000)
    axle.manual_seed(3)
    y = AF.dropout(big, 0.25)
    kept = np.asarray(y) != 0
    assert abs(kept.mean() - 0.75) < 0.01
    np.testing.assert_allclose(np.asarray(y)[kept], 1 / 0.75, rtol=1e-6)
    axle.manual_seed(3)
    np.testing.assert_array_equal(np.asarray(AF.dropout(big, 0.25)), np.asarray(y))
    with pytest.raises(axle.DTypeError):
        AF.dropout(axle.ones(3, dtype=axle.int64), 0.5)


def sdpa_reference(q, k, v, mask=None, causal=False, scale=None):
    """torch 2.x F.scaled_dot_product_attention (math path), composed in float64."""
    scale = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    attn = q.double() @ k.double().transpose(-2, -1) * scale
    if causal:
        keep = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()
        attn = attn.masked_fill(~keep, float("-inf"))
    elif mask is not None:
        attn = attn.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else attn + mask.double()
    return (torch.softmax(attn, -1) @ v.double()).to(q.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_sdpa_vs_float64_composition(dtype):
    q, k, v = rnd(2, 2, 3, 4, dtype=dtype, scale=1), rnd(2, 2, 5, 4, dtype=dtype, seed=1, scale=1), rnd(
        2, 2, 5, 6, dtype=dtype, seed=2, scale=1)
    tol = {torch.bfloat16: (5e-2, 5e-2), torch.float16: (1e-2, 1e-2)}.get(dtype)
    sdpa = AF.scaled_dot_product_attention
    check(sdpa(A(q), A(k), A(v)), sdpa_reference(q, k, v), tol)
    check(sdpa(A(q), A(k.transpose(-2, -1).contiguous().transpose(-2, -1)), A(v), scale=0.3),
          sdpa_reference(q, k, v, scale=0.3), tol)
    mask = torch.rand(3, 5, generator=torch.Generator().manual_seed(3)) > 0.4
    mask[:, 0] = True
    check(sdpa(A(q), A(k), A(v), attn_mask=A(mask)), sdpa_reference(q, k, v, mask), tol)
    fmask = rnd(2, 1, 3, 5, dtype=dtype, seed=4, scale=1)
    check(sdpa(A(q), A(k), A(v), A(fmask)), sdpa_reference(q, k, v, fmask), tol)
    check(sdpa(A(q), A(q), A(q), is_causal=True), sdpa_reference(q, q, q, causal=True), tol)
    with pytest.raises(axle.ValueError):
        sdpa(A(q), A(k), A(v), attn_mask=A(mask), is_causal=True)
    with pytest.raises(axle.ShapeError):
        sdpa(A(q), A(k[..., :3]), A(v))
    # dropout on the attention weights: random, but shaped and finite; p=1 drops everything.
    out = sdpa(A(q), A(k), A(v), dropout_p=0.1)
    assert tuple(out.shape) == tuple(sdpa_reference(q, k, v).shape)
    assert np.isfinite(np.asarray(out.to(axle.float32))).all()
    assert not np.asarray(sdpa(A(q), A(k), A(v), dropout_p=1.0).to(axle.float32)).any()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.uint8, torch.float16])
def test_interpolate(dtype):
    x = rnd(2, 3, 5, 4, dtype=torch.float64).abs().to(dtype) if dtype == torch.uint8 else rnd(2, 3, 5, 4, dtype=dtype)
    xc = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    cases = [dict(scale_factor=2), dict(scale_factor=1.7), dict(scale_factor=(0.6, 2.5)), dict(size=(7, 3)),
             dict(size=3), dict(size=(5, 4)), dict(scale_factor=1.3, recompute_scale_factor=True),
             dict(size=(1, 1))]
    for inp in (x, xc, x.transpose(2, 3)) if dtype == torch.float32 else (x, xc):
        for kw in cases:
            both(lambda: AF.interpolate(A(inp), **kw), lambda: F.interpolate(inp, **kw))
            for ac in (False, True):
                both(lambda: AF.interpolate(A(inp), mode="bilinear", align_corners=ac, **kw),
                     via64(lambda t: F.interpolate(t, mode="bilinear", align_corners=ac, **kw), inp))


def test_interpolate_errors():
    x = rnd(1, 2, 3, 3)
    for kw in (dict(), dict(size=2, scale_factor=2), dict(size=(2, 2, 2)), dict(scale_factor=2, align_corners=True),
               dict(size=0),
               dict(size=4, mode="bogus"), dict(size=4, mode="linear"), dict(size=4, recompute_scale_factor=True)):
        with pytest.raises(Exception):
            F.interpolate(x, **kw)
        with pytest.raises(axle.AxleError):
            AF.interpolate(A(x), **kw)
    with pytest.raises(axle.NotImplementedError):
        AF.interpolate(A(x[0]), size=4)  # nearest on 3-D works in torch; not implemented here
    with pytest.raises(axle.NotImplementedError):
        AF.interpolate(A(x[0]), size=4, mode="bilinear")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64, torch.bool])
def test_pad(dtype):
    x = rnd(2, 3, 4, 5, dtype=dtype)
    cases = [((1, 2), "constant", None), ((1, 0, 2, 1), "constant", 2.5), ((-1, 2, 0, -2), "constant", None),
             ((0, 0, 1, 1, 1, 1, 1, 1), "constant", -1.0), ((1,), "constant", None), ((1,) * 10, "constant", None),
             ((0, -6), "constant", None), ((0, -5), "constant", None),
             ((1, 2, 2, 1), "reflect", None), ((3, 1, 0, 2), "reflect", None), ((4, 4, 0, 0), "reflect", None),
             ((1, 2, 2, 1), "replicate", None), ((-1, 2, 0, 1), "replicate", None), ((1, 1, 1, 1), "reflect", 1.0),
             ((1, 1), "reflect", None), ((1, 1, 2, 2, 0, 1), "replicate", None), ((1, 2), "bogus", None),
             ((2, 1, 1, 0), "circular", None), ((9, 1, 0, 0), "circular", None)]
    for inp in (x, x.transpose(1, 3), x[..., ::2], x[0]) if dtype == torch.float32 else (x.transpose(1, 3), x[0]):
        for pad, mode, value in cases:
            both(lambda: AF.pad(A(inp), pad, mode, value), lambda: F.pad(inp, pad, mode, value))
    both(lambda: AF.pad(A(x[0, 0]), (1, 1), "reflect"), lambda: F.pad(x[0, 0], (1, 1), "reflect"))
    both(lambda: AF.pad(A(x[:0]), (1, 1, 1, 1), "reflect"), lambda: F.pad(x[:0], (1, 1, 1, 1), "reflect"))
    both(lambda: AF.pad(A(x[:, :0]), (1, 1, 1, 1), "replicate"), lambda: F.pad(x[:, :0], (1, 1, 1, 1), "replicate"))
    both(lambda: AF.pad(A(torch.tensor(1, dtype=dtype)), ()), lambda: F.pad(torch.tensor(1, dtype=dtype), ()))
