"""axle.optim's Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop and LBFGS against torch
1.13's: the same float64 parameters and gradients give the same parameters (to
1e-12 relative) and the same state dicts (keys, order, dtypes, the per-optimizer
'step' representation); state dict round trips (also from torch's); torch's
errors for bad hyperparameters; and LBFGS on small least-squares problems, with
and without the strong-Wolfe line search, gives torch's iterates and state."""
import numpy as np
import pytest

import axle
import axle.optim

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-12, 1e-14
SHAPES = [(5, 4), (7,), ()]
STEPS = 8

CONFIGS = [
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1)),
    ("Adadelta", dict(eps=1e-4, rho=0.95, maximize=True)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1)),
    ("Adamax", dict(eps=1e-4, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, betas=(0.8, 0.95), momentum_decay=0.1, eps=1e-6)),
    ("RAdam", dict()),  # rho_t stays <= 5 for the first steps: the unrectified update, then the rectified one
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, betas=(0.8, 0.9), eps=1e-6)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.1, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.1)),  # averaging starts at step 4
    ("ASGD", dict(lr=0.05, t0=0, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.08))),
    ("Rprop", dict(lr=0.001, maximize=True)),
]
IDS = ["%s-%d" % (name, i % 3) for i, (name, _) in enumerate(CONFIGS)]
NAMES = ["Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"]


def to_np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach().numpy())


def pair_params(rng, shapes=SHAPES, dtype=np.float64):
    values = [np.asarray(rng.standard_normal(s), dtype=dtype) for s in shapes]
    return ([axle.tensor(v, requires_grad=True) for v in values],
            [torch.tensor(v, requires_grad=True) for v in values])


def set_grads(rng, ap, tp, skip=None):
    """The same random gradients on both sides; parameter `skip` gets none (None)."""
    for i, (a, t) in enumerate(zip(ap, tp)):
        if i == skip:
            a.grad, t.grad = None, None
            continue
        g = np.asarray(rng.standard_normal(t.shape), dtype=to_np(t).dtype)
        if i == 0:
            g.flat[0] = 0.0  # a zero gradient entry (Rprop's sign-zero case)
        a.grad, t.grad = axle.tensor(g), torch.tensor(g)


def assert_close(a, t, rtol=RTOL, atol=ATOL):
    np.testing.assert_allclose(to_np(a), to_np(t), rtol=rtol, atol=atol)


def assert_same_value(av, tv, where, rtol=RTOL, atol=ATOL, norm_relative=False):
    """A state value equals torch's: tensors as tensors (same dtype, shape and
    values; with `norm_relative`, to rtol of the tensor's largest entry, for
    vectors made by cancelling differences), lists element by element, numbers
    (and None) equal and of the same type."""
    if isinstance(tv, torch.Tensor):
        assert isinstance(av, axle.Tensor), (where, av)
        assert av.dtype.name == str(tv.dtype).replace("torch.", ""), where
        assert tuple(av.shape) == tuple(tv.shape), where
        if norm_relative and tv.numel():
            atol = atol + rtol * float(tv.abs().max())
        assert_close(av, tv, rtol, atol)
    elif isinstance(tv, (list, tuple)):
        assert type(av) is type(tv) and len(av) == len(tv), where
        for i, (a, t) in enumerate(zip(av, tv)):
            assert_same_value(a, t, "%s[%d]" % (where, i), rtol, atol, norm_relative)
    else:
        assert type(av) is type(tv), (where, av, tv)
        if isinstance(tv, float):
            assert av == pytest.approx(tv, rel=rtol, abs=atol), where
        else:
            assert av == tv, where


def assert_state_equal(a_state, t_state, rtol=RTOL, atol=ATOL, norm_relative=False):
    """Per-parameter state dicts (of state_dict()['state']) match: same keys, in the
    same order, values as assert_same_value."""
    assert list(a_state) == list(t_state)
    for key in t_state:
        assert list(a_state[key]) == list(t_state[key]), key
        for name, tv in t_state[key].items():
            assert_same_value(a_state[key][name], tv, name, rtol, atol, norm_relative)


def make(name, params, kwargs, lib):
    return getattr(axle.optim if lib is axle else torch.optim, name)(params, **kwargs)


