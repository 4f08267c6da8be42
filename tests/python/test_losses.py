"""axle.nn.functional's losses and distance helpers against torch 1.13's: values for every
reduction in float64 (1e-12 relative) and float32 (1e-6 relative), gradients through
.backward() (inputs, targets and weights where torch differentiates them), warnings, and
torch's errors (kind and message)."""
import math
import warnings

import numpy as np
import pytest

import axle
import axle.nn.functional as AF

torch = pytest.importorskip("torch")
F = torch.nn.functional

DTYPES = [torch.float64, torch.float32]
REDUCTIONS = ["none", "mean", "sum"]
# (rtol, atol): relative equality, with an absolute floor for values that cancel to ~0
TOL = {torch.float64: (1e-12, 1e-13), torch.float32: (1e-6, 1e-6)}
# axle's float32 log_softmax along a contiguous last dim (the cpu plugin's oneDNN softmax_log)
# is up to ~4e-6 off the exact value where torch's is ~7e-7: cross entropy's float32 checks
# allow that absolute error (float64 runs the exact reference kernel).
LOG_SOFTMAX_TOL = {torch.float64: TOL[torch.float64], torch.float32: (1e-6, 1e-5)}


def A(t, requires_grad=False):
    """A torch tensor's values as a fresh axle leaf tensor."""
    a = axle.from_numpy(t.detach().numpy().copy())
    if requires_grad:
        a.requires_grad_(True)
    return a


def T(a):
    return torch.from_numpy(np.array(a.detach().numpy()))


def close(got, want, dtype, what="", tol=None):
    got = T(got) if not isinstance(got, torch.Tensor) else got
    assert tuple(got.shape) == tuple(want.shape), (what, got.shape, want.shape)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    rtol, atol = (tol or TOL)[dtype]
    torch.testing.assert_close(got.double(), want.double().detach(), rtol=rtol, atol=atol, equal_nan=True,
                               msg=lambda m: "%s: %s" % (what, m))


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _shape(shape):
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], tuple) else tuple(shape)


def randn(*shape, dtype=torch.float64, seed=0, scale=1.0):
    return torch.randn(_shape(shape), generator=gen(seed), dtype=torch.float64).mul(scale).to(dtype)


def rand(*shape, dtype=torch.float64, seed=0):
    return torch.rand(_shape(shape), generator=gen(seed), dtype=torch.float64).to(dtype)


def run_both(afn, tfn, tensors, grads=(), dtype=torch.float64, tag="", tol=None):
    """Calls afn / tfn on the same tensors (dict name -> torch tensor, None allowed; names in grads
    become leaves requiring grad), compares the values, then the gradients of a weighted sum of the
    output (same random weights on both sides)."""
    t_in = {k: (None if v is None else v.clone().requires_grad_(k in grads)) for k, v in tensors.items()}
    a_in = {k: (None if v is None else A(v, k in grads)) for k, v in tensors.items()}
    want = tfn(**t_in)
    got = afn(**a_in)
    close(got, want, dtype, tag + " value", tol)
    if not grads:
        return got, want
    upstream = randn(*want.shape, seed=99).to(want.dtype)
    (want * upstream).sum().backward()
    (got * A(upstream)).sum().backward()
    for k in grads:
        assert a_in[k].grad is not None, (tag, k)
        close(a_in[k].grad, t_in[k].grad, dtype, "%s grad %s" % (tag, k), tol)
    return got, want


def check_gradcheck(fn, *inputs):
    """Finite differences for gradients torch does not implement (weights of nll_loss, ...)."""
    leaves = [A(t, True) for t in inputs]
    assert axle.autograd.gradcheck(lambda *xs: fn(*xs), leaves, eps=1e-6, atol=1e-7, rtol=1e-5)


# ----------------------------------------------------------------------------- regression losses

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kwargs", [
    ("mse_loss", {}), ("l1_loss", {}),
    ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}), ("smooth_l1_loss", {"beta": 0.0}),
    ("smooth_l1_loss", {"beta": 3.0}),
    ("huber_loss", {}), ("huber_loss", {"delta": 0.3}), ("huber_loss", {"delta": 4.0}),
])
def test_pointwise_regression(name, kwargs, reduction, dtype):
    x, y = randn(4, 5, dtype=dtype, seed=1, scale=2.0), randn(4, 5, dtype=dtype, seed=2)
    run_both(lambda input, target: getattr(AF, name)(input, target, reduction=reduction, **kwargs),
             lambda input, target: getattr(F, name)(input, target, reduction=reduction, **kwargs),
             {"input": x, "target": y}, grads=("input", "target"), dtype=dtype, tag=name)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_pointwise_broadcast_warns(name):
    x, y = randn(4, 5, seed=1), randn(5, seed=2)
    with pytest.warns(UserWarning, match="Using a target size"):
        got = getattr(AF, name)(A(x), A(y), reduction="none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(F, name)(x, y, reduction="none")
    close(got, want, torch.float64, name)


def test_pointwise_kinks():
    """Gradients where |input - target| is 0 or exactly beta / delta."""
    x = torch.tensor([0.0, 1.0, -1.0, 0.5, 2.0], dtype=torch.float64)
    y = torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64)
    for name, kw in [("l1_loss", {}), ("mse_loss", {}), ("smooth_l1_loss", {"beta": 1.0}),
                     ("smooth_l1_loss", {"beta": 0.5}), ("huber_loss", {"delta": 1.0}), ("huber_loss", {"delta": 0.5})]:
        run_both(lambda input, target: getattr(AF, name)(input, target, reduction="sum", **kw),
                 lambda input, target: getattr(F, name)(input, target, reduction="sum", **kw),
                 {"input": x, "target": y}, grads=("input", "target"), tag=name)


