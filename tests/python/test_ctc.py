"""CTC loss (F.ctc_loss, axle.ctc_loss, nn.CTCLoss) against torch 1.13: losses and gradients w.r.t.
log_probs in float64 and float32 over reductions, blanks, zero_infinity, padded and concatenated
targets, lengths as tensors (int32 / int64) or tuples, unbatched inputs, repeated labels and
infeasible alignments; torch's errors for bad lengths, blank and dtypes."""
import numpy as np
import pytest

import axle
import axle.nn.functional as AF
from axle import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def A(t, requires_grad=False):
    a = axle.from_numpy(t.detach().numpy().copy())
    return a.requires_grad_(True) if requires_grad else a


def N(a):
    return np.array(a.detach().numpy())


def lengths(v, kind, torch_side):
    if kind == "tuple":
        return tuple(v)
    if torch_side:
        return torch.tensor(v, dtype=torch.int64 if kind == "int64" else torch.int32)
    return axle.tensor(v, dtype=axle.int64 if kind == "int64" else axle.int32)


def compare(lp, tg, il, tl, kind="tuple", dtype=torch.float64, **kw):
    lp = lp.to(dtype).detach().requires_grad_()
    la = A(lp, True)
    rt = TF.ctc_loss(lp, tg, lengths(il, kind, True), lengths(tl, kind, True), **kw)
    ra = AF.ctc_loss(la, A(tg), lengths(il, kind, False), lengths(tl, kind, False), **kw)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == torch.float64 else dict(rtol=2e-5, atol=2e-5)
    assert tuple(ra.shape) == tuple(rt.shape)
    assert str(ra.dtype).split(".")[1] == str(rt.dtype).split(".")[1]
    np.testing.assert_allclose(N(ra), rt.detach().numpy(), **tol)
    w = torch.rand(rt.shape, dtype=dtype, generator=torch.Generator().manual_seed(3)) + 0.5
    gt, = torch.autograd.grad((rt * w).sum(), lp)
    ga, = axle.autograd.grad((ra * A(w)).sum(), la)
    np.testing.assert_allclose(N(ga), gt.numpy(), **tol)
    return ra


def batch(T=8, N=3, C=5, seed=0, normalized=True):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(T, N, C, dtype=torch.float64, generator=g)
    return x.log_softmax(2) if normalized else x


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("kind", ["tuple", "int64", "int32"])
def test_padded_targets(reduction, dtype, kind):
    tg = torch.tensor([[1, 2, 2, 4], [3, 1, 0, 0], [4, 4, 4, 4]])
    compare(batch(), tg, [8, 6, 8], [4, 2, 3], kind, dtype, reduction=reduction)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_concatenated_targets(reduction, dtype):
    tg = torch.tensor([1, 2, 2, 4, 3, 1, 4, 4, 4])
    compare(batch(), tg, [8, 6, 8], [4, 2, 3], "int64", dtype, reduction=reduction)
    compare(batch(), tg.to(torch.int32), [8, 6, 8], [4, 2, 3], "tuple", dtype, reduction=reduction)


@pytest.mark.parametrize("blank", [0, 2, 4])
def test_blank_and_unnormalized_inputs(blank):
    tg = torch.tensor([[1, 3, 3], [0, 1, 2], [3, 3, 3]])
    tg = torch.where(tg == blank, torch.full_like(tg, (blank + 1) % 5), tg)
    compare(batch(seed=1), tg, [8, 7, 8], [3, 3, 2], blank=blank, reduction="none")
    compare(batch(seed=2, normalized=False), tg, [8, 7, 8], [3, 3, 2], blank=blank, reduction="mean")


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_infeasible_and_empty(zero_infinity):
    # sample 1 needs 7 frames for 4 repeated labels but has 5: infinite loss (zeroed with zero_infinity)
    tg = torch.tensor([[1, 2, 0, 0], [3, 3, 3, 3], [1, 1, 2, 0]])
    kw = dict(zero_infinity=zero_infinity)
    lp = batch(seed=4)
    rt = TF.ctc_loss(lp, tg, (8, 5, 8), (2, 4, 3), reduction="none", **kw)
    ra = AF.ctc_loss(A(lp), A(tg), (8, 5, 8), (2, 4, 3), reduction="none", **kw)
    np.testing.assert_allclose(N(ra), rt.numpy(), rtol=1e-10)
    if zero_infinity:
        compare(lp, tg, (8, 5, 8), (2, 4, 3), reduction="mean", **kw)
        compare(lp, tg, (8, 5, 8), (2, 4, 3), reduction="sum", **kw)
    # empty targets: the all-blank path
    compare(lp, tg, (8, 5, 8), (0, 1, 0), reduction="none", **kw)
    compare(lp, tg, (8, 3, 1), (0, 1, 0), reduction="mean", **kw)


