"""unfold / fold, channel_shuffle, local_response_norm, lp_pool, max_unpool, rrelu, alpha dropouts,
gumbel_softmax, multilabel_margin_loss and embedding_bag (functional and module forms) against
torch 1.13: values in float64 (1e-10), gradients through .backward(), module reprs, shapes and
torch's errors (kind and message); the random ones by their invariants and statistics."""
import math
import warnings

import numpy as np
import pytest

import axle
from axle.nn._functional_extra import (alpha_dropout, channel_shuffle, embedding_bag, feature_alpha_dropout, fold,
                                       gumbel_softmax, local_response_norm, lp_pool1d, lp_pool2d, max_unpool1d,
                                       max_unpool2d, multilabel_margin_loss, rrelu, unfold)
from axle.nn.modules.embedding_bag import EmbeddingBag
from axle.nn.modules.fold import Fold, Unfold
from axle.nn.modules.misc import (AlphaDropout, ChannelShuffle, FeatureAlphaDropout, LocalResponseNorm, LPPool1d,
                                  LPPool2d, MaxUnpool1d, MaxUnpool2d, MultiLabelMarginLoss, RReLU,
                                  TripletMarginWithDistanceLoss)

torch = pytest.importorskip("torch")
TF = torch.nn.functional
TOL = dict(rtol=1e-10, atol=1e-12)


def A(t, requires_grad=False):
    a = axle.from_numpy(t.detach().numpy().copy())
    if requires_grad:
        a.requires_grad_(True)
    return a


def T(a):
    return torch.from_numpy(np.array(a.detach().numpy()))


def randn(*shape, seed=0, dtype=torch.float64):
    if len(shape) == 1 and isinstance(shape[0], tuple):
        shape = shape[0]
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).to(dtype)


def close(got, want, what="", **tol):
    got = T(got)
    assert tuple(got.shape) == tuple(want.shape), (what, got.shape, want.shape)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    torch.testing.assert_close(got, want.detach(), equal_nan=True, msg=lambda m: "%s: %s" % (what, m),
                               **(tol or TOL))


def check(axle_fn, torch_fn, inputs, grad=(), what="", grad_seed=7, **tol):
    """Values of axle_fn(*axle inputs) vs torch_fn(*torch inputs); gradients of a random projection
    with respect to the inputs whose positions are in grad."""
    tin = [t.clone().requires_grad_(i in grad) if isinstance(t, torch.Tensor) and t.is_floating_point() else t
           for i, t in enumerate(inputs)]
    ain = [A(t, i in grad) if isinstance(t, torch.Tensor) else t for i, t in enumerate(inputs)]
    want = torch_fn(*tin)
    got = axle_fn(*ain)
    close(got, want, what, **tol)
    if grad:
        proj = randn(*want.shape, seed=grad_seed)
        (want * proj).sum().backward()
        (got * A(proj)).sum().backward()
        for i in grad:
            close(ain[i].grad, tin[i].grad, "%s grad %d" % (what, i), **tol)


def same_error(axle_fn, torch_fn, axle_kind=None, exact=True, replace=()):
    """torch_fn raises; axle_fn raises the same message (an error of axle_kind, or of torch's class)."""
    with pytest.raises(Exception) as te:
        torch_fn()
    kind = axle_kind or type(te.value)
    with pytest.raises(kind) as ae:
        axle_fn()
    want = str(te.value).split("\n")[0]
    for old, new in replace:
        want = want.replace(old, new)
    if exact:
        assert str(ae.value) == want
    return te.value, ae.value


# ----------------------------------------------------------------------------- unfold / fold

UNFOLD_CASES = [
    ((2, 3, 5, 6), dict(kernel_size=2)),
    ((2, 3, 5, 6), dict(kernel_size=(2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))),
    ((1, 2, 7, 7), dict(kernel_size=3, dilation=2, padding=2, stride=3)),
    ((3, 4, 6), dict(kernel_size=(3, 2), stride=2)),       # unbatched
    ((0, 3, 5, 6), dict(kernel_size=2)),                   # empty batch
    ((2, 1, 4, 4), dict(kernel_size=1)),
]


@pytest.mark.parametrize("shape,kw", UNFOLD_CASES)
def test_unfold(shape, kw):
    x = randn(*shape)
    grad = (0,) if shape[0] else ()
    check(lambda a: unfold(a, **kw), lambda t: TF.unfold(t, **kw), [x], grad, "unfold")
    check(lambda a: Unfold(**kw)(a), lambda t: torch.nn.Unfold(**kw)(t), [x], (), "Unfold")


def test_unfold_float32():
    x = randn(2, 3, 6, 5, dtype=torch.float32)
    close(unfold(A(x), 3, padding=1), TF.unfold(x, 3, padding=1), rtol=1e-6, atol=1e-6)
    c = randn(2, 12, 20, dtype=torch.float32)
    close(fold(A(c), (5, 6), 2), TF.fold(c, (5, 6), 2), rtol=1e-6, atol=1e-6)
    # a non-contiguous input
    x0 = randn(2, 3, 5, 6)
    close(unfold(A(x0).transpose(2, 3), 2), TF.unfold(x0.transpose(2, 3), 2))