def test_legacy_size_average_reduce():
    x, y = randn(3, 4, seed=1), randn(3, 4, seed=2)
    for sa, rd in [(None, False), (False, None), (True, True), (False, True), (True, None)]:
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            got = AF.mse_loss(A(x), A(y), size_average=sa, reduce=rd)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = F.mse_loss(x, y, size_average=sa, reduce=rd)
        close(got, want, torch.float64, "legacy %s %s" % (sa, rd))


# ----------------------------------------------------------------------------- nll_loss / cross_entropy

def _targets(shape, n_classes, seed, ignore_index=None, every=3):
    t = torch.randint(0, n_classes, shape, generator=gen(seed))
    if ignore_index is not None:
        flat = t.view(-1)
        flat[::every] = ignore_index
    return t


NLL_SHAPES = [(6, 5), (5,), (3, 5, 4), (2, 5, 3, 4), (2, 5, 3, 2, 2)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", NLL_SHAPES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_nll_loss(shape, reduction, dtype, weighted, ignore_index):
    n_classes = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    x = F.log_softmax(randn(*shape, seed=3), 0 if len(shape) == 1 else 1).to(dtype)
    t = _targets(tshape, n_classes, 4, ignore_index=-100 if ignore_index == -100 else None)
    w = rand(n_classes, seed=5, dtype=dtype) + 0.1 if weighted else None
    run_both(lambda input, target, weight: AF.nll_loss(input, target, weight, ignore_index=ignore_index,
                                                       reduction=reduction),
             lambda input, target, weight: F.nll_loss(input, target, weight, ignore_index=ignore_index,
                                                      reduction=reduction),
             {"input": x, "target": t, "weight": w}, grads=("input",), dtype=dtype,
             tag="nll %s %s" % (shape, reduction))


def test_nll_loss_all_ignored_and_empty():
    x = randn(4, 3)
    t = torch.full((4,), -100)
    for reduction in REDUCTIONS:
        run_both(lambda input, target: AF.nll_loss(input, target, reduction=reduction),
                 lambda input, target: F.nll_loss(input, target, reduction=reduction),
                 {"input": x, "target": t})  # mean: 0 / 0 = nan, as torch
    run_both(lambda input, target: AF.nll_loss(input, target),
             lambda input, target: F.nll_loss(input, target),
             {"input": randn(0, 3), "target": torch.zeros(0, dtype=torch.long)})


def test_nll_loss_class_vector_quirk():
    """torch 1.13 takes a (C,) input with a (C,) target as one sample scored at target[0]."""
    x = randn(4)
    for reduction in REDUCTIONS:
        run_both(lambda input, target: AF.nll_loss(input, target, reduction=reduction),
                 lambda input, target: F.nll_loss(input, target, reduction=reduction),
                 {"input": x, "target": torch.tensor([2, 0, 9, 1])}, grads=("input",))


def test_nll_loss_weight_gradient():
    """torch does not differentiate nll_loss / cross_entropy w.r.t. weight; axle does (finite differences)."""
    x = randn(5, 4, seed=1)
    t = torch.tensor([0, 3, -100, 1, 3])
    w = rand(4, seed=2) + 0.5
    ta = A(t)
    for reduction in REDUCTIONS:
        check_gradcheck(lambda i, wt: AF.nll_loss(i, ta, wt, reduction=reduction), x, w)
        check_gradcheck(lambda i, wt: AF.cross_entropy(i, ta, wt, reduction=reduction, label_smoothing=0.3), x, w)


CE_SHAPES = [(6, 5), (5,), (2, 5, 3, 4), (3, 5, 4)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", CE_SHAPES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.25, 1.0])
def test_cross_entropy_index_targets(shape, reduction, dtype, weighted, ignore, label_smoothing):
    n_classes = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    x = randn(*shape, seed=6, scale=2.0, dtype=dtype)
    ignore_index = 1 if ignore else -100
    t = _targets(tshape, n_classes, 7)
    if ignore and t.dim() > 0:
        t.view(-1)[::3] = ignore_index
    w = rand(n_classes, seed=8, dtype=dtype) + 0.1 if weighted else None
    run_both(lambda input, target, weight: AF.cross_entropy(input, target, weight, ignore_index=ignore_index,
                                                            reduction=reduction, label_smoothing=label_smoothing),
             lambda input, target, weight: F.cross_entropy(input, target, weight, ignore_index=ignore_index,
                                                           reduction=reduction, label_smoothing=label_smoothing),
             {"input": x, "target": t, "weight": w}, grads=("input",), dtype=dtype,
             tag="ce %s %s ls=%s" % (shape, reduction, label_smoothing), tol=LOG_SOFTMAX_TOL)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", CE_SHAPES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3, 1.0])
def test_cross_entropy_probability_targets(shape, reduction, dtype, weighted, label_smoothing):
    class_dim = 0 if len(shape) == 1 else 1
    n_classes = shape[class_dim]
    x = randn(*shape, seed=9, scale=2.0, dtype=dtype)
    t = F.softmax(randn(*shape, seed=10, scale=3.0), class_dim).to(dtype)
    w = rand(n_classes, seed=11, dtype=dtype) + 0.1 if weighted else None
    run_both(lambda input, target, weight: AF.cross_entropy(input, target, weight, reduction=reduction,
                                                            label_smoothing=label_smoothing),
             lambda input, target, weight: F.cross_entropy(input, target, weight, reduction=reduction,
                                                           label_smoothing=label_smoothing),
             {"input": x, "target": t, "weight": w}, grads=("input", "target"), dtype=dtype,
             tag="ce prob %s %s" % (shape, reduction), tol=LOG_SOFTMAX_TOL)


def test_cross_entropy_misc():
    x = randn(4, 3, seed=1)
    # negative label_smoothing is not checked by torch (plain path); ignore_index < 0 allowed with probabilities
    run_both(lambda input, target: AF.cross_entropy(input, target, label_smoothing=-0.5),
             lambda input, target: F.cross_entropy(input, target, label_smoothing=-0.5),
             {"input": x, "target": torch.tensor([0, 2, 1, 1])}, grads=("input",))
    run_both(lambda input, target: AF.cross_entropy(input, target, ignore_index=-1),
             lambda input, target: F.cross_entropy(input, target, ignore_index=-1),
             {"input": x, "target": F.softmax(randn(4, 3, seed=2), 1)}, grads=("input",))
    # every target ignored: mean is nan, as torch
    for ls in (0.0, 0.2):
        run_both(lambda input, target: AF.cross_entropy(input, target, label_smoothing=ls),
                 lambda input, target: F.cross_entropy(input, target, label_smoothing=ls),
                 {"input": x, "target": torch.full((4,), -100)})
    # empty batch / no classes with probability targets: 0 / 0
    for shape in ((0, 3), (3, 0)):
        for reduction in REDUCTIONS:
            run_both(lambda input, target: AF.cross_entropy(input, target, reduction=reduction),
                     lambda input, target: F.cross_entropy(input, target, reduction=reduction),
                     {"input": randn(*shape), "target": randn(*shape, seed=3)})
    # legacy flags
    with pytest.warns(UserWarning):
        got = AF.cross_entropy(A(x), A(torch.tensor([0, 2, 1, 1])), size_average=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = F.cross_entropy(x, torch.tensor([0, 2, 1, 1]), size_average=False)
    close(got, want, torch.float64)


# ----------------------------------------------------------------------------- binary cross entropy

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight_shape", [None, (4, 5), (5,)])
def test_binary_cross_entropy(reduction, dtype, weight_shape):
    x = torch.sigmoid(randn(4, 5, seed=12, scale=2.0)).to(dtype)
    t = rand(4, 5, seed=13, dtype=dtype)
    w = None if weight_shape is None else rand(*weight_shape, seed=14, dtype=dtype)
    run_both(lambda input, target, weight: AF.binary_cross_entropy(input, target, weight, reduction=reduction),
             lambda input, target, weight: F.binary_cross_entropy(input, target, weight, reduction=reduction),
             {"input": x, "target": t, "weight": w}, grads=("input", "target"), dtype=dtype, tag="bce")


@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_cross_entropy_saturated(dtype):
    """x = 0 or 1 exactly: logs clamped to -100, torch's finite gradients (not NaN)."""
    x = torch.tensor([0.0, 1.0, 0.0, 1.0, 1e-30, 0.5], dtype=dtype)
    t = torch.tensor([0.5, 0.5, 0.0, 1.0, 1.0, 0.2], dtype=dtype)
    run_both(lambda input, target: AF.binary_cross_entropy(input, target, reduction="sum"),
             lambda input, target: F.binary_cross_entropy(input, target, reduction="sum"),
             {"input": x, "target": t}, grads=("input",), dtype=dtype)
    # target gradients (log(1 - x) - log(x)) are infinite there, as in torch
    run_both(lambda input, target: AF.binary_cross_entropy(input, target, reduction="sum"),
             lambda input, target: F.binary_cross_entropy(input, target, reduction="sum"),
             {"input": x, "target": t}, grads=("input", "target"), dtype=dtype)


def test_binary_cross_entropy_weight_gradient():
    x = torch.sigmoid(randn(3, 4, seed=1))
    t, w = rand(3, 4, seed=2), rand(4, seed=3)
    check_gradcheck(lambda i, tt, wt: AF.binary_cross_entropy(i, tt, wt), x, t, w)
    with axle.no_grad():
        got = AF.binary_cross_entropy(A(x, True), A(t))
    assert not got.requires_grad
    close(got, F.binary_cross_entropy(x, t), torch.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("pos_weighted", [False, True])
def test_binary_cross_entropy_with_logits(reduction, dtype, weighted, pos_weighted):
    x = randn(4, 5, seed=15, scale=3.0, dtype=dtype)
    t = rand(4, 5, seed=16, dtype=dtype)
    w = rand(5, seed=17, dtype=dtype) if weighted else None
    pw = rand(5, seed=18, dtype=dtype) * 3 if pos_weighted else None
    run_both(lambda input, target, weight, pos_weight: AF.binary_cross_entropy_with_logits(
                 input, target, weight, reduction=reduction, pos_weight=pos_weight),
             lambda input, target, weight, pos_weight: F.binary_cross_entropy_with_logits(
                 input, target, weight, reduction=reduction, pos_weight=pos_weight),
             {"input": x, "target": t, "weight": w, "pos_weight": pw}, grads=("input", "target"), dtype=dtype,
             tag="bce_logits")


@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_cross_entropy_with_logits_extremes(dtype):
    """Zero logits (gradient sigmoid(0) - t = 1/2 - t) and huge ones (no overflow)."""
    x = torch.tensor([0.0, 0.0, 50.0, -50.0, 100.0, -100.0, 1e-3], dtype=dtype)
    t = torch.tensor([0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.3], dtype=dtype)
    for pw in (None, torch.full((7,), 2.5, dtype=dtype)):
        run_both(lambda input, target, pos_weight: AF.binary_cross_entropy_with_logits(
                     input, target, reduction="none", pos_weight=pos_weight),
                 lambda input, target, pos_weight: F.binary_cross_entropy_with_logits(
                     input, target, reduction="none", pos_weight=pos_weight),
                 {"input": x, "target": t, "pos_weight": pw}, grads=("input", "target"), dtype=dtype)


# ----------------------------------------------------------------------------- kl_div, poisson, gaussian

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, dtype, log_target):
    x = F.log_softmax(randn(4, 5, seed=19), 1).to(dtype)
    p = F.softmax(randn(4, 5, seed=20, scale=2.0), 1)
    t = (torch.log(p) if log_target else p).to(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_both(lambda input, target: AF.kl_div(input, target, reduction=reduction, log_target=log_target),
                 lambda input, target: F.kl_div(input, target, reduction=reduction, log_target=log_target),
                 {"input": x, "target": t}, grads=("input", "target"), dtype=dtype, tag="kl_div")
        # a zero probability: xlogy(0, 0) = 0 (torch's target gradient is NaN there, axle's finite: inputs only)
        t0 = p.clone().to(dtype)
        t0[0, 1] = 0.0
        run_both(lambda input, target: AF.kl_div(input, target, reduction=reduction),
                 lambda input, target: F.kl_div(input, target, reduction=reduction),
                 {"input": x, "target": t0}, grads=("input",), dtype=dtype, tag="kl_div zero")


def test_kl_div_mean_warns_and_edge_values():
    x, t = randn(3, seed=1), torch.tensor([0.0, -1.0, 0.5], dtype=torch.float64)
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        AF.kl_div(A(x), A(t))
    run_both(lambda input, target: AF.kl_div(input, target, reduction="none"),
             lambda input, target: F.kl_div(input, target, reduction="none"),
             {"input": x, "target": t})  # negative target: nan, as xlogy
    run_both(lambda input, target: AF.kl_div(input, target, reduction="batchmean"),
             lambda input, target: F.kl_div(input, target, reduction="batchmean"),
             {"input": randn((), seed=2), "target": torch.tensor(0.3, dtype=torch.float64)}, grads=("input",))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input", [True, False])
@pytest.mark.parametrize("full", [False, True])
def test_poisson_nll_loss(reduction, dtype, log_input, full):
    x = randn(4, 5, seed=21, dtype=dtype) if log_input else (rand(4, 5, seed=21, dtype=dtype) * 3 + 0.01)
    t = torch.floor(rand(4, 5, seed=22) * 5).to(dtype)  # counts 0..4: both sides of the Stirling mask
    # torch's full=True target gradient is NaN where target == 0 (0 * log 0); axle's is 0: inputs only there
    grads = ("input",) if full else ("input", "target")
    run_both(lambda input, target: AF.poisson_nll_loss(input, target, log_input, full, reduction=reduction),
             lambda input, target: F.poisson_nll_loss(input, target, log_input, full, reduction=reduction),
             {"input": x, "target": t}, grads=grads, dtype=dtype, tag="poisson")
    if full:
        tt = torch.floor(rand(4, 5, seed=22) * 5).to(dtype) + 1.5  # all > 1: torch's target gradient is finite
        run_both(lambda input, target: AF.poisson_nll_loss(input, target, log_input, full, reduction=reduction),
                 lambda input, target: F.poisson_nll_loss(input, target, log_input, full, reduction=reduction),
                 {"input": x, "target": tt}, grads=("input", "target"), dtype=dtype, tag="poisson t>1")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(4, 5), (4,), (4, 1)])
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll_loss(reduction, dtype, var_shape, full):
    x, t = randn(4, 5, seed=23, dtype=dtype), randn(4, 5, seed=24, dtype=dtype)
    var = rand(*var_shape, seed=25, dtype=dtype) + 0.05
    var.view(-1)[0] = 1e-9  # below eps: clamped value, unclamped gradient (torch clamps under no_grad)
    run_both(lambda input, target, var: AF.gaussian_nll_loss(input, target, var, full=full, reduction=reduction),
             lambda input, target, var: F.gaussian_nll_loss(input, target, var, full=full, reduction=reduction),
             {"input": x, "target": t, "var": var}, grads=("input", "target", "var"), dtype=dtype, tag="gaussian")


# ----------------------------------------------------------------------------- margin losses

def _signs(*shape, seed):
    return (torch.randint(0, 2, shape, generator=gen(seed)) * 2 - 1).double()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [1.0, 0.3])
def test_hinge_embedding_loss(reduction, dtype, margin):
    x = randn(4, 5, seed=26, dtype=dtype)
    t = _signs(4, 5, seed=27).to(dtype)
    t[0, :2] = torch.tensor([0.0, 2.0])  # neither 1 nor -1: both terms, as torch
    run_both(lambda input, target: AF.hinge_embedding_loss(input, target, margin, reduction=reduction),
             lambda input, target: F.hinge_embedding_loss(input, target, margin, reduction=reduction),
             {"input": x, "target": t}, grads=("input",), dtype=dtype, tag="hinge")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.5])