def convert(value):
    """torch's state dict with its tensors as axle tensors (same dtypes)."""
    if isinstance(value, torch.Tensor):
        return axle.tensor(value.numpy())
    if isinstance(value, dict):
        return {k: convert(v) for k, v in value.items()}
    if isinstance(value, list):
        return [convert(v) for v in value]
    return value


# ---------------------------------------------------------------- update math
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_steps_match_torch(name, kwargs):
    rng = np.random.default_rng(1234)
    ap, tp = pair_params(rng)
    ids = [id(p) for p in ap]
    ao, to = make(name, ap, kwargs, axle), make(name, tp, kwargs, torch)
    for step in range(STEPS):
        set_grads(rng, ap, tp, skip=1 if step in (2, 5) else None)  # no grad: that parameter is skipped
        assert ao.step() is None and to.step() is None
        for a, t in zip(ap, tp):
            assert_close(a, t)
    assert [id(p) for p in ao.param_groups[0]["params"]] == ids  # updated in place, same objects
    assert all(p.requires_grad and p.is_leaf and p.grad_fn is None for p in ap)
    a_sd, t_sd = ao.state_dict(), to.state_dict()
    assert_state_equal(a_sd["state"], t_sd["state"])
    assert a_sd["param_groups"] == t_sd["param_groups"]


def test_step_representations_match_torch():
    """'step' is a plain int for Adadelta and Rprop, a float32 scalar tensor for the
    others; NAdam's 'mu_product' and ASGD's 'eta' and 'mu' are float32 scalar tensors."""
    expected = {"Adadelta": ["step", "square_avg", "acc_delta"], "Adamax": ["step", "exp_avg", "exp_inf"],
                "NAdam": ["step", "mu_product", "exp_avg", "exp_avg_sq"], "RAdam": ["step", "exp_avg", "exp_avg_sq"],
                "ASGD": ["step", "eta", "mu", "ax"], "Rprop": ["step", "prev", "step_size"]}
    for name, keys in expected.items():
        p = axle.zeros(3, dtype=axle.float64, requires_grad=True)
        opt = make(name, [p], {}, axle)
        assert opt.state_dict()["state"] == {}
        for _ in range(2):
            p.grad = axle.ones(3, dtype=axle.float64)
            opt.step()
        state = opt.state_dict()["state"][0]
        assert list(state) == keys, name
        if name in ("Adadelta", "Rprop"):
            assert type(state["step"]) is int and state["step"] == 2
        else:
            assert state["step"].dtype == axle.float32 and state["step"].shape == () and state["step"].item() == 2
        for key in ("mu_product", "eta", "mu"):
            if key in state:
                assert state[key].dtype == axle.float32 and state[key].shape == ()


@pytest.mark.parametrize("name,kwargs", [("Adamax", dict(lr=0.01, weight_decay=0.1)),
                                         ("NAdam", dict(lr=0.01, momentum_decay=0.05)),
                                         ("RAdam", dict(lr=0.01, betas=(0.8, 0.9))),
                                         ("ASGD", dict(lr=0.05, t0=2)),
                                         ("Adadelta", dict()), ("Rprop", dict())],
                         ids=["Adamax", "NAdam", "RAdam", "ASGD", "Adadelta", "Rprop"])
def test_float32_matches_torch(name, kwargs):
    rng = np.random.default_rng(7)
    ap, tp = pair_params(rng, dtype=np.float32)
    ao, to = make(name, ap, kwargs, axle), make(name, tp, kwargs, torch)
    for _ in range(STEPS):
        set_grads(rng, ap, tp)
        ao.step()
        to.step()
    for a, t in zip(ap, tp):
        assert a.dtype == axle.float32
        assert_close(a, t, rtol=1e-5, atol=1e-6)
    assert_state_equal(ao.state_dict()["state"], to.state_dict()["state"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,kwargs", [
    ("Adadelta", dict(lr=0.5)), ("Adamax", dict(lr=0.05)), ("NAdam", dict(lr=0.05)),
    ("RAdam", dict(lr=0.05)), ("ASGD", dict(lr=0.02, t0=4)), ("Rprop", dict(lr=0.01)),
], ids=NAMES)
def test_training_end_to_end(name, kwargs):
    """loss = mean((x @ w + b - y)^2) trained with axle's autograd, losses per step as torch's."""
    rng = np.random.default_rng(99)
    x, y = rng.standard_normal((16, 5)), rng.standard_normal((16, 3))
    w0, b0 = rng.standard_normal((5, 3)), rng.standard_normal(3)
    losses = {}
    for lib in (axle, torch):
        w, b = lib.tensor(w0, requires_grad=True), lib.tensor(b0, requires_grad=True)
        X, Y = lib.tensor(x), lib.tensor(y)
        opt = make(name, [w, b], kwargs, lib)
        out = []
        for step in range(10):
            def closure():
                opt.zero_grad()
                loss = ((X @ w + b - Y) ** 2).mean()
                loss.backward()
                return loss

            if step % 2:  # the closure form, too
                loss = opt.step(closure)
            else:
                loss = closure()
                opt.step()
            out.append(loss.item())
        losses[lib.__name__] = out
        losses[lib.__name__ + "_w"] = to_np(w)
    np.testing.assert_allclose(losses["axle"], losses["torch"], rtol=RTOL, atol=0)
    np.testing.assert_allclose(losses["axle_w"], losses["torch_w"], rtol=RTOL, atol=ATOL)
    assert losses["axle"][-1] < losses["axle"][0]