def test_empty_input_length():
    # torch's kernel leaves an empty input's loss uninitialized (garbage); axle gives 0 for an empty
    # target and inf otherwise, and the other samples as torch
    lp = batch(N=2)
    tg = torch.tensor([[1, 1], [2, 3]])
    rt = TF.ctc_loss(lp, tg, (0, 8), (0, 2), reduction="none")
    ra = AF.ctc_loss(A(lp), A(tg), (0, 8), (0, 2), reduction="none")
    np.testing.assert_allclose(N(ra)[1], rt.numpy()[1], rtol=1e-10)
    assert N(ra)[0] == 0
    ra = AF.ctc_loss(A(lp), A(tg), (0, 8), (1, 2), reduction="none")
    assert N(ra)[0] == np.inf


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_unbatched(reduction):
    lp = batch(N=1)[:, 0]
    for il, tl in [((8,), (3,)), (torch.tensor(8), torch.tensor(3)), (torch.tensor([7]), torch.tensor([3]))]:
        lpt = lp.detach().requires_grad_()
        la = A(lp, True)
        rt = TF.ctc_loss(lpt, torch.tensor([1, 2, 2]), il, tl, reduction=reduction)
        conv = (lambda v: A(v) if isinstance(v, torch.Tensor) else v)
        ra = AF.ctc_loss(la, axle.tensor([1, 2, 2]), conv(il), conv(tl), reduction=reduction)
        assert tuple(ra.shape) == tuple(rt.shape)
        np.testing.assert_allclose(N(ra), rt.detach().numpy(), rtol=1e-10)
        gt, = torch.autograd.grad(rt, lpt)
        ga, = axle.autograd.grad(ra, la)
        np.testing.assert_allclose(N(ga), gt.numpy(), rtol=1e-10, atol=1e-12)
    # a 2-D (1, S) target is padded; a 1-D one is concatenated: its size must be the target length
    rt = TF.ctc_loss(lp, torch.tensor([[1, 2, 2]]), (8,), (2,), reduction=reduction)
    ra = AF.ctc_loss(A(lp), axle.tensor([[1, 2, 2]]), (8,), (2,), reduction=reduction)
    np.testing.assert_allclose(N(ra), rt.numpy(), rtol=1e-10)
    with pytest.raises(RuntimeError, match="Expected tensor to have size 2 at dimension 0, but got size 3"):
        TF.ctc_loss(lp, torch.tensor([1, 2, 2]), (8,), (2,), reduction=reduction)
    with pytest.raises(axle.ShapeError, match="Expected tensor to have size 2 at dimension 0, but got size 3"):
        AF.ctc_loss(A(lp), axle.tensor([1, 2, 2]), (8,), (2,), reduction=reduction)


def test_module_and_aten_forms():
    lp, tg = batch(), torch.tensor([[1, 2], [3, 1], [4, 4]])
    for kw in [{}, dict(blank=4, reduction="sum", zero_infinity=True), dict(reduction="none")]:
        mt, ma = torch.nn.CTCLoss(**kw), nn.CTCLoss(**kw)
        assert repr(ma) == repr(mt)
        assert (ma.blank, ma.reduction, ma.zero_infinity) == (mt.blank, mt.reduction, mt.zero_infinity)
        tgk = torch.where(tg == kw.get("blank", 0), torch.ones_like(tg), tg)
        np.testing.assert_allclose(N(ma(A(lp), A(tgk), (8, 7, 6), (2, 2, 1))),
                                   mt(lp, tgk, (8, 7, 6), (2, 2, 1)).numpy(), rtol=1e-10)
    # torch.ctc_loss: aten's int reduction; torch 1.13's binding defaults to the per-sample losses
    for args in [(), (0,), (0, 0), (0, 1), (0, 2), (1, 2, True)]:
        tgk = tg if not args or args[0] != 1 else torch.tensor([[2, 2], [3, 2], [4, 4]])
        rt = torch.ctc_loss(lp, tgk, (8, 7, 6), (2, 2, 1), *args)
        ra = axle.ctc_loss(A(lp), A(tgk), (8, 7, 6), (2, 2, 1), *args)
        np.testing.assert_allclose(N(ra), rt.numpy(), rtol=1e-10)
    with pytest.raises(TypeError):
        torch.ctc_loss(lp, tg, (8, 7, 6), (2, 2, 1), 0, "mean")
    with pytest.raises(TypeError):
        axle.ctc_loss(A(lp), A(tg), (8, 7, 6), (2, 2, 1), 0, "mean")