def test_margin_ranking_loss(reduction, dtype, margin):
    x1, x2 = randn(6, seed=28, dtype=dtype), randn(6, seed=29, dtype=dtype)
    t = _signs(6, seed=30).to(dtype)
    run_both(lambda input1, input2, target: AF.margin_ranking_loss(input1, input2, target, margin, reduction=reduction),
             lambda input1, input2, target: F.margin_ranking_loss(input1, input2, target, margin, reduction=reduction),
             {"input1": x1, "input2": x2, "target": t}, grads=("input1", "input2", "target"), dtype=dtype,
             tag="margin_ranking")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(reduction, dtype):
    x = randn(4, 5, seed=31, scale=3.0, dtype=dtype)
    t = _signs(4, 5, seed=32).to(dtype)
    run_both(lambda input, target: AF.soft_margin_loss(input, target, reduction=reduction),
             lambda input, target: F.soft_margin_loss(input, target, reduction=reduction),
             {"input": x, "target": t}, grads=("input",), dtype=dtype, tag="soft_margin")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(4, 5), (5,), (2, 3, 4)])
def test_multilabel_soft_margin_loss(reduction, dtype, weighted, shape):
    x = randn(*shape, seed=33, scale=3.0, dtype=dtype)
    t = torch.randint(0, 2, shape, generator=gen(34)).to(dtype)
    w = rand(shape[-1], seed=35, dtype=dtype) if weighted else None
    run_both(lambda input, target, weight: AF.multilabel_soft_margin_loss(input, target, weight, reduction=reduction),
             lambda input, target, weight: F.multilabel_soft_margin_loss(input, target, weight, reduction=reduction),
             {"input": x, "target": t, "weight": w}, grads=("input", "target"), dtype=dtype, tag="multilabel_soft")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.2])