@pytest.mark.parametrize("name,common,groups", [
    ("Adadelta", dict(lr=0.5), [dict(), dict(rho=0.5, weight_decay=0.1)]),
    ("Adamax", dict(lr=0.01), [dict(), dict(lr=0.1, betas=(0.5, 0.6))]),
    ("NAdam", dict(lr=0.01), [dict(momentum_decay=0.1), dict(lr=0.05)]),
    ("RAdam", dict(lr=0.01), [dict(betas=(0.8, 0.9)), dict(lr=0.05)]),
    ("ASGD", dict(lr=0.01), [dict(t0=2), dict(lr=0.1, lambd=0.1)]),
    ("Rprop", dict(lr=0.01), [dict(etas=(0.2, 1.1)), dict(lr=0.05, maximize=True)]),
], ids=NAMES)
def test_param_groups_with_their_own_options(name, common, groups):
    rng = np.random.default_rng(5)
    ap, tp = pair_params(rng)
    ag = [dict(params=ap[:1], **groups[0]), dict(params=ap[1:], **groups[1])]
    tg = [dict(params=tp[:1], **groups[0]), dict(params=tp[1:], **groups[1])]
    ao, to = make(name, ag, common, axle), make(name, tg, common, torch)
    for _ in range(STEPS):
        set_grads(rng, ap, tp)
        ao.step()
        to.step()
    for a, t in zip(ap, tp):
        assert_close(a, t)
    assert ao.state_dict()["param_groups"] == to.state_dict()["param_groups"]
    assert repr(ao) == repr(to)


@pytest.mark.parametrize("name", NAMES + ["LBFGS"])
def test_repr_and_defaults_match_torch(name):
    ao = make(name, [axle.zeros(2, requires_grad=True)], {}, axle)
    to = make(name, [torch.zeros(2, requires_grad=True)], {}, torch)
    assert repr(ao) == repr(to)
    assert ao.defaults == to.defaults
    assert ao.state_dict() == to.state_dict()


def test_exported():
    for name in NAMES + ["LBFGS"]:
        assert name in axle.optim.__all__ and issubclass(getattr(axle.optim, name), axle.optim.Optimizer)