FOLD_CASES = [
    ((2, 12, 20), dict(output_size=(5, 6), kernel_size=2)),
    ((2, 12, 30), dict(output_size=(6, 7), kernel_size=2)),
    ((2, 18, 6), dict(output_size=(5, 6), kernel_size=(2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))),
    ((18, 9), dict(output_size=7, kernel_size=3, dilation=2, padding=2, stride=3)),   # unbatched
    ((1, 8, 6), dict(output_size=(7, 8), kernel_size=2, stride=3)),                   # uncovered output pixels
    ((0, 12, 20), dict(output_size=(5, 6), kernel_size=2)),
]


@pytest.mark.parametrize("shape,kw", FOLD_CASES)
def test_fold(shape, kw):
    x = randn(*shape)
    grad = (0,) if shape[0] else ()
    check(lambda a: fold(a, **kw), lambda t: TF.fold(t, **kw), [x], grad, "fold")
    check(lambda a: Fold(**kw)(a), lambda t: torch.nn.Fold(**kw)(t), [x], (), "Fold")


def test_fold_is_unfold_adjoint():
    x = randn(2, 3, 7, 6)
    kw = dict(kernel_size=(3, 2), dilation=(2, 1), padding=1, stride=(1, 2))
    cols = unfold(A(x), **kw)
    y = randn(*cols.shape, seed=3)
    lhs = float((cols * A(y)).sum())
    rhs = float((A(x) * fold(A(y), (7, 6), **kw)).sum())
    assert abs(lhs - rhs) < 1e-10 * max(1.0, abs(lhs))


@pytest.mark.parametrize("call", [
    lambda F, x: F.unfold(x(2, 3, 5, 6), 0),
    lambda F, x: F.unfold(x(2, 3, 5, 6), 2, dilation=0),
    lambda F, x: F.unfold(x(2, 3, 5, 6), 2, padding=-1),
    lambda F, x: F.unfold(x(2, 3, 5, 6), 2, stride=0),
    lambda F, x: F.unfold(x(2, 3, 5, 6), 0, stride=0, padding=-1, dilation=0),
    lambda F, x: F.unfold(x(2, 3, 5, 6), 2, stride=0, padding=-1),
    lambda F, x: F.unfold(x(2, 0, 5, 6), 2),
    lambda F, x: F.unfold(x(2, 3, 5, 0), 2),
    lambda F, x: F.unfold(x(2, 3, 4, 5, 6), 2),
    lambda F, x: F.unfold(x(2, 3, 5, 6), 7),
    lambda F, x: F.unfold(x(2, 3, 5, 9), (2, 10)),
    lambda F, x: F.unfold(x(2, 3, 5, 6), (2, 3, 4)),
    lambda F, x: F.fold(x(2, 12, 20), (5, 6), (2, 3)),
    lambda F, x: F.fold(x(2, 12, 31), (6, 7), 2),
    lambda F, x: F.fold(x(2, 13, 30), (6, 7), 2),
    lambda F, x: F.fold(x(3, 2, 12, 30), (6, 7), 2),
    lambda F, x: F.fold(x(12), (6, 7), 2),
    lambda F, x: F.fold(x(2, 0, 30), (6, 7), 2),
    lambda F, x: F.fold(x(2, 12, 0), (6, 7), 2),
    lambda F, x: F.fold(x(2, 12, 30), (1, 1), 2),
    lambda F, x: F.fold(x(2, 9, 1), (1, 1), 3),
    lambda F, x: F.fold(x(2, 12, 30), (6, 7), 0),
    lambda F, x: F.fold(x(2, 12, 30), (6, 7), 2, stride=0),
    lambda F, x: F.fold(x(2, 12, 30), (6, 7), 2, dilation=0),
    lambda F, x: F.fold(x(2, 12, 30), (6, 7), 2, padding=-1),
    lambda F, x: F.fold(x(2, 12, 30), (6, 7), 0, stride=0, padding=-1, dilation=0),
    lambda F, x: F.fold(x(2, 12, 30), (6, 7), 2, stride=0, padding=-1, dilation=0),
    lambda F, x: F.fold(x(2, 12, 30), (6, 7), 2, padding=-1, dilation=0),
    lambda F, x: F.fold(x(2, 12, 30), (6, 7, 1), 2),
])
def test_unfold_fold_errors(call):
    ax = type("AF", (), {"unfold": staticmethod(unfold), "fold": staticmethod(fold)})
    # torch's RuntimeErrors: axle's ShapeError (a RuntimeError) for shapes, axle.ValueError for argument values
    same_error(lambda: call(ax, lambda *s: axle.zeros(s, dtype=axle.float64)),
               lambda: call(TF, lambda *s: torch.zeros(s, dtype=torch.float64)), axle_kind=axle.AxleError)


def test_unfold_2d_input_error():
    same_error(lambda: unfold(axle.zeros(5, 6), 2), lambda: TF.unfold(torch.zeros(5, 6), 2), axle_kind=IndexError)


def test_fold_reprs():
    for kw in [dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=2, padding=(1, 0), stride=[1, 2])]:
        assert repr(Unfold(**kw)) == repr(torch.nn.Unfold(**kw))
        assert repr(Fold((5, 6), **kw)) == repr(torch.nn.Fold((5, 6), **kw))


# ----------------------------------------------------------------------------- channel shuffle, LRN

@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 3), ((2, 6, 3, 4), 2), ((1, 12, 2, 2, 2), 4), ((3, 4, 5), 1),
                                          ((2, 6, 3), 6)])