def test_trains():
    axle.manual_seed(0)
    logits = axle.randn(10, 2, 4).requires_grad_()
    tg = axle.tensor([[1, 2, 3], [3, 3, 0]])
    opt = axle.optim.Adam([logits], lr=0.1)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = nn.CTCLoss()(logits.log_softmax(2), tg, (10, 8), (3, 2))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.3 * losses[0]


ERRORS = [
    # (kwargs changes, torch's exception, axle's exception, message)
    (dict(il=(9, 8, 8)), RuntimeError, axle.ValueError,
     "Expected input_lengths to have value at most 8, but got value 9"),
    (dict(il=(8, 8)), RuntimeError, axle.ShapeError, "input_lengths must be of size batch_size"),
    (dict(tl=(1, 1, 1, 1)), RuntimeError, axle.ShapeError, "target_lengths must be of size batch_size"),
    (dict(tl=(5, 1, 1)), RuntimeError, axle.ShapeError,
     "Expected tensor to have size at least 5 at dimension 1, but got size 4"),
    (dict(blank=5), RuntimeError, axle.ValueError, "blank must be in label range"),
    (dict(blank=-1), RuntimeError, axle.ValueError, "blank must be in label range"),
    (dict(reduction="avg"), ValueError, axle.ValueError, "avg is not a valid value for reduction"),
    (dict(tg=[1, 2, 3]), RuntimeError, axle.ShapeError,
     "Expected tensor to have size 6 at dimension 0, but got size 3"),
    (dict(il=8), TypeError, axle.TypeError, ""),
    (dict(il=torch.tensor([8, 6, 8])), TypeError, axle.TypeError, ""),
    (dict(il="float"), RuntimeError, axle.DTypeError, "input_lengths must be integral"),
    (dict(lp="int"), RuntimeError, axle.DTypeError, "\"ctc_loss_cpu\" not implemented for 'Int'"),
]


@pytest.mark.parametrize("change,texc,aexc,msg", ERRORS)
def test_errors(change, texc, aexc, msg):
    lp, tg = batch(), torch.tensor([[1, 2, 2, 4], [3, 1, 0, 0], [4, 4, 4, 4]])
    args = dict(lp=lp, tg=tg, il=(8, 6, 8), tl=(2, 2, 2), blank=0, reduction="mean")
    args.update(change)
    if args["lp"] == "int":
        args["lp"] = lp.int()
    if isinstance(args["tg"], list):
        args["tg"] = torch.tensor(args["tg"])
    il_t, tl_t = args["il"], args["tl"]
    if il_t == "float":
        il_t, tl_t = torch.tensor([8.0, 6.0, 8.0]), torch.tensor(tl_t)
    conv = (lambda v: A(v) if isinstance(v, torch.Tensor) else v)
    with pytest.raises(texc, match=msg):
        TF.ctc_loss(args["lp"], args["tg"], il_t, tl_t, args["blank"], args["reduction"])
    with pytest.raises(aexc, match=msg):
        AF.ctc_loss(A(args["lp"]), A(args["tg"]), conv(il_t), conv(tl_t), args["blank"], args["reduction"])


def test_axle_only_errors():
    # where torch reads out of bounds or returns garbage, axle raises
    lp = batch()
    with pytest.raises(axle.ValueError, match="input_lengths must be non-negative"):
        AF.ctc_loss(A(lp), axle.tensor([[1], [1], [1]]), (-1, 8, 8), (1, 1, 1))
    with pytest.raises(axle.ValueError, match="target_lengths must be non-negative"):
        AF.ctc_loss(A(lp), axle.tensor([[1], [1], [1]]), (8, 8, 8), (-1, 1, 1))
    with pytest.raises(axle.IndexError, match=r"target values must be in \[0, 5\)"):
        AF.ctc_loss(A(lp), axle.tensor([[1], [7], [1]]), (8, 8, 8), (1, 1, 1))
    # values beyond a target's length are never read (torch's as well)
    tg = torch.tensor([[1, 9], [7, -3], [1, 2]])
    compare(lp, tg, (8, 8, 8), (1, 0, 2), reduction="none")