# ---------------------------------------------------------------- state dicts
def _round_trip(lib, name, kwargs, values, grads):
    """Steps 4 times, saves, loads into a fresh optimizer over copies of the
    parameters and steps 4 more; also 8 uninterrupted steps. Returns both final
    parameter lists and the resumed optimizer."""
    def run(params, opt, steps):
        for g in steps:
            for p, gv in zip(params, g):
                p.grad = lib.tensor(gv)
            opt.step()

    straight = [lib.tensor(v, requires_grad=True) for v in values]
    run(straight, make(name, straight, kwargs, lib), grads)
    first = [lib.tensor(v, requires_grad=True) for v in values]
    opt1 = make(name, first, kwargs, lib)
    run(first, opt1, grads[:4])
    saved = opt1.state_dict()
    resumed = [lib.tensor(to_np(p).copy(), requires_grad=True) for p in first]
    opt2 = make(name, resumed, kwargs, lib)
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["params"][0] is resumed[0]
    for p_new, p_old in zip(resumed, first):  # the state was copied, not shared
        for key, value in opt2.state[p_new].items():
            if isinstance(value, lib.Tensor):
                assert value is not opt1.state[p_old][key]
    run(resumed, opt2, grads[4:])
    return straight, resumed, opt2


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_state_dict_round_trip(name, kwargs):
    """A saved and reloaded optimizer goes on as torch's does. Loading casts the
    state's tensors other than 'step' to the parameter's dtype, as torch does, so
    NAdam's float32 'mu_product' becomes float64 (and its later products differ in
    the last bits from an uninterrupted run, in torch too); the others resume
    exactly."""
    rng = np.random.default_rng(21)
    values = [rng.standard_normal(s) for s in SHAPES]
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(STEPS)]
    a_straight, a_resumed, a_opt = _round_trip(axle, name, kwargs, values, grads)
    t_straight, t_resumed, t_opt = _round_trip(torch, name, kwargs, values, grads)
    for a, t in zip(a_resumed, t_resumed):
        assert_close(a, t)
    assert_state_equal(a_opt.state_dict()["state"], t_opt.state_dict()["state"])
    assert a_opt.state_dict()["param_groups"] == t_opt.state_dict()["param_groups"]
    if name != "NAdam":
        for a, b in zip(a_resumed, a_straight):
            assert a.tolist() == b.tolist()


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_load_torch_state_dict(name, kwargs):
    """torch's state dict (tensors converted) loads into axle's optimizer; both go on alike."""
    rng = np.random.default_rng(31)
    ap, tp = pair_params(rng)
    to = make(name, tp, kwargs, torch)
    for _ in range(3):
        set_grads(rng, ap, tp)
        to.step()
    for a, t in zip(ap, tp):
        with axle.no_grad():
            a.copy_(axle.tensor(to_np(t)))
    ao = make(name, ap, kwargs, axle)
    ao.load_state_dict(convert(to.state_dict()))
    to.load_state_dict(to.state_dict())  # torch's load casts too (NAdam's mu_product to float64)
    for _ in range(3):
        set_grads(rng, ap, tp)
        ao.step()
        to.step()
    for a, t in zip(ap, tp):
        assert_close(a, t)
    assert_state_equal(ao.state_dict()["state"], to.state_dict()["state"])


@pytest.mark.parametrize("name,state,group", [
    ("Adamax", {"step": 3, "exp_avg": [0.1, -0.2], "exp_inf": [0.3, 0.4]},
     {"lr": 0.01, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0}),
    ("NAdam", {"step": 2, "mu_product": 0.8, "exp_avg": [0.1, -0.2], "exp_avg_sq": [0.3, 0.4]},
     {"lr": 0.01, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0, "momentum_decay": 4e-3}),
    ("RAdam", {"step": 7, "exp_avg": [0.1, -0.2], "exp_avg_sq": [0.3, 0.4]},
     {"lr": 0.01, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0}),
    ("ASGD", {"step": 5, "eta": 0.01, "mu": 0.5, "ax": [0.1, -0.2]},
     {"lr": 0.01, "lambd": 1e-4, "alpha": 0.75, "t0": 3, "weight_decay": 0}),
], ids=["Adamax", "NAdam", "RAdam", "ASGD"])
def test_old_state_dict_with_numbers_loads(name, state, group):
    """A state dict from an older torch, with plain numbers where torch 1.13 keeps
    scalar tensors, loads (they become float32 tensors) and goes on as torch's."""
    params, opts = {}, {}
    for lib in (axle, torch):
        p = lib.tensor([1.0, -1.5], dtype=lib.float64, requires_grad=True)
        opt = make(name, [p], {}, lib)
        loaded = {k: lib.tensor(v, dtype=lib.float64) if isinstance(v, list) else v for k, v in state.items()}
        opt.load_state_dict({"state": {0: loaded}, "param_groups": [dict(group, params=[0])]})
        for g in ([0.5, -0.25], [0.125, 1.0]):
            p.grad = lib.tensor(g, dtype=lib.float64)
            opt.step()
        params[lib], opts[lib] = p, opt
    assert_close(params[axle], params[torch])
    assert_state_equal(opts[axle].state_dict()["state"], opts[torch].state_dict()["state"])
    assert opts[axle].state_dict()["param_groups"] == opts[torch].state_dict()["param_groups"]