def test_channel_shuffle(shape, groups):
    x = randn(*shape)
    check(lambda a: channel_shuffle(a, groups), lambda t: TF.channel_shuffle(t, groups), [x], (), "shuffle")
    # torch has no derivative for channel_shuffle: axle's is the inverse shuffle (groups C / g)
    a = A(x, requires_grad=True)
    g = randn(*shape, seed=4)
    (channel_shuffle(a, groups) * A(g)).sum().backward()
    close(a.grad, TF.channel_shuffle(g, shape[1] // groups))
    check(lambda a: ChannelShuffle(groups)(a), lambda t: torch.nn.ChannelShuffle(groups)(t), [x], (), "Shuffle")
    assert repr(ChannelShuffle(groups)) == repr(torch.nn.ChannelShuffle(groups))


@pytest.mark.parametrize("shape,groups,kind", [((2, 6, 3), 4, ValueError), ((2, 6, 3), 0, ValueError),
                                               ((2, 6, 3), -2, ValueError), ((6,), 3, RuntimeError),
                                               ((2, 6), 3, RuntimeError)])
def test_channel_shuffle_errors(shape, groups, kind):
    same_error(lambda: channel_shuffle(axle.zeros(shape), groups), lambda: TF.channel_shuffle(torch.zeros(shape), groups),
               axle_kind=kind)


@pytest.mark.parametrize("shape,size,kw", [((2, 5, 4), 3, {}), ((2, 6, 3, 4), 4, dict(alpha=0.5, beta=0.6, k=2.0)),
                                           ((1, 3, 2, 2, 3), 5, dict(alpha=1.0)), ((2, 7, 3), 1, {}),
                                           ((2, 4, 3), 2, dict(alpha=0.3, beta=1.5))])
def test_local_response_norm(shape, size, kw):
    x = randn(*shape)
    check(lambda a: local_response_norm(a, size, **kw), lambda t: TF.local_response_norm(t, size, **kw), [x], (0,),
          "lrn")
    check(lambda a: LocalResponseNorm(size, **kw)(a), lambda t: torch.nn.LocalResponseNorm(size, **kw)(t), [x], (),
          "LRN")
    assert repr(LocalResponseNorm(size, **kw)) == repr(torch.nn.LocalResponseNorm(size, **kw))


def test_local_response_norm_errors_and_empty():
    same_error(lambda: local_response_norm(axle.zeros(2, 3), 2), lambda: TF.local_response_norm(torch.zeros(2, 3), 2))
    assert tuple(local_response_norm(axle.zeros(0, 3, 4), 2).shape) == (0, 3, 4)


# ----------------------------------------------------------------------------- LP pooling

@pytest.mark.parametrize("p,k,stride,ceil", [(2.0, 3, None, False), (3, 2, 1, False), (1.5, 3, 2, True),
                                              (1, 2, None, False)])
def test_lp_pool1d(p, k, stride, ceil):
    x = randn(2, 3, 9).abs() + 0.1 if p not in (1, 2, 3) else randn(2, 3, 9)
    check(lambda a: lp_pool1d(a, p, k, stride, ceil), lambda t: TF.lp_pool1d(t, p, k, stride, ceil), [x], (0,),
          "lp1d")
    check(lambda a: LPPool1d(p, k, stride, ceil)(a), lambda t: torch.nn.LPPool1d(p, k, stride, ceil)(t), [x], (),
          "LPPool1d")
    assert repr(LPPool1d(p, k, stride, ceil)) == repr(torch.nn.LPPool1d(p, k, stride, ceil))


@pytest.mark.parametrize("p,k,stride,ceil", [(2.0, 2, None, False), (3, (2, 3), (1, 2), False),
                                              (1.5, 3, 2, True)])
def test_lp_pool2d(p, k, stride, ceil):
    x = randn(2, 3, 7, 8).abs() + 0.1 if p == 1.5 else randn(2, 3, 7, 8)
    check(lambda a: lp_pool2d(a, p, k, stride, ceil), lambda t: TF.lp_pool2d(t, p, k, stride, ceil), [x], (0,),
          "lp2d")
    check(lambda a: LPPool2d(p, k, stride, ceil)(a), lambda t: torch.nn.LPPool2d(p, k, stride, ceil)(t), [x], (),
          "LPPool2d")
    assert repr(LPPool2d(p, k, stride, ceil)) == repr(torch.nn.LPPool2d(p, k, stride, ceil))


# ----------------------------------------------------------------------------- max unpooling

@pytest.mark.parametrize("shape,k,stride,pad,out", [((2, 3, 6, 8), 2, None, 0, None), ((2, 3, 7, 9), 2, None, 0, (7, 9)),
                                                    ((1, 2, 7, 7), 3, 2, 1, None), ((3, 6, 8), (2, 3), (2, 2), 0, (6, 8)),
                                                    ((2, 3, 7, 9), 2, None, 0, [2, 3, 7, 9]),
                                                    ((2, 2, 6, 6), 3, 1, 0, None)])   # overlapping windows
def test_max_unpool2d(shape, k, stride, pad, out):
    x = randn(*shape)
    _, idx = TF.max_pool2d(x, k, stride, pad, return_indices=True)
    y = randn(*idx.shape, seed=1)
    check(lambda a, i: max_unpool2d(a, i, k, stride, pad, out), lambda t, i: TF.max_unpool2d(t, i, k, stride, pad, out),
          [y, idx], (0,), "unpool2d")
    check(lambda a, i: MaxUnpool2d(k, stride, pad)(a, i, out), lambda t, i: torch.nn.MaxUnpool2d(k, stride, pad)(t, i, out),
          [y, idx], (), "MaxUnpool2d")
    assert repr(MaxUnpool2d(k, stride, pad)) == repr(torch.nn.MaxUnpool2d(k, stride, pad))


def test_max_unpool2d_of_max_pool2d():
    x = randn(2, 3, 6, 8)
    y, idx = TF.max_pool2d(x, 2, return_indices=True)
    close(max_unpool2d(A(y), A(idx), 2), TF.max_unpool2d(y, idx, 2))


@pytest.mark.parametrize("shape,k,stride,pad,out", [((2, 3, 8), 2, None, 0, None), ((2, 3, 9), 2, None, 0, [9]),
                                                    ((3, 10), 3, 2, 1, [10]), ((2, 3, 9), 3, 1, 0, None)])
def test_max_unpool1d(shape, k, stride, pad, out):
    x = randn(*shape)
    _, idx = TF.max_pool1d(x, k, stride, pad, return_indices=True)
    y = randn(*idx.shape, seed=1)
    check(lambda a, i: max_unpool1d(a, i, k, stride, pad, out), lambda t, i: TF.max_unpool1d(t, i, k, stride, pad, out),
          [y, idx], (0,), "unpool1d")
    check(lambda a, i: MaxUnpool1d(k, stride, pad)(a, i, out), lambda t, i: torch.nn.MaxUnpool1d(k, stride, pad)(t, i, out),
          [y, idx], (), "MaxUnpool1d")
    assert repr(MaxUnpool1d(k, stride, pad)) == repr(torch.nn.MaxUnpool1d(k, stride, pad))


def _unpool_setup():
    x = randn(2, 3, 6, 8)
    return TF.max_pool2d(x, 2, return_indices=True)


def _one_bad(idx, value):
    idx = idx.clone()
    idx[1, 1, 1, 2] = value
    return idx


@pytest.mark.parametrize("make,kind", [
    (lambda y, i: ((y, i.int(), 2), {}), RuntimeError),
    (lambda y, i: ((y, i[:1], 2), {}), RuntimeError),
    (lambda y, i: ((y, i, 2), dict(output_size=(4, 7))), ValueError),
    (lambda y, i: ((y, i, 2), dict(output_size=(6, 10))), ValueError),
    (lambda y, i: ((y, i, 2), dict(output_size=(7, 9, 1))), ValueError),
    (lambda y, i: ((y, _one_bad(i, 48), 2), {}), None),
    (lambda y, i: ((y, _one_bad(i, -3), 2), {}), None),
    (lambda y, i: ((y[0, 0], i[0, 0], 2), {}), RuntimeError),
    (lambda y, i: ((y[:, :0], i[:, :0], 2), {}), RuntimeError),
    (lambda y, i: ((y.int(), i, 2), {}), RuntimeError),
])
def test_max_unpool2d_errors(make, kind):
    y, i = _unpool_setup()
    targs, tkw = make(y, i)
    aargs = [A(a) if isinstance(a, torch.Tensor) else a for a in targs]
    if kind is None:  # torch: RuntimeError, axle: IndexError (an index out of the output)
        kind = IndexError
    same_error(lambda: max_unpool2d(*aargs, **tkw), lambda: TF.max_unpool2d(*targs, **tkw), axle_kind=kind)


def test_max_unpool_empty_batch():
    y, i = _unpool_setup()
    close(max_unpool2d(A(y[:0]), A(i[:0]), 2), TF.max_unpool2d(y[:0], i[:0], 2))


# ----------------------------------------------------------------------------- rrelu

def test_rrelu_eval():
    x = randn(3, 4, 5)
    for kw in [{}, dict(lower=0.1, upper=0.5), dict(lower=0.2, upper=0.2)]:
        check(lambda a: rrelu(a, **kw), lambda t: TF.rrelu(t, **kw), [x], (), "rrelu eval")
        # torch's eval-mode rrelu backward is ~1e-8 off its slope (float32): the gradient against the
        # exact slope (lower + upper) / 2
        slope = (kw.get("lower", 1 / 8) + kw.get("upper", 1 / 3)) / 2
        a = A(x, requires_grad=True)
        rrelu(a, **kw).sum().backward()
        close(a.grad, torch.where(x > 0, torch.ones_like(x), torch.full_like(x, slope)))
        m, tm = RReLU(**kw).eval(), torch.nn.RReLU(**kw).eval()
        check(lambda a: m(a), lambda t: tm(t), [x], (), "RReLU eval")


def test_rrelu_eval_inplace():
    x = randn(3, 4)
    a = A(x)
    out = rrelu(a, 0.1, 0.3, inplace=True)
    close(a, TF.rrelu(x, 0.1, 0.3))
    assert out is a


def test_rrelu_training():
    axle.manual_seed(0)
    x = randn(200, 100)
    a = A(x, requires_grad=True)
    out = rrelu(a, 0.1, 0.3, training=True)
    xn, on = x.numpy(), out.detach().numpy()
    pos = xn > 0
    assert np.array_equal(on[pos], xn[pos])
    slopes = on[~pos] / xn[~pos]
    assert slopes.min() >= 0.1 - 1e-12 and slopes.max() <= 0.3 + 1e-12
    assert abs(slopes.mean() - 0.2) < 0.005 and abs(slopes.var() - 0.2 ** 2 / 12) < 0.0005
    out.sum().backward()
    g = a.grad.numpy()
    assert np.array_equal(g[pos], np.ones(pos.sum()))
    np.testing.assert_allclose(g[~pos], slopes, rtol=1e-12)
    # module in training mode, in place
    b = A(x)
    m = RReLU(0.1, 0.3, inplace=True)
    assert m(b) is b and np.all(b.numpy()[pos] == xn[pos]) and np.all(b.numpy()[~pos] != xn[~pos])


def test_rrelu_errors_and_repr():
    same_error(lambda: rrelu(axle.zeros(3), 0.5, 0.2), lambda: TF.rrelu(torch.zeros(3), 0.5, 0.2), axle_kind=ValueError)
    same_error(lambda: rrelu(axle.zeros(3), 0.5, 0.2, training=True),
               lambda: TF.rrelu(torch.zeros(3), 0.5, 0.2, training=True), axle_kind=ValueError)
    same_error(lambda: rrelu(axle.zeros(3, dtype=axle.int32), training=True),
               lambda: TF.rrelu(torch.zeros(3, dtype=torch.int32), training=True), axle_kind=RuntimeError)
    for kw in [{}, dict(lower=0.1, upper=0.4), dict(inplace=True)]:
        assert repr(RReLU(**kw)) == repr(torch.nn.RReLU(**kw))


# ----------------------------------------------------------------------------- alpha dropouts

ALPHA = 1.7580993408473766


def test_alpha_dropout_identity_when_eval():
    a = A(randn(3, 4))
    assert alpha_dropout(a, 0.5) is a
    assert alpha_dropout(a, 0.5, training=False) is a
    assert feature_alpha_dropout(a, 0.5, training=False) is a
    assert alpha_dropout(a, 0.0, training=True) is a
    m = AlphaDropout(0.3).eval()
    assert m(a) is a
    close(alpha_dropout(a, 1.0, training=True), torch.zeros(3, 4, dtype=torch.float64))


@pytest.mark.parametrize("p", [0.2, 0.5])
def test_alpha_dropout_training(p):
    axle.manual_seed(1)
    x = randn(400, 250)
    a = A(x, requires_grad=True)
    out = alpha_dropout(a, p, training=True)
    q = 1.0 / math.sqrt((ALPHA ** 2 * p + 1) * (1 - p))
    b = ALPHA * q * p
    on, xn = out.detach().numpy(), x.numpy()
    kept = np.isclose(on, xn * q + b, rtol=0, atol=1e-12)
    dropped = np.isclose(on, -ALPHA * q + b, rtol=0, atol=1e-12)
    assert np.all(kept | dropped)
    assert abs(dropped.mean() - p) < 0.01
    # self-normalization: unit-normal input keeps zero mean and unit variance
    assert abs(on.mean()) < 0.02 and abs(on.std() - 1) < 0.02
    out.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.where(kept, q, 0.0), rtol=1e-12)
    m = AlphaDropout(p)
    on2 = m(A(x)).numpy()
    assert not np.array_equal(on2, on)  # a fresh mask per call


def test_feature_alpha_dropout_training():
    axle.manual_seed(2)
    p = 0.4
    x = randn(60, 50, 3, 4)
    out = feature_alpha_dropout(A(x), p, training=True).numpy()
    q = 1.0 / math.sqrt((ALPHA ** 2 * p + 1) * (1 - p))
    b = ALPHA * q * p
    kept = np.isclose(out, x.numpy() * q + b, rtol=0, atol=1e-12)
    dropped = np.isclose(out, -ALPHA * q + b, rtol=0, atol=1e-12)
    assert np.all(kept | dropped)
    per_channel = kept.reshape(60, 50, -1)
    assert np.all(per_channel.all(-1) | (~per_channel).all(-1))   # whole channels
    assert abs((~per_channel[:, :, 0]).mean() - p) < 0.05
    m = FeatureAlphaDropout(p)
    assert tuple(m(A(x)).shape) == tuple(x.shape)
    # inplace
    a = A(x)
    assert feature_alpha_dropout(a, p, training=True, inplace=True) is a


def test_alpha_dropout_errors_and_repr():
    same_error(lambda: alpha_dropout(axle.zeros(3), 1.5), lambda: TF.alpha_dropout(torch.zeros(3), 1.5))
    same_error(lambda: feature_alpha_dropout(axle.zeros(3), -0.1), lambda: TF.feature_alpha_dropout(torch.zeros(3), -0.1))
    same_error(lambda: feature_alpha_dropout(axle.zeros(3), 0.5, True),
               lambda: TF.feature_alpha_dropout(torch.zeros(3), 0.5, True), axle_kind=RuntimeError)
    for cls, tcls in [(AlphaDropout, torch.nn.AlphaDropout), (FeatureAlphaDropout, torch.nn.FeatureAlphaDropout)]:
        assert repr(cls()) == repr(tcls())
        assert repr(cls(0.2, True)) == repr(tcls(0.2, True))
        same_error(lambda: cls(2.0), lambda: tcls(2.0))


# ----------------------------------------------------------------------------- gumbel softmax

def test_gumbel_softmax_soft():
    axle.manual_seed(3)
    logits = A(torch.log(torch.tensor([0.1, 0.2, 0.7], dtype=torch.float64)).expand(20000, 3).contiguous())
    y = gumbel_softmax(logits, tau=0.5)
    yn = y.numpy()
    assert np.all(yn >= 0)
    np.testing.assert_allclose(yn.sum(-1), 1, rtol=1e-12)
    # the argmax of the Gumbel-perturbed logits is a categorical sample with these probabilities
    freq = np.bincount(yn.argmax(-1), minlength=3) / 20000
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.015)