@pytest.mark.parametrize("batched", [True, False])
def test_cosine_embedding_loss(reduction, dtype, margin, batched):
    shape = (5, 4) if batched else (4,)
    x1, x2 = randn(*shape, seed=36, dtype=dtype), randn(*shape, seed=37, dtype=dtype)
    t = _signs(5, seed=38).to(dtype) if batched else torch.tensor(-1.0, dtype=dtype)
    if batched:
        t[0] = 0.0  # neither: 0
    run_both(lambda input1, input2, target: AF.cosine_embedding_loss(input1, input2, target, margin,
                                                                     reduction=reduction),
             lambda input1, input2, target: F.cosine_embedding_loss(input1, input2, target, margin,
                                                                    reduction=reduction),
             {"input1": x1, "input2": x2, "target": t}, grads=("input1", "input2"), dtype=dtype, tag="cos_emb")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,swap", [(2, False), (2, True), (1, False), (3, True)])
@pytest.mark.parametrize("shape", [(5, 4), (4,)])
def test_triplet_margin_loss(reduction, dtype, p, swap, shape):
    a, pos, neg = (randn(*shape, seed=s, dtype=dtype) for s in (39, 40, 41))
    run_both(lambda anchor, positive, negative: AF.triplet_margin_loss(anchor, positive, negative, margin=1.5, p=p,
                                                                       swap=swap, reduction=reduction),
             lambda anchor, positive, negative: F.triplet_margin_loss(anchor, positive, negative, margin=1.5, p=p,
                                                                      swap=swap, reduction=reduction),
             {"anchor": a, "positive": pos, "negative": neg}, grads=("anchor", "positive", "negative"), dtype=dtype,
             tag="triplet")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss(reduction, swap):
    a, pos, neg = (randn(5, 4, seed=s) for s in (42, 43, 44))
    run_both(lambda anchor, positive, negative: AF.triplet_margin_with_distance_loss(
                 anchor, positive, negative, swap=swap, reduction=reduction),
             lambda anchor, positive, negative: F.triplet_margin_with_distance_loss(
                 anchor, positive, negative, swap=swap, reduction=reduction),
             {"anchor": a, "positive": pos, "negative": neg}, grads=("anchor", "positive", "negative"))
    run_both(lambda anchor, positive, negative: AF.triplet_margin_with_distance_loss(
                 anchor, positive, negative, distance_function=lambda u, v: 1 - AF.cosine_similarity(u, v),
                 margin=0.4, swap=swap, reduction=reduction),
             lambda anchor, positive, negative: F.triplet_margin_with_distance_loss(
                 anchor, positive, negative, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v),
                 margin=0.4, swap=swap, reduction=reduction),
             {"anchor": a, "positive": pos, "negative": neg}, grads=("anchor", "positive", "negative"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape,tshape", [((6, 4), (6,)), ((4,), (1,)), ((4,), ()), ((1, 4), ()), ((), ()),
                                          ((0, 4), (0,))])