# ---------------------------------------------------------------- errors
def raises_like_torch(make_axle, make_torch, axle_type=None):
    with pytest.raises(Exception) as te:
        make_torch()
    with pytest.raises(Exception) as ae:
        make_axle()
    assert isinstance(ae.value, type(te.value)), (ae.value, te.value)
    if axle_type is not None:
        assert isinstance(ae.value, axle_type)
    assert str(ae.value) == str(te.value).replace("torch.", "axle.")


BAD = [
    ("Adadelta", dict(lr=-1.0)), ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(rho=-0.1)),
    ("Adadelta", dict(eps=-1e-6)), ("Adadelta", dict(weight_decay=-0.1)),
    ("Adamax", dict(lr=-0.1)), ("Adamax", dict(eps=-1.0)), ("Adamax", dict(betas=(1.0, 0.999))),
    ("Adamax", dict(betas=(0.9, -0.1))), ("Adamax", dict(weight_decay=-2)),
    ("NAdam", dict(lr=-0.1)), ("NAdam", dict(eps=-1.0)), ("NAdam", dict(betas=(-0.1, 0.999))),
    ("NAdam", dict(betas=(0.9, 1.0))), ("NAdam", dict(weight_decay=-2)), ("NAdam", dict(momentum_decay=-1e-3)),
    ("RAdam", dict(lr=-0.1)), ("RAdam", dict(eps=-1.0)), ("RAdam", dict(betas=(1.5, 0.999))),
    ("RAdam", dict(betas=(0.9, 2.0))), ("RAdam", dict(weight_decay=-1)),
    ("ASGD", dict(lr=-0.01)), ("ASGD", dict(weight_decay=-0.5)),
    ("Rprop", dict(lr=-0.01)), ("Rprop", dict(etas=(1.5, 1.2))), ("Rprop", dict(etas=(0.5, 0.9))),
    ("Rprop", dict(etas=(0.0, 1.2))),
]


@pytest.mark.parametrize("name,kwargs", BAD, ids=["%s-%s-%d" % (n, "-".join(k), i) for i, (n, k) in enumerate(BAD)])
def test_bad_hyperparameters_raise_torchs_errors(name, kwargs):
    raises_like_torch(lambda: make(name, [axle.zeros(1, requires_grad=True)], kwargs, axle),
                      lambda: make(name, [torch.zeros(1, requires_grad=True)], kwargs, torch), axle.ValueError)


@pytest.mark.parametrize("name,kwargs", [("NAdam", dict(maximize=True)), ("RAdam", dict(maximize=True)),
                                         ("LBFGS", dict(maximize=True)), ("Adadelta", dict(momentum=0.9))],
                         ids=["NAdam", "RAdam", "LBFGS", "Adadelta"])
def test_options_torch_1_13_lacks_are_refused(name, kwargs):
    raises_like_torch(lambda: make(name, [axle.zeros(1, requires_grad=True)], kwargs, axle),
                      lambda: make(name, [torch.zeros(1, requires_grad=True)], kwargs, torch))