def test_gumbel_softmax_hard_and_dim():
    axle.manual_seed(4)
    x = randn(5, 4, 6)
    a = A(x, requires_grad=True)
    y = gumbel_softmax(a, tau=2.0, hard=True, dim=1)
    yn = y.detach().numpy()
    assert set(np.unique(yn)) <= {0.0, 1.0}
    np.testing.assert_array_equal(yn.sum(1), np.ones((5, 6)))
    # straight-through: the gradient is the soft sample's, whose column sums vanish (softmax Jacobian)
    w = randn(5, 4, 6, seed=9)
    (y * A(w)).sum().backward()
    g = a.grad.numpy()
    assert np.abs(g).max() > 0
    np.testing.assert_allclose(g.sum(1), 0, atol=1e-12)
    with pytest.warns(UserWarning, match="deprecated"):
        gumbel_softmax(A(x), eps=1e-3)


# ----------------------------------------------------------------------------- multilabel margin loss

MLM_TARGETS = [
    torch.tensor([[3, 0, -1, 1], [0, 1, 2, 3]]),       # a -1 ends the list
    torch.tensor([[1, 1, -1, 2], [-1, 2, 0, 1]]),      # repeated targets; an empty list
    torch.tensor([[2, -1, 5, 7], [3, 2, 1, -1]]),      # entries after the -1 are ignored (range still checked)
]