def test_multi_margin_loss(reduction, dtype, p, weighted, shape, tshape):
    if shape == (0, 4) and reduction != "none":
        pytest.skip("torch 1.13 reduces an empty batch to an uninitialized value")
    n_classes = shape[-1] if shape else 1
    x = randn(*shape, seed=45, scale=0.7, dtype=dtype)
    t = torch.randint(0, n_classes, tshape, generator=gen(46))
    w = rand(n_classes, seed=47, dtype=dtype) + 0.2 if weighted else None
    run_both(lambda input, target, weight: AF.multi_margin_loss(input, target, p, 0.9, weight, reduction=reduction),
             lambda input, target, weight: F.multi_margin_loss(input, target, p, 0.9, weight, reduction=reduction),
             {"input": x, "target": t, "weight": w}, grads=("input",), dtype=dtype, tag="multi_margin")


def test_multi_margin_loss_exact_margin():
    """Where margin - x[y] + x[j] is exactly 0 torch's gradient is 0."""
    x = torch.tensor([[1.0, 0.0, 0.5]], dtype=torch.float64)
    run_both(lambda input, target: AF.multi_margin_loss(input, target),
             lambda input, target: F.multi_margin_loss(input, target),
             {"input": x, "target": torch.tensor([0])}, grads=("input",))