# ---------------------------------------------------------------- LBFGS
def least_squares(seed=3, rows=30, cols=6, outs=4):
    """A least-squares problem 0.5 |A w + b - B|^2 (moderately conditioned) and a
    start point; `loss_and_grads` gives its loss and exact gradients in numpy, so
    both libraries see bit-identical evaluations at identical points."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((rows, cols)) * np.linspace(0.5, 2.0, cols)
    B = rng.standard_normal((rows, outs))
    w0, b0 = rng.standard_normal((cols, outs)), rng.standard_normal(outs)

    def loss_and_grads(w, b):
        r = A @ w + b - B
        return 0.5 * float(np.sum(r * r)), A.T @ r, r.sum(0)

    return A, B, w0, b0, loss_and_grads


def run_lbfgs(lib, kwargs, steps, autograd=False, seed=3, lbfgs=None):
    """LBFGS over (w, b) for `steps` step() calls; returns the losses step returned,
    the parameters after each step, the closure's call count and the optimizer.
    `lbfgs`: the optimizer class (default lib.optim.LBFGS)."""
    A, B, w0, b0, loss_and_grads = least_squares(seed)
    w, b = lib.tensor(w0, requires_grad=True), lib.tensor(b0, requires_grad=True)
    X, Y = lib.tensor(A), lib.tensor(B)
    opt = (lbfgs or lib.optim.LBFGS)([w, b], **kwargs)
    calls = []

    def closure():
        calls.append(lib.is_grad_enabled())
        opt.zero_grad()
        if autograd:
            loss = ((X @ w + b - Y) ** 2).sum() * 0.5
            loss.backward()
            return loss
        loss, gw, gb = loss_and_grads(to_np(w), to_np(b))
        w.grad, b.grad = lib.tensor(gw), lib.tensor(gb)
        return lib.tensor(loss, dtype=lib.float64)

    losses, iterates = [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure)))
        iterates.append((to_np(w).copy(), to_np(b).copy()))
    assert all(calls)  # the closure always runs with grad mode on
    return losses, iterates, len(calls), opt


LBFGS_CONFIGS = [
    dict(max_iter=4),
    dict(max_iter=3, history_size=2),  # the history overflows: the oldest pair is dropped
    dict(lr=0.5, max_iter=5, max_eval=7),  # stops on max_eval
    dict(lr=0.1, max_iter=6, history_size=3),
    dict(max_iter=20, tolerance_grad=1e-1),  # stops on the gradient tolerance
    dict(max_iter=20, tolerance_change=1e-1),  # stops on the loss change
]


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("kwargs", LBFGS_CONFIGS, ids=[str(i) for i in range(len(LBFGS_CONFIGS))])
def test_lbfgs_iterates_match_torch(kwargs, line_search_fn):
    """Two step() calls of up to 20 iterations each. (Near the optimum L-BFGS
    amplifies rounding: axle's dot sums in order where torch's BLAS ddot uses
    fused multiply-adds in blocks, so long runs to convergence drift apart in the
    last digits; test_same_code_on_torch_tensors_is_bitwise_torch shows that the
    algorithm itself is torch's exactly.)"""
    kwargs = dict(kwargs, line_search_fn=line_search_fn)
    a_losses, a_iterates, a_calls, ao = run_lbfgs(axle, kwargs, 2)
    t_losses, t_iterates, t_calls, to = run_lbfgs(torch, kwargs, 2)
    np.testing.assert_allclose(a_losses, t_losses, rtol=RTOL, atol=0)
    for (aw, ab), (tw, tb) in zip(a_iterates, t_iterates):
        np.testing.assert_allclose(aw, tw, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(ab, tb, rtol=RTOL, atol=ATOL)
    assert a_calls == t_calls
    assert a_losses[-1] < a_losses[0]
    a_sd, t_sd = ao.state_dict(), to.state_dict()
    assert a_sd["param_groups"] == t_sd["param_groups"]
    # func_evals, n_iter, d, t, old_dirs, old_stps, ro (scalar tensors), H_diag, prev_flat_grad,
    # prev_loss, al (with Nones): as torch's, with the same types. The curvature pairs are
    # differences of nearby gradients and iterates, so their last digits carry the
    # iterates' rounding magnified: compared to 1e-9 of each vector's largest entry.
    assert_state_equal(a_sd["state"], t_sd["state"], rtol=1e-9, norm_relative=True)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_with_autograd_closure(line_search_fn):
    """The usual closure (zero_grad, forward, backward) with axle's autograd."""
    kwargs = dict(max_iter=3, line_search_fn=line_search_fn)
    a_losses, a_iterates, a_calls, _ = run_lbfgs(axle, kwargs, 2, autograd=True, seed=8)
    t_losses, t_iterates, t_calls, _ = run_lbfgs(torch, kwargs, 2, autograd=True, seed=8)
    np.testing.assert_allclose(a_losses, t_losses, rtol=RTOL, atol=0)
    for (aw, ab), (tw, tb) in zip(a_iterates, t_iterates):
        np.testing.assert_allclose(aw, tw, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(ab, tb, rtol=RTOL, atol=ATOL)
    assert a_calls == t_calls


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_state_dict_round_trip(line_search_fn):
    """One step, save, load into a fresh LBFGS over copies, a second step: torch's
    parameters and state, whether loaded from axle's state dict or torch's."""
    kwargs = dict(max_iter=3, history_size=4, line_search_fn=line_search_fn)
    loss_and_grads = least_squares()[4]

    def resumed(lib, state_dict_from=None):
        _, _, _, opt1 = run_lbfgs(lib, kwargs, 1)
        w1, b1 = (lib.tensor(to_np(p).copy(), requires_grad=True) for p in opt1.param_groups[0]["params"])
        opt2 = lib.optim.LBFGS([w1, b1], **kwargs)
        opt2.load_state_dict(opt1.state_dict() if state_dict_from is None else state_dict_from)

        def closure():
            opt2.zero_grad()
            loss, gw, gb = loss_and_grads(to_np(w1), to_np(b1))
            w1.grad, b1.grad = lib.tensor(gw), lib.tensor(gb)
            return lib.tensor(loss, dtype=lib.float64)

        opt2.step(closure)
        return (w1, b1), opt2, opt1

    (aw, ab), ao, _ = resumed(axle)
    (tw, tb), to, to1 = resumed(torch)
    assert_close(aw, tw)
    assert_close(ab, tb)
    assert_state_equal(ao.state_dict()["state"], to.state_dict()["state"], rtol=1e-9, norm_relative=True)
    # the same as two uninterrupted steps
    _, iterates, _, _ = run_lbfgs(axle, kwargs, 2)
    assert to_np(aw).tolist() == iterates[-1][0].tolist() and to_np(ab).tolist() == iterates[-1][1].tolist()
    # torch's state dict, converted, loads into axle's LBFGS
    (cw, cb), _, _ = resumed(axle, convert(to1.state_dict()))
    assert_close(cw, tw)
    assert_close(cb, tb)


def test_lbfgs_stops_at_once_when_optimal():
    for lib in (axle, torch):
        w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([w])
        calls = []

        def closure():
            calls.append(1)
            opt.zero_grad()
            w.grad = lib.zeros(2, dtype=lib.float64)
            return lib.tensor(3.0, dtype=lib.float64)

        loss = opt.step(closure)
        assert float(loss) == 3.0 and len(calls) == 1 and w.tolist() == [1.0, 2.0]
        assert opt.state_dict()["state"] == {0: {"func_evals": 1, "n_iter": 0}}


def test_lbfgs_parameter_without_grad_counts_as_zero():
    """A parameter the closure leaves without a gradient takes part as zeros."""
    out = {}
    for lib in (axle, torch):
        w = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        unused = lib.tensor([3.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([w, unused], max_iter=4)

        def closure():
            opt.zero_grad()
            loss = ((w - 1.5) ** 2 * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum()
            loss.backward()
            return loss

        opt.step(closure)
        out[lib] = (to_np(w), to_np(unused))
    np.testing.assert_allclose(out[axle][0], out[torch][0], rtol=RTOL, atol=ATOL)
    assert out[axle][1].tolist() == out[torch][1].tolist() == [3.0]


def test_lbfgs_errors_match_torch():
    def groups(lib):
        return lib.optim.LBFGS([{"params": [lib.zeros(1, requires_grad=True)]},
                                {"params": [lib.zeros(1, requires_grad=True)]}])

    raises_like_torch(lambda: groups(axle), lambda: groups(torch), axle.ValueError)

    def bad_line_search(lib):
        w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([w], line_search_fn="backtracking")

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        opt.step(closure)

    raises_like_torch(lambda: bad_line_search(axle), lambda: bad_line_search(torch), axle.AxleError)
    with pytest.raises(TypeError):
        axle.optim.LBFGS([axle.zeros(1, requires_grad=True)]).step()  # the closure is required


# ---------------------------------------------------------------- the algorithms themselves
@pytest.fixture
def on_torch_tensors(monkeypatch):
    """axle.optim's optimizer modules with `axle` swapped for torch (the few module
    functions they call), so the same Python code runs on torch tensors with
    torch's kernels: any difference from torch.optim is then the algorithm's."""
    import types

    import axle.optim.adam
    import axle.optim.adamax
    import axle.optim.asgd
    import axle.optim.lbfgs
    import axle.optim.nadam
    import axle.optim.optimizer
    import axle.optim.radam
    import axle.optim.rprop

    shim = types.SimpleNamespace(
        Tensor=torch.Tensor, tensor=torch.tensor, float32=torch.float32, zeros_like=torch.zeros_like,
        full_like=torch.full_like, maximum=torch.maximum, cat=torch.cat, mul=torch.mul, no_grad=torch.no_grad,
        enable_grad=torch.enable_grad, ValueError=ValueError, TypeError=TypeError, NotImplementedError=RuntimeError)
    for module in (axle.optim.adam, axle.optim.adamax, axle.optim.asgd, axle.optim.lbfgs,
                   axle.optim.nadam, axle.optim.optimizer, axle.optim.radam, axle.optim.rprop):
        monkeypatch.setattr(module, "_axle", shim)
    return shim


def _bitwise_equal_state(a_state, t_state):
    assert list(a_state) == list(t_state)
    for key in t_state:
        assert list(a_state[key]) == list(t_state[key])
        for name, tv in t_state[key].items():
            av = a_state[key][name]
            assert type(av) is type(tv), name
            if isinstance(tv, torch.Tensor):
                assert av.dtype == tv.dtype and torch.equal(av, tv), name
            elif isinstance(tv, list):
                assert len(av) == len(tv) and all(
                    (x is None and y is None) or (type(x) is type(y) and (torch.equal(x, y) if isinstance(
                        y, torch.Tensor) else x == y)) for x, y in zip(av, tv)), name
            else:
                assert av == tv, name


# Adadelta's update is the declared op _fused_adadelta_ (C++), not Python code:
# test_fused_adadelta.py compares it with torch.
PYTHON_CONFIGS = [(name, kwargs) for name, kwargs in CONFIGS if name != "Adadelta"]


@pytest.mark.parametrize("name,kwargs", PYTHON_CONFIGS,
                         ids=[i for i, (name, _) in zip(IDS, CONFIGS) if name != "Adadelta"])
def test_same_code_on_torch_tensors_is_bitwise_torch(name, kwargs, on_torch_tensors):
    """20 steps (with a round trip through state_dict) equal torch.optim's bit for
    bit; for NAdam and RAdam to the last bits only, since torch's addcmul_
    (their v <- v + c g^2) is a fused multiply-add, which axle has no operation for,
    so the code composes it from a multiply and an add."""
    fused = name in ("NAdam", "RAdam")
    cls = getattr(axle.optim, name)
    rng = np.random.default_rng(77)
    values = [rng.standard_normal(s) for s in SHAPES]
    ap = [torch.tensor(v, requires_grad=True) for v in values]
    tp = [torch.tensor(v, requires_grad=True) for v in values]
    ao, to = cls(ap, **kwargs), getattr(torch.optim, name)(tp, **kwargs)
    for step in range(20):
        for a, t in zip(ap, tp):
            g = torch.tensor(rng.standard_normal(t.shape))
            a.grad, t.grad = g.clone(), g.clone()
        ao.step()
        to.step()
        if step == 9:
            ao.load_state_dict(ao.state_dict())
            to.load_state_dict(to.state_dict())
    if fused:
        for a, t in zip(ap, tp):
            assert_close(a, t, rtol=1e-14, atol=1e-16)
        assert_state_equal(convert(ao.state_dict()["state"]), to.state_dict()["state"], rtol=1e-14, atol=1e-16)
    else:
        assert all(torch.equal(a, t) for a, t in zip(ap, tp))
        _bitwise_equal_state(ao.state_dict()["state"], to.state_dict()["state"])


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("kwargs", LBFGS_CONFIGS + [dict(), dict(lr=0.5, max_iter=25, history_size=5)],
                         ids=[str(i) for i in range(len(LBFGS_CONFIGS) + 2)])
def test_lbfgs_same_code_on_torch_tensors_is_bitwise_torch(kwargs, line_search_fn, on_torch_tensors):
    """Four step() calls run to (and past) convergence, both closures: torch's
    iterates, losses, closure calls and state, bit for bit."""
    kwargs = dict(kwargs, line_search_fn=line_search_fn)
    for autograd in (False, True):
        a_losses, a_iterates, a_calls, ao = run_lbfgs(torch, kwargs, 4, autograd, lbfgs=axle.optim.LBFGS)
        t_losses, t_iterates, t_calls, to = run_lbfgs(torch, kwargs, 4, autograd)
        assert a_losses == t_losses and a_calls == t_calls
        for (aw, ab), (tw, tb) in zip(a_iterates, t_iterates):
            assert aw.tolist() == tw.tolist() and ab.tolist() == tb.tolist()
        _bitwise_equal_state(ao.state_dict()["state"], to.state_dict()["state"])