@pytest.mark.parametrize("target", MLM_TARGETS)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss(target, reduction):
    target = target.clamp(max=3)
    x = randn(2, 4)
    check(lambda a, t: multilabel_margin_loss(a, t, reduction=reduction),
          lambda a, t: TF.multilabel_margin_loss(a, t, reduction=reduction), [x, target], (0,), "mlm")
    check(lambda a, t: MultiLabelMarginLoss(reduction=reduction)(a, t),
          lambda a, t: torch.nn.MultiLabelMarginLoss(reduction=reduction)(a, t), [x, target], (), "MLM")


def test_multilabel_margin_loss_shapes():
    for x, t in [(randn(5), torch.tensor([4, 1, -1, 0, 0])), (randn(()), torch.tensor([0])),
                 (randn(()), torch.tensor(-1)), (randn(0, 3), torch.zeros(0, 3, dtype=torch.long)),
                 (randn(6, 3), torch.tensor([[0, -1, 1]] * 6))]:
        for reduction in ["none", "mean", "sum"]:
            if x.numel() == 0:
                # torch 1.13 returns uninitialized memory for an empty batch with 'mean' and
                # sometimes 'sum' (seen as -5e245 in CI): axle's own answers are checked
                got = multilabel_margin_loss(A(x), A(t), reduction=reduction)
                if reduction == "none":
                    assert tuple(got.shape) == (0,)
                elif reduction == "sum":
                    assert got.item() == 0.0
                else:
                    assert got.item() != got.item()  # nan, the mean of nothing
                continue
            check(lambda a, b: multilabel_margin_loss(a, b, reduction=reduction),
                  lambda a, b: TF.multilabel_margin_loss(a, b, reduction=reduction), [x, t],
                  (0,) if x.numel() else (), "mlm shapes")
    # a margin met exactly: torch's gradient is 0 there
    x = torch.tensor([[1.0, 0.0, 0.5]], dtype=torch.float64)
    check(lambda a, b: multilabel_margin_loss(a, b), lambda a, b: TF.multilabel_margin_loss(a, b),
          [x, torch.tensor([[0, -1, 2]])], (0,), "mlm tie")