# ----------------------------------------------------------------------------- distances

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, 0), (3.0, -1), (float("inf"), 1)])
def test_normalize(dtype, p, dim):
    x = randn(4, 5, seed=48, dtype=dtype)
    x[1] = 0.0  # a zero row: the eps clamp
    run_both(lambda input: AF.normalize(input, p, dim), lambda input: F.normalize(input, p, dim),
             {"input": x}, grads=("input",), dtype=dtype, tag="normalize")
    out = axle.empty(4, 5, dtype=A(x).dtype)
    got = AF.normalize(A(x), p, dim, out=out)
    close(out, F.normalize(x, p, dim), dtype)
    close(got, F.normalize(x, p, dim), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("s1,s2,dim", [((5, 4), (5, 4), 1), ((5, 4), (1, 4), 1), ((5, 4), (4,), 1),
                                       ((3, 5, 4), (3, 5, 4), -1), ((4,), (4,), 0), ((2, 3, 4), (3, 4), 0)])
def test_cosine_similarity(dtype, s1, s2, dim):
    x1, x2 = randn(*s1, seed=49, dtype=dtype), randn(*s2, seed=50, dtype=dtype)
    run_both(lambda x1, x2: AF.cosine_similarity(x1, x2, dim), lambda x1, x2: F.cosine_similarity(x1, x2, dim),
             {"x1": x1, "x2": x2}, grads=("x1", "x2"), dtype=dtype, tag="cos")


def test_cosine_similarity_tiny_norms():
    """Norms below eps are clamped to eps; torch 1.13's gradient then still uses x / eps."""
    x1 = torch.tensor([[1e-9, 0.0], [3.0, 4.0], [0.0, 0.0]], dtype=torch.float64)
    x2 = torch.tensor([[1e-9, 2e-9], [1.0, 1e-10], [1.0, 2.0]], dtype=torch.float64)
    run_both(lambda x1, x2: AF.cosine_similarity(x1, x2), lambda x1, x2: F.cosine_similarity(x1, x2),
             {"x1": x1, "x2": x2}, grads=("x1", "x2"))
    run_both(lambda x1, x2: AF.cosine_similarity(x1, x2, eps=1e-3),
             lambda x1, x2: F.cosine_similarity(x1, x2, eps=1e-3),
             {"x1": x1 * 1e5, "x2": x2}, grads=("x1", "x2"))


def test_cosine_similarity_promotes():
    x1, x2 = randn(3, 4, seed=1, dtype=torch.float32), randn(3, 4, seed=2)
    run_both(lambda x1, x2: AF.cosine_similarity(x1, x2), lambda x1, x2: F.cosine_similarity(x1, x2),
             {"x1": x1, "x2": x2})


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("s1,s2", [((5, 4), (5, 4)), ((5, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (3, 4))])
def test_pairwise_distance(dtype, p, keepdim, s1, s2):
    x1, x2 = randn(*s1, seed=51, dtype=dtype), randn(*s2, seed=52, dtype=dtype)
    run_both(lambda x1, x2: AF.pairwise_distance(x1, x2, p, keepdim=keepdim),
             lambda x1, x2: F.pairwise_distance(x1, x2, p, keepdim=keepdim),
             {"x1": x1, "x2": x2}, grads=("x1", "x2"), dtype=dtype, tag="pdist")


def test_one_hot():
    t = torch.tensor([[0, 2], [1, 3]])
    for n in (-1, 5):
        got = AF.one_hot(A(t), n)
        assert got.dtype == axle.int64
        assert torch.equal(T(got), F.one_hot(t, n))


# ----------------------------------------------------------------------------- errors

X = randn(3, 4)
X4 = randn(2, 3, 4, 5)
IDX = torch.tensor([0, 1, 2])
P = torch.sigmoid(randn(3))


def _e(name, *args, **kwargs):
    return name, args, kwargs


ERRORS = [
    # (function, args, kwargs): axle error class, message substring (torch's)
    (_e("mse_loss", X, X, reduction="foo"), axle.ValueError, "foo is not a valid value for reduction"),
    (_e("l1_loss", X, X, reduction="bar"), axle.ValueError, "bar is not a valid value for reduction"),
    (_e("cross_entropy", X, IDX, reduction="foo"), axle.ValueError, "foo is not a valid value for reduction"),
    (_e("nll_loss", X, IDX, reduction="foo"), axle.ValueError, "foo is not a valid value for reduction"),
    (_e("kl_div", X, X, reduction="foo"), axle.ValueError, "foo is not a valid value for reduction"),
    (_e("poisson_nll_loss", X, X, reduction="foo"), axle.ValueError, "foo is not valid"),
    (_e("multilabel_soft_margin_loss", X, X, reduction="foo"), axle.ValueError, "foo is not valid"),
    (_e("gaussian_nll_loss", X, X, torch.ones(3, 4), reduction="foo"), axle.ValueError, "foo is not valid"),
    (_e("multi_margin_loss", X, IDX, reduction="foo"), axle.ValueError, "foo is not a valid value for reduction"),
    (_e("mse_loss", X, randn(5)), axle.ShapeError, "must match the size of tensor b (5)"),
    (_e("mse_loss", X.long(), X.long()), axle.DTypeError, "not implemented for 'Long'"),
    (_e("smooth_l1_loss", X, X, beta=-1.0), axle.ValueError,
     "smooth_l1_loss does not support negative values for beta."),
    (_e("huber_loss", X, X, delta=0.0), axle.ValueError, "huber_loss does not support non-positive values for delta."),
    (_e("nll_loss", X, torch.tensor([0, 5, 1])), axle.IndexError, "Target 5 is out of bounds."),
    (_e("nll_loss", X, torch.tensor([0, -1, 1])), axle.IndexError, "Target -1 is out of bounds."),
    (_e("cross_entropy", X, torch.tensor([0, 4, 1])), axle.IndexError, "Target 4 is out of bounds."),
    (_e("cross_entropy", X, torch.tensor([0, 4, 1]), label_smoothing=0.1), axle.IndexError,
     "Target 4 is out of bounds."),
    (_e("nll_loss", X4, torch.full((2, 4, 5), 7)), axle.IndexError, "Target 7 is out of bounds."),
    (_e("nll_loss", randn(4), torch.tensor(7)), axle.IndexError, "Target 7 is out of bounds."),
    (_e("nll_loss", X, torch.tensor([0, 1])), axle.ValueError,
     "Expected input batch_size (3) to match target batch_size (2)."),
    (_e("nll_loss", randn(()), torch.tensor(0)), axle.ValueError, "Expected 1 or more dimensions (got 0)"),
    (_e("nll_loss", X, torch.tensor([0.0, 1.0, 1.0])), axle.DTypeError, "expected scalar type Long but found Float"),
    (_e("nll_loss", X, IDX.int()), axle.DTypeError, "expected scalar type Long but found Int"),
    (_e("nll_loss", X, torch.tensor([[0, 1, 1]]).T), axle.ShapeError,
     "0D or 1D target tensor expected, multi-target not supported"),
    (_e("nll_loss", X, IDX, weight=torch.ones(3, dtype=torch.float64)), axle.ShapeError,
     "weight tensor should be defined either for all 4 classes or no classes but got weight tensor of shape: [3]"),
    (_e("nll_loss", randn(4), torch.tensor([1])), axle.ShapeError, "size mismatch (got input: [4], target: [1])"),
    (_e("nll_loss", X4, torch.zeros(2, 4, 4, dtype=torch.long)), axle.ShapeError,
     "size mismatch (got input: [2, 3, 4, 5] , target: [2, 4, 4]"),
    (_e("nll_loss", X4, torch.zeros(2, 4, dtype=torch.long)), axle.ShapeError,
     "only batches of spatial targets supported (3D tensors) but got targets of dimension: 2"),
    (_e("nll_loss", randn(2, 3, 4), torch.zeros(2, 5, dtype=torch.long)), axle.ShapeError,
     "Expected target size [2, 4], got [2, 5]"),
    (_e("nll_loss", X4, torch.zeros(2, 4, 5, dtype=torch.long), weight=torch.ones(2, dtype=torch.float64)),
     axle.ShapeError, "weight tensor should be defined either for all or no classes"),
    (_e("cross_entropy", randn(()), randn((), seed=1)), axle.IndexError,
     "Dimension specified as 1 but tensor has no dimensions"),
    (_e("cross_entropy", X, randn(3, 4), ignore_index=1), axle.ValueError,
     "ignore_index is not supported for floating point target"),
    (_e("cross_entropy", X, torch.zeros(3, 4, dtype=torch.long)), axle.DTypeError,
     "Expected floating point type for target with class probabilities, got Long"),
    (_e("cross_entropy", X, IDX, label_smoothing=1.5), axle.ValueError,
     "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
    (_e("cross_entropy", X, F.softmax(X, 1), label_smoothing=2.0), axle.ValueError,
     "label_smoothing must be between 0.0 and 1.0. Got: 2"),
    (_e("cross_entropy", X, F.softmax(X, 1), weight=torch.ones(3, dtype=torch.float64)), axle.ShapeError,
     "cross_entropy: weight tensor should be defined either for all 4 classes or no classes"),
    (_e("binary_cross_entropy", P, rand(4)), axle.ValueError,
     "Using a target size (torch.Size([4])) that is different to the input size (torch.Size([3])) is deprecated"),
    (_e("binary_cross_entropy", torch.tensor([1.5, 0.5], dtype=torch.float64), rand(2)), axle.ValueError,
     "all elements of input should be between 0 and 1"),
    (_e("binary_cross_entropy", torch.tensor([math.nan], dtype=torch.float64), rand(1)), axle.ValueError,
     "all elements of input should be between 0 and 1"),
    (_e("binary_cross_entropy", P, rand(3), weight=rand(2, 3)), axle.ShapeError,
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    (_e("binary_cross_entropy", P, rand(3), weight=rand(4)), axle.ShapeError,
     "must match the size of tensor b (4)"),
    (_e("binary_cross_entropy_with_logits", randn(3), rand(4)), axle.ValueError,
     "Target size (torch.Size([4])) must be the same as input size (torch.Size([3]))"),
    (_e("binary_cross_entropy_with_logits", randn(4), rand(4), weight=rand(3, 4)), axle.ShapeError,
     "output with shape [4] doesn't match the broadcast shape [3, 4]"),
    (_e("gaussian_nll_loss", X, X, torch.ones(4)), axle.ValueError, "var is of incorrect size"),
    (_e("gaussian_nll_loss", X, X, -torch.ones(3, 4)), axle.ValueError, "var has negative entry/entries"),
    (_e("margin_ranking_loss", X, X, randn(4)), axle.ShapeError,
     "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: torch.Size([3, 4]), "
     "input2: torch.Size([3, 4]), target: torch.Size([4])"),
    (_e("cosine_embedding_loss", X, X, X), axle.ShapeError,
     "0D or 1D target tensor expected, multi-target not supported"),
    (_e("cosine_embedding_loss", X, X, randn(())), axle.ShapeError,
     "0D target tensor expects 1D input tensors, but found inputs with sizes [3, 4] and [3, 4]."),
    (_e("cosine_embedding_loss", randn(4), randn(4), randn(3)), axle.ShapeError,
     "1D target tensor expects 2D input tensors, but found inputs with sizes [4] and [4]."),
    (_e("triplet_margin_loss", X, X, randn(4)), axle.ShapeError,
     "All inputs should have same dimension but got 2D, 2D and 1D inputs."),
    (_e("triplet_margin_with_distance_loss", X, X, X, reduction="foo"), axle.ValueError,
     "foo is not a valid value for reduction"),
    (_e("multi_margin_loss", X, IDX, p=3), axle.ValueError, "only p == 1 and p == 2 supported"),
    (_e("multi_margin_loss", X, IDX, weight=torch.ones(2, 2, dtype=torch.float64)), axle.ValueError,
     "weight must be one-dimensional"),
    (_e("multi_margin_loss", X, torch.tensor([0, 4, 1])), axle.IndexError, "target out of range"),
    (_e("multi_margin_loss", X, torch.tensor([[0, 1, 1]])), axle.ShapeError, "inconsistent target size, got: [1, 3]"),
    (_e("multi_margin_loss", randn(2, 3, 4), torch.tensor([0, 1])), axle.ShapeError,
     "Expected non-empty vector or matrix with optional 0-dim batch size, but got: [2, 3, 4]"),
    (_e("multi_margin_loss", X, IDX.double()), axle.DTypeError, "expected scalar type Long but found Double"),
    (_e("cosine_similarity", X.long(), X.long()), axle.DTypeError,
     "expected common dtype to be floating point, yet common dtype is Long"),
    (_e("cosine_similarity", X, randn(3, 5)), axle.ShapeError, "must match the size of tensor b (5)"),
    (_e("pairwise_distance", randn(5, 4), X), axle.ShapeError, "must match the size of tensor b (3)"),
    (_e("normalize", X, dim=3), axle.IndexError, "Dimension out of range"),
]


@pytest.mark.parametrize("call,error,message", ERRORS, ids=[c[0][0] + "-%d" % i for i, c in enumerate(ERRORS)])
def test_errors(call, error, message):
    name, args, kwargs = call
    torch_kwargs = dict(kwargs)
    axle_kwargs = {k: (A(v) if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as want:
            getattr(F, name)(*args, **torch_kwargs)
        with pytest.raises(error) as got:
            getattr(AF, name)(*[A(a) if isinstance(a, torch.Tensor) else a for a in args], **axle_kwargs)
    assert message in str(want.value), "the test's message is not torch's: %s" % want.value
    assert message in str(got.value)
    assert isinstance(got.value, axle.AxleError)
    # the builtin class torch raises is kept where it is not RuntimeError
    if not isinstance(want.value, RuntimeError):
        assert isinstance(got.value, type(want.value))


def test_every_function_exported():
    from axle.nn import _losses
    for name in _losses.__all__:
        assert getattr(AF, name) is getattr(_losses, name)
        assert hasattr(F, name)