def test_multilabel_margin_loss_legacy_and_repr():
    x, t = randn(2, 4), MLM_TARGETS[0]
    with pytest.warns(UserWarning):
        got = multilabel_margin_loss(A(x), A(t), size_average=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(got, TF.multilabel_margin_loss(x, t, size_average=False))
        assert repr(MultiLabelMarginLoss()) == repr(torch.nn.MultiLabelMarginLoss())
        m, tm = MultiLabelMarginLoss(reduce=False), torch.nn.MultiLabelMarginLoss(reduce=False)
        assert m.reduction == tm.reduction == "none"


@pytest.mark.parametrize("x,t,kind", [
    (lambda: torch.zeros(2, 6), lambda: torch.zeros(2, 5, dtype=torch.long), RuntimeError),
    (lambda: torch.zeros(2, 6), lambda: torch.zeros(2, 6), RuntimeError),
    (lambda: torch.zeros(2, 3, 6), lambda: torch.zeros(2, 3, 6, dtype=torch.long), RuntimeError),
    (lambda: torch.zeros(2, 0), lambda: torch.zeros(2, 0, dtype=torch.long), RuntimeError),
    (lambda: torch.zeros(2, 6), lambda: torch.full((2, 6), 7), IndexError),
    (lambda: torch.zeros(2, 6), lambda: torch.full((2, 6), -2), IndexError),
    (lambda: torch.zeros(2, 3), lambda: torch.tensor([[0, -1, 3], [0, 1, 2]]), IndexError),
])
def test_multilabel_margin_loss_errors(x, t, kind):
    same_error(lambda: multilabel_margin_loss(A(x()), A(t())), lambda: TF.multilabel_margin_loss(x(), t()),
               axle_kind=kind)
    same_error(lambda: multilabel_margin_loss(A(torch.zeros(2, 3)), A(torch.zeros(2, 3, dtype=torch.long)),
                                              reduction="bad"),
               lambda: TF.multilabel_margin_loss(torch.zeros(2, 3), torch.zeros(2, 3, dtype=torch.long),
                                                 reduction="bad"))


# ----------------------------------------------------------------------------- TripletMarginWithDistanceLoss

def test_triplet_margin_with_distance_loss_module():
    anchor, pos, neg = randn(4, 5, seed=1), randn(4, 5, seed=2), randn(4, 5, seed=3)
    assert repr(TripletMarginWithDistanceLoss()) == repr(torch.nn.TripletMarginWithDistanceLoss())
    for kw in [{}, dict(margin=0.5, swap=True), dict(reduction="none")]:
        check(lambda a, p, n: TripletMarginWithDistanceLoss(**kw)(a, p, n),
              lambda a, p, n: torch.nn.TripletMarginWithDistanceLoss(**kw)(a, p, n), [anchor, pos, neg], (0, 1, 2),
              "triplet")
    cos = lambda x, y: 1 - (x * y).sum(-1) / ((x * x).sum(-1) * (y * y).sum(-1)) ** 0.5  # noqa: E731
    check(lambda a, p, n: TripletMarginWithDistanceLoss(distance_function=cos, margin=0.3)(a, p, n),
          lambda a, p, n: torch.nn.TripletMarginWithDistanceLoss(distance_function=cos, margin=0.3)(a, p, n),
          [anchor, pos, neg], (0, 1, 2), "triplet cos")


# ----------------------------------------------------------------------------- embedding_bag

BAG_INPUT = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 2])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("offsets,last", [([0, 4], False), ([0, 3, 3, 7], False), ([0, 0, 10], False),
                                          ([0, 4, 4, 10], True), ([0, 2, 10], True), ([0], False), ([0, 10], True)])
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding_bag_1d(mode, offsets, last, padding_idx):
    w = randn(10, 3, seed=5)
    off = torch.tensor(offsets)
    check(lambda i, wt, o: embedding_bag(i, wt, o, mode=mode, include_last_offset=last, padding_idx=padding_idx),
          lambda i, wt, o: TF.embedding_bag(i, wt, o, mode=mode, include_last_offset=last, padding_idx=padding_idx),
          [BAG_INPUT, w, off], (1,), "bag 1d")


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_and_module(mode):
    w = randn(10, 4, seed=6)
    inp = BAG_INPUT[:9].reshape(3, 3)
    check(lambda i, wt: embedding_bag(i, wt, mode=mode), lambda i, wt: TF.embedding_bag(i, wt, mode=mode),
          [inp, w], (1,), "bag 2d")
    m = EmbeddingBag.from_pretrained(A(w), freeze=False, mode=mode)
    tm = torch.nn.EmbeddingBag.from_pretrained(w.clone(), freeze=False, mode=mode)
    close(m(A(inp)), tm(inp))
    close(m(A(BAG_INPUT), A(torch.tensor([0, 5]))), tm(BAG_INPUT, torch.tensor([0, 5])))


def test_embedding_bag_per_sample_weights():
    w, psw = randn(10, 3, seed=5), randn(10, seed=8)
    off = torch.tensor([0, 3, 3, 7])
    for pad in [None, 4]:
        check(lambda i, wt, o, s: embedding_bag(i, wt, o, mode="sum", per_sample_weights=s, padding_idx=pad),
              lambda i, wt, o, s: TF.embedding_bag(i, wt, o, mode="sum", per_sample_weights=s, padding_idx=pad),
              [BAG_INPUT, w, off, psw], (1, 3), "bag psw")
    inp = BAG_INPUT[:9].reshape(3, 3)
    check(lambda i, wt, s: embedding_bag(i, wt, mode="sum", per_sample_weights=s),
          lambda i, wt, s: TF.embedding_bag(i, wt, mode="sum", per_sample_weights=s),
          [inp, w, psw[:9].reshape(3, 3)], (1, 2), "bag psw 2d")


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_scale_grad_by_freq(mode):
    # torch 1.13's CPU embedding_bag backward divides by the wrong counts with scale_grad_by_freq:
    # the reference is F.embedding(scale_grad_by_freq=True) reduced per bag
    w = randn(10, 3, seed=5)
    off = [0, 4, 7, 10]

    def reference(i, wt, o):
        rows = TF.embedding(i, wt, scale_grad_by_freq=True)
        bags = [rows[off[b]:off[b + 1]] for b in range(3)]
        return torch.stack([r.sum(0) if mode == "sum" else r.mean(0) for r in bags])

    check(lambda i, wt, o: embedding_bag(i, wt, o, mode=mode, scale_grad_by_freq=True), reference,
          [BAG_INPUT, w, torch.tensor(off[:3])], (1,), "bag freq")


def test_embedding_bag_max_norm_and_int32():
    w = randn(10, 3, seed=5) * 3
    aw, tw = A(w), w.clone()
    off = torch.tensor([0, 4])
    close(embedding_bag(A(BAG_INPUT), aw, A(off), max_norm=1.5), TF.embedding_bag(BAG_INPUT, tw, off, max_norm=1.5))
    close(aw, tw)   # the named rows renormalized in place
    close(embedding_bag(A(BAG_INPUT.int()), A(w), A(off.int()), mode="sum"),
          TF.embedding_bag(BAG_INPUT.int(), w, off.int(), mode="sum"))


def test_embedding_bag_trailing_entries_after_last_offset():
    # torch 1.13's kernel corrupts memory here (include_last_offset with offsets[-1] < len(input)):
    # entries after the last offset belong to no bag
    w = randn(10, 3, seed=5)
    got = embedding_bag(A(BAG_INPUT), A(w), A(torch.tensor([0, 4, 4, 8])), mode="sum", include_last_offset=True)
    want = torch.stack([w[BAG_INPUT[:4]].sum(0), torch.zeros(3, dtype=torch.float64), w[BAG_INPUT[4:8]].sum(0)])
    close(got, want)


def test_embedding_bag_empty():
    w = randn(10, 3, seed=5)
    for inp, off, kw in [(torch.tensor([], dtype=torch.long), torch.tensor([0, 0]), {}),
                         (torch.tensor([], dtype=torch.long), torch.tensor([0, 0]), dict(mode="max")),
                         (torch.tensor([], dtype=torch.long), torch.tensor([0]), dict(include_last_offset=True))]:
        close(embedding_bag(A(inp), A(w), A(off), **kw), TF.embedding_bag(inp, w, off, **kw))
    # no offsets at all: no bags (torch 1.13 segfaults on this one)
    close(embedding_bag(A(BAG_INPUT), A(w), A(torch.tensor([], dtype=torch.long))),
          torch.zeros(0, 3, dtype=torch.float64))


def test_embedding_bag_module_repr_and_init():
    for args, kw in [((10, 3), {}), ((10, 3), dict(max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, mode="sum")),
                     ((5, 2), dict(padding_idx=-1, mode="max")), ((5, 2), dict(padding_idx=0))]:
        assert repr(EmbeddingBag(*args, **kw)) == repr(torch.nn.EmbeddingBag(*args, **kw))
    m = EmbeddingBag(6, 4, padding_idx=2)
    assert tuple(m.weight.shape) == (6, 4) and m.weight.requires_grad
    assert np.all(m.weight.detach().numpy()[2] == 0) and np.any(m.weight.detach().numpy()[0] != 0)
    for bad in [dict(padding_idx=6), dict(padding_idx=-7)]:
        with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
            EmbeddingBag(6, 4, **bad)
        with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
            torch.nn.EmbeddingBag(6, 4, **bad)
    with pytest.raises(AssertionError, match="Shape of weight"):
        EmbeddingBag(6, 4, _weight=axle.zeros(5, 4))
    with pytest.raises(AssertionError, match="2-dimensional"):
        EmbeddingBag.from_pretrained(axle.zeros(5))
    assert not EmbeddingBag.from_pretrained(axle.zeros(5, 2)).weight.requires_grad


W10 = lambda: torch.zeros(10, 3)  # noqa: E731
I8 = lambda: torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])  # noqa: E731


@pytest.mark.parametrize("args,kw,kind", [
    ((I8, W10, lambda: torch.tensor([1, 4])), {}, ValueError),
    ((I8, W10, lambda: torch.tensor([0, 9])), {}, ValueError),
    ((lambda: I8().float(), W10, lambda: torch.tensor([0, 4])), {}, RuntimeError),
    ((I8, W10, lambda: torch.tensor([0, 4])), dict(padding_idx=10), ValueError),
    ((I8, W10, lambda: torch.tensor([0, 4])), dict(padding_idx=-11), ValueError),
    ((I8, W10, lambda: torch.tensor([0, 4])), dict(mode="foo"), ValueError),
    ((I8, W10, lambda: torch.tensor([0, 4])), dict(mode="max", scale_grad_by_freq=True), ValueError),
    ((I8, W10, lambda: torch.tensor([0, 4])), dict(mode="max", sparse=True), ValueError),
    ((I8, W10, lambda: torch.tensor([0, 4])), dict(per_sample_weights=torch.ones(8)), NotImplementedError),
    ((I8, W10, lambda: torch.tensor([0, 4])), dict(mode="sum", per_sample_weights=torch.ones(7)), ValueError),
    ((I8, W10, lambda: torch.tensor([0, 4])), dict(mode="sum", per_sample_weights=torch.ones(8).double()),
     RuntimeError),
    ((lambda: I8().reshape(2, 4), W10, lambda: torch.tensor([0, 4])), {}, ValueError),
    ((I8, W10), {}, ValueError),
    ((I8, W10, lambda: torch.tensor([[0], [4]])), {}, ValueError),
    ((lambda: I8().reshape(2, 2, 2), W10), {}, ValueError),
])
def test_embedding_bag_errors(args, kw, kind):
    targs = [f() for f in args]
    aargs = [A(t) for t in targs]
    akw = {k: A(v) if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
    same_error(lambda: embedding_bag(*aargs, **akw), lambda: TF.embedding_bag(*targs, **kw), axle_kind=kind,
               replace=(("torch.Tensor", "axle.Tensor"),))


def test_embedding_bag_index_out_of_range():
    with pytest.raises(IndexError):
        embedding_bag(A(torch.tensor([1, 10])), A(W10()), A(torch.tensor([0])))
    with pytest.raises(IndexError):
        embedding_bag(A(torch.tensor([1, -1])), A(W10()), A(torch.tensor([0])))
