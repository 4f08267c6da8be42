"""axle.optim against torch 1.13's torch.optim: the same float64 parameters and
gradients give the same parameters (to 1e-12 relative) for SGD, Adam, AdamW,
RMSprop and Adagrad in several option combinations; a small model trained end to
end with axle's autograd gives torch's losses; zero_grad, parameter groups,
state_dict round trips (also from torch's state dict), repr and torch's errors;
and the learning-rate schedulers give torch's rate sequences."""
import warnings

import numpy as np
import pytest

import axle
import axle.optim
import axle.optim.lr_scheduler as ALS

torch = pytest.importorskip("torch")
TLS = torch.optim.lr_scheduler

RTOL, ATOL = 1e-12, 1e-14
SHAPES = [(5, 4), (7,), ()]
STEPS = 8

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.2, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.5, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, weight_decay=0.1)),
    ("Adam", dict(lr=0.02, amsgrad=True)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.9), eps=1e-6, maximize=True, amsgrad=True, weight_decay=0.05)),
    ("AdamW", dict()),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01, betas=(0.5, 0.75), maximize=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(centered=True)),
    ("RMSprop", dict(momentum=0.9, weight_decay=0.01)),
    ("RMSprop", dict(lr=0.005, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1, maximize=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, weight_decay=0.1)),
    ("Adagrad", dict(initial_accumulator_value=0.5, eps=1e-6, maximize=True)),
]
IDS = ["%s-%d" % (name, i) for i, (name, _) in enumerate(CONFIGS)]


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
        a.grad, t.grad = axle.tensor(g), torch.tensor(g)


def assert_close(a, t, rtol=RTOL, atol=ATOL):
    np.testing.assert_allclose(to_np(a), to_np(t), rtol=rtol, atol=atol)


def assert_state_equal(a_state, t_state, rtol=RTOL, atol=ATOL):
    """Per-parameter state dicts (of state_dict()['state']) match: same keys, in the
    same order, tensors with the same dtype and values, numbers equal."""
    assert list(a_state) == list(t_state)
    for key in t_state:
        assert list(a_state[key]) == list(t_state[key]), key
        for name, tv in t_state[key].items():
            av = a_state[key][name]
            if isinstance(tv, torch.Tensor):
                assert isinstance(av, axle.Tensor), name
                assert av.dtype.name == str(tv.dtype).replace("torch.", ""), name
                assert tuple(av.shape) == tuple(tv.shape), name
                assert_close(av, tv, rtol, atol)
            else:
                assert av == tv, name


def make(name, params, kwargs, lib):
    return getattr(axle.optim if lib is axle else torch.optim, name)(params, **kwargs)


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
    assert_state_equal(ao.state_dict()["state"], to.state_dict()["state"])
    assert ao.state_dict()["param_groups"] == to.state_dict()["param_groups"]


def test_adam_float32_matches_torch():
    rng = np.random.default_rng(7)
    ap, tp = pair_params(rng, dtype=np.float32)
    ao, to = axle.optim.Adam(ap, lr=0.01, amsgrad=True), torch.optim.Adam(tp, lr=0.01, amsgrad=True)
    for _ in range(STEPS):
        set_grads(rng, ap, tp)
        ao.step()
        to.step()
    for a, t in zip(ap, tp):
        assert a.dtype == axle.float32
        assert_close(a, t, rtol=1e-5, atol=1e-6)
    assert ao.state[ap[0]]["step"].dtype == axle.float32 and ao.state[ap[0]]["step"].item() == STEPS


@pytest.mark.parametrize("name,kwargs", [
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, amsgrad=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
    ("Adagrad", dict(lr=0.2, lr_decay=0.01)),
], ids=["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
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
            if step % 2:  # the closure form, too
                def closure():
                    opt.zero_grad()
                    loss = ((X @ w + b - Y) ** 2).mean()
                    loss.backward()
                    return loss

                loss = opt.step(closure)
            else:
                opt.zero_grad()
                loss = ((X @ w + b - Y) ** 2).mean()
                loss.backward()
                opt.step()
            out.append(loss.item())
        losses[lib.__name__] = out
        losses[lib.__name__ + "_w"] = to_np(w)
    np.testing.assert_allclose(losses["axle"], losses["torch"], rtol=RTOL, atol=0)
    np.testing.assert_allclose(losses["axle_w"], losses["torch_w"], rtol=RTOL, atol=ATOL)
    assert losses["axle"][-1] < losses["axle"][0]


def test_closure_runs_with_grad_enabled():
    w = axle.tensor([1.0, -2.0], dtype=axle.float64, requires_grad=True)
    opt = axle.optim.SGD([w], lr=0.1)
    seen = []

    def closure():
        seen.append(axle.is_grad_enabled())
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with axle.no_grad():
        loss = opt.step(closure)
    assert seen == [True] and loss.item() == 5.0
    assert w.tolist() == pytest.approx([0.8, -1.6], rel=1e-15)
    assert axle.is_grad_enabled()


# ---------------------------------------------------------------- zero_grad and groups
def test_zero_grad_in_place_and_to_none():
    w = axle.tensor([1.0, 2.0], dtype=axle.float64, requires_grad=True)
    v = axle.tensor([3.0], dtype=axle.float64, requires_grad=True)
    opt = axle.optim.SGD([w, v], lr=0.1)
    (w * w).sum().backward()
    grad = w.grad
    assert grad.tolist() == [2.0, 4.0] and v.grad is None
    opt.zero_grad(set_to_none=False)  # zeroed in place (the same tensor: earlier references see it)
    assert grad.tolist() == [0.0, 0.0] and w.grad.tolist() == [0.0, 0.0] and not w.grad.requires_grad
    assert v.grad is None
    (w * w).sum().backward()  # accumulates into the zeroed gradient
    assert w.grad.tolist() == [2.0, 4.0] and grad.tolist() == [2.0, 4.0]
    opt.zero_grad()  # torch 2.x's default: set to None
    assert w.grad is None and v.grad is None


def test_zero_grad_detaches_a_graph_gradient():
    w = axle.tensor([1.0, 2.0], dtype=axle.float64, requires_grad=True)
    (w * w * w).sum().backward(create_graph=True)
    assert w.grad.requires_grad
    axle.optim.SGD([w], lr=0.1).zero_grad(set_to_none=False)
    assert w.grad.grad_fn is None and not w.grad.requires_grad and w.grad.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("name,common,groups", [
    ("SGD", dict(lr=0.1, momentum=0.9), [dict(), dict(lr=0.01, nesterov=True)]),
    ("Adam", dict(lr=0.01), [dict(), dict(lr=0.1, amsgrad=True, betas=(0.5, 0.6))]),
    ("RMSprop", dict(lr=0.01), [dict(centered=True), dict(lr=0.001, momentum=0.3)]),
    ("Adagrad", dict(lr=0.1), [dict(lr_decay=0.5), dict(lr=0.05)]),
], ids=["SGD", "Adam", "RMSprop", "Adagrad"])
def test_param_groups_with_their_own_options(name, common, groups):
    rng = np.random.default_rng(5)
    ap, tp = pair_params(rng)
    ag = [dict(params=ap[:1], **groups[0]), dict(params=ap[1:], **groups[1])]
    tg = [dict(params=tp[:1], **groups[0]), dict(params=tp[1:], **groups[1])]
    ao, to = make(name, ag, common, axle), make(name, tg, common, torch)
    assert [g["lr"] for g in ao.param_groups] == [g["lr"] for g in to.param_groups]
    for _ in range(STEPS):
        set_grads(rng, ap, tp)
        ao.step()
        to.step()
    for a, t in zip(ap, tp):
        assert_close(a, t)
    assert ao.state_dict()["param_groups"] == to.state_dict()["param_groups"]
    assert repr(ao) == repr(to)


def test_add_param_group_later():
    rng = np.random.default_rng(11)
    ap, tp = pair_params(rng)
    ao, to = axle.optim.Adam(ap[:2], lr=0.01), torch.optim.Adam(tp[:2], lr=0.01)
    for step in range(6):
        if step == 3:
            ao.add_param_group({"params": ap[2], "lr": 0.1})
            to.add_param_group({"params": tp[2], "lr": 0.1})
        set_grads(rng, ap, tp)
        ao.step()
        to.step()
    for a, t in zip(ap, tp):
        assert_close(a, t)
    assert len(ao.param_groups) == 2 and ao.param_groups[1]["params"] == [ap[2]]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_repr_matches_torch(name):
    kwargs = dict(lr=0.1) if name == "SGD" else {}
    ao = make(name, [axle.zeros(2, requires_grad=True)], kwargs, axle)
    to = make(name, [torch.zeros(2, requires_grad=True)], kwargs, torch)
    assert repr(ao) == repr(to)
    assert ao.defaults == to.defaults


# ---------------------------------------------------------------- state dicts
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_state_dict_round_trip(name, kwargs):
    """Stepping 4 times, saving, loading into a fresh optimizer over copies of the
    parameters and stepping 4 more equals 8 uninterrupted steps, exactly."""
    rng = np.random.default_rng(21)
    values = [rng.standard_normal(s) for s in SHAPES]
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(STEPS)]

    def run(params, opt, steps):
        for g in steps:
            for p, gv in zip(params, g):
                p.grad = axle.tensor(gv)
            opt.step()

    straight = [axle.tensor(v, requires_grad=True) for v in values]
    run(straight, make(name, straight, kwargs, axle), grads)

    first = [axle.tensor(v, requires_grad=True) for v in values]
    opt1 = make(name, first, kwargs, axle)
    run(first, opt1, grads[:4])
    saved = opt1.state_dict()
    resumed = [axle.tensor(p.numpy(), requires_grad=True) for p in first]
    opt2 = make(name, resumed, kwargs, axle)
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["params"][0] is resumed[0]
    for p_new, p_old in zip(resumed, first):  # the state was copied, not shared
        for key, value in opt2.state[p_new].items():
            if isinstance(value, axle.Tensor):
                assert value is not opt1.state[p_old][key]
    run(resumed, opt2, grads[4:])
    for a, b in zip(resumed, straight):
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

    def convert(value):
        if isinstance(value, torch.Tensor):
            return axle.tensor(value.numpy())
        if isinstance(value, dict):
            return {k: convert(v) for k, v in value.items()}
        return value

    ao = make(name, ap, kwargs, axle)
    ao.load_state_dict(convert(to.state_dict()))
    for _ in range(3):
        set_grads(rng, ap, tp)
        ao.step()
        to.step()
    for a, t in zip(ap, tp):
        assert_close(a, t)
    assert_state_equal(ao.state_dict()["state"], to.state_dict()["state"])


def test_load_state_dict_casts_to_the_parameters_dtype():
    p64 = axle.tensor([1.0, 2.0], dtype=axle.float64, requires_grad=True)
    opt = axle.optim.Adam([p64])
    p64.grad = axle.tensor([0.5, -0.5], dtype=axle.float64)
    opt.step()
    p32 = axle.tensor([1.0, 2.0], dtype=axle.float32, requires_grad=True)
    opt32 = axle.optim.Adam([p32])
    opt32.load_state_dict(opt.state_dict())
    state = opt32.state[p32]
    assert state["exp_avg"].dtype == axle.float32 and state["exp_avg_sq"].dtype == axle.float32
    assert state["step"].dtype == axle.float32 and state["step"].item() == 1.0  # step is not cast
    assert opt32.param_groups[0]["params"] == [p32]


def test_load_state_dict_checks_layout():
    def opt(lib, sizes):
        return lib.optim.SGD([{"params": [lib.zeros(1, requires_grad=True) for _ in range(n)]} for n in sizes],
                             lr=0.1)

    for saved, target in (([1, 2], [1]), ([1, 2], [1, 1])):
        with pytest.raises(ValueError) as te:
            opt(torch, target).load_state_dict(opt(torch, saved).state_dict())
        with pytest.raises(axle.ValueError) as ae:
            opt(axle, target).load_state_dict(opt(axle, saved).state_dict())
        assert str(ae.value) == str(te.value)


def test_state_dict_layout_matches_torch():
    ap = [axle.zeros(n, dtype=axle.float64, requires_grad=True) for n in (2, 3)]
    tp = [torch.zeros(n, dtype=torch.float64, requires_grad=True) for n in (2, 3)]
    ao = axle.optim.SGD([{"params": ap[:1]}, {"params": ap[1:], "lr": 0.5}], lr=0.1, momentum=0.9)
    to = torch.optim.SGD([{"params": tp[:1]}, {"params": tp[1:], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert ao.state_dict() == to.state_dict() == {"state": {}, "param_groups": to.state_dict()["param_groups"]}
    ap[1].grad, tp[1].grad = axle.ones(3, dtype=axle.float64), torch.ones(3, dtype=torch.float64)
    ao.step()
    to.step()
    a_sd, t_sd = ao.state_dict(), to.state_dict()
    assert list(a_sd["state"]) == list(t_sd["state"]) == [1]
    assert a_sd["param_groups"] == t_sd["param_groups"]
    assert_state_equal(a_sd["state"], t_sd["state"])
    # without momentum the buffer entry is None, as torch keeps it
    a_plain, t_plain = axle.optim.SGD(ap, lr=0.1), torch.optim.SGD(tp, lr=0.1)
    a_plain.step()
    t_plain.step()
    assert a_plain.state_dict()["state"] == t_plain.state_dict()["state"] == {1: {"momentum_buffer": None}}


def test_old_state_dict_with_number_steps_loads():
    p = axle.tensor([1.0], dtype=axle.float64, requires_grad=True)
    opt = axle.optim.Adam([p])
    opt.load_state_dict({"state": {0: {"step": 3, "exp_avg": axle.zeros(1), "exp_avg_sq": axle.zeros(1)}},
                         "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0,
                                           "amsgrad": False, "params": [0]}]})
    step = opt.state[p]["step"]
    assert isinstance(step, axle.Tensor) and step.item() == 3.0
    assert opt.param_groups[0]["maximize"] is False and opt.param_groups[0]["lr"] == 0.1
    assert opt.state[p]["exp_avg"].dtype == axle.float64


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
    ("SGD", dict(lr=-1.0)), ("SGD", dict(lr=0.1, momentum=-0.5)), ("SGD", dict(lr=0.1, weight_decay=-1e-3)),
    ("SGD", dict(lr=0.1, nesterov=True)), ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
    ("Adam", dict(lr=-0.1)), ("Adam", dict(eps=-1.0)), ("Adam", dict(betas=(1.0, 0.999))),
    ("Adam", dict(betas=(0.9, -0.1))), ("Adam", dict(weight_decay=-2)),
    ("AdamW", dict(lr=-1e-3)), ("AdamW", dict(betas=(0.9, 1.5))), ("AdamW", dict(weight_decay=-0.01)),
    ("RMSprop", dict(lr=-0.1)), ("RMSprop", dict(eps=-1e-8)), ("RMSprop", dict(momentum=-0.9)),
    ("RMSprop", dict(weight_decay=-1)), ("RMSprop", dict(alpha=-0.5)),
    ("Adagrad", dict(lr=-0.01)), ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(weight_decay=-0.1)),
    ("Adagrad", dict(initial_accumulator_value=-1.0)), ("Adagrad", dict(eps=-1e-10)),
]


@pytest.mark.parametrize("name,kwargs", BAD, ids=["%s-%s" % (n, "-".join(k)) for n, k in BAD])
def test_bad_hyperparameters_raise_torchs_errors(name, kwargs):
    raises_like_torch(lambda: make(name, [axle.zeros(1, requires_grad=True)], kwargs, axle),
                      lambda: make(name, [torch.zeros(1, requires_grad=True)], kwargs, torch), axle.ValueError)


def test_parameter_errors_match_torch():
    def both(build):
        return lambda: build(axle), lambda: build(torch)

    a = {lib: lib.zeros(2, dtype=lib.float64, requires_grad=True) for lib in (axle, torch)}
    b = {lib: lib.zeros(2, dtype=lib.float64, requires_grad=True) for lib in (axle, torch)}
    cases = [
        (lambda L: L.optim.SGD([a[L]]), axle.ValueError),  # lr is required
        (lambda L: L.optim.SGD([], lr=0.1), axle.ValueError),
        (lambda L: L.optim.SGD(a[L], lr=0.1), axle.TypeError),  # a tensor, not an iterable of them
        (lambda L: L.optim.SGD([a[L], 3], lr=0.1), axle.TypeError),
        (lambda L: L.optim.SGD([a[L] * 2], lr=0.1), axle.ValueError),  # non-leaf
        (lambda L: L.optim.SGD([{"params": {a[L]}}], lr=0.1), axle.TypeError),  # a set
        (lambda L: L.optim.Adam([{"params": [a[L], b[L]]}, {"params": [b[L]]}]), axle.ValueError),
        (lambda L: L.optim.SGD([{"params": [a[L]]}, {"params": [b[L]]}]), axle.ValueError),  # group lacks lr
    ]
    for build, axle_type in cases:
        make_axle, make_torch = both(build)
        raises_like_torch(make_axle, make_torch, axle_type)
    opt = axle.optim.SGD([a[axle]], lr=0.1)
    with pytest.raises(axle.ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [b[axle], a[axle]]})
    with pytest.raises(AssertionError, match="param group must be a dict"):
        opt.add_param_group([b[axle]])
    with pytest.warns(UserWarning, match="duplicate parameters"):
        axle.optim.SGD([a[axle], a[axle]], lr=0.1)


def test_unsupported_options_are_refused():
    p = axle.zeros(1, requires_grad=True)
    for build in (lambda: axle.optim.Adam([p], fused=True), lambda: axle.optim.Adam([p], capturable=True),
                  lambda: axle.optim.AdamW([p], capturable=True),
                  lambda: axle.optim.SGD([p], lr=0.1, differentiable=True),
                  lambda: axle.optim.RMSprop([p], differentiable=True)):
        with pytest.raises(axle.NotImplementedError):
            build()


def test_base_step_is_abstract():
    opt = axle.optim.Optimizer([axle.zeros(1, requires_grad=True)], {"lr": 0.1})
    with pytest.raises(NotImplementedError):
        opt.step()
    assert repr(opt) == "Optimizer (\nParameter Group 0\n    lr: 0.1\n)"


# ---------------------------------------------------------------- schedulers
def scheduler_pair(build, opt_name="SGD", opt_kwargs=None, groups=((0.1, {}), (0.05, {}))):
    """The same optimizer (two groups) and scheduler in both libraries."""
    opt_kwargs = dict(lr=0.1, momentum=0.9) if opt_kwargs is None else opt_kwargs
    out = []
    for lib, mod in ((axle, ALS), (torch, TLS)):
        params = [{"params": [lib.zeros(2, dtype=lib.float64, requires_grad=True)], "lr": lr, **extra}
                  for lr, extra in groups]
        opt = getattr(lib.optim, opt_name)(params, **opt_kwargs)
        out.append((opt, build(mod, opt)))
    return out


def drive(pair, steps=20, metrics=None, momentum_key=None):
    """Steps both (optimizer then scheduler), comparing the rates (and momentum) each time."""
    (ao, asch), (to, tsch) = pair
    assert asch.get_last_lr() == tsch.get_last_lr()
    for i in range(steps):
        ao.step()
        to.step()
        args = () if metrics is None else (metrics[i],)
        asch.step(*args)
        tsch.step(*args)
        a_lrs, t_lrs = asch.get_last_lr(), tsch.get_last_lr()
        assert a_lrs == t_lrs, i  # the same arithmetic in the same order: equal, not just close
        assert [g["lr"] for g in ao.param_groups] == [g["lr"] for g in to.param_groups]
        if momentum_key:
            assert [g[momentum_key] for g in ao.param_groups] == [g[momentum_key] for g in to.param_groups]
    return a_lrs


SCHEDULERS = {
    "StepLR": lambda m, o: m.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, milestones=[2, 5, 5, 11], gamma=0.3),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "CosineAnnealingLR-eta0": lambda m, o: m.CosineAnnealingLR(o, T_max=5),
    "LambdaLR": lambda m, o: m.LambdaLR(o, lr_lambda=lambda e: 1.0 / (1 + e)),
    "LambdaLR-per-group": lambda m, o: m.LambdaLR(o, lr_lambda=[lambda e: 0.95 ** e, lambda e: e % 4 + 1]),
    "MultiplicativeLR": lambda m, o: m.MultiplicativeLR(o, lr_lambda=lambda e: 0.9 if e % 2 else 1.05),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=8),
    "LinearLR-default": lambda m, o: m.LinearLR(o),
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.5, total_iters=4),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=12, power=2.0),
    "SequentialLR": lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.1, total_iters=4), m.ExponentialLR(o, gamma=0.8),
            m.StepLR(o, step_size=2)], milestones=[5, 12]),
    "ChainedScheduler": lambda m, o: m.ChainedScheduler(
        [m.ConstantLR(o, factor=0.3, total_iters=3), m.ExponentialLR(o, gamma=0.95)]),
    "OneCycleLR": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=20),
    "OneCycleLR-linear-3phase": lambda m, o: m.OneCycleLR(o, max_lr=0.3, epochs=4, steps_per_epoch=5,
                                                          anneal_strategy="linear", three_phase=True,
                                                          pct_start=0.25),
    "CyclicLR": lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=5),
    "CyclicLR-triangular2": lambda m, o: m.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=2,
                                                    mode="triangular2"),
    "CyclicLR-exp_range": lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4,
                                                  mode="exp_range", gamma=0.9, cycle_momentum=False),
    "CosineAnnealingWarmRestarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
}


@pytest.mark.parametrize("key", list(SCHEDULERS))
def test_scheduler_matches_torch(key):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's own deprecation chatter
        pair = scheduler_pair(SCHEDULERS[key])
        momentum_key = "momentum" if key.startswith(("OneCycleLR", "CyclicLR")) and "exp" not in key else None
        drive(pair, steps=19 if key.startswith("OneCycleLR") else 20, momentum_key=momentum_key)


def test_one_cycle_cycles_adams_beta1():
    pair = scheduler_pair(lambda m, o: m.OneCycleLR(o, max_lr=0.01, total_steps=15), "Adam", {})
    drive(pair, steps=14, momentum_key="betas")
    (ao, asch), _ = pair
    ao.step()
    asch.step()
    with pytest.raises(axle.ValueError, match="Tried to step 17 times. The specified number of total steps is 15"):
        ao.step()
        asch.step()


def test_reduce_lr_on_plateau_matches_torch():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.4, 0.45, 0.45, 0.45,
               0.45, 0.45, 0.45]
    for kwargs in (dict(patience=2, factor=0.5), dict(mode="max", patience=1, cooldown=2, threshold=0.05,
                                                        threshold_mode="abs", min_lr=[0.02, 0.001])):
        pair = scheduler_pair(lambda m, o: m.ReduceLROnPlateau(o, **kwargs))
        (ao, asch), (to, tsch) = pair
        for i, metric in enumerate(metrics):
            ao.step()
            to.step()
            asch.step(axle.tensor(metric, dtype=axle.float64) if i % 2 else metric)  # a tensor or a number
            tsch.step(metric)
            assert [g["lr"] for g in ao.param_groups] == [g["lr"] for g in to.param_groups], i
        assert asch.num_bad_epochs == tsch.num_bad_epochs and asch.best == tsch.best


def test_closed_form_with_explicit_epoch():
    for build in (SCHEDULERS["StepLR"], SCHEDULERS["CosineAnnealingLR"], SCHEDULERS["LinearLR"]):
        (ao, asch), (to, tsch) = scheduler_pair(build)
        for epoch in (3, 7, 4, 12):
            with pytest.warns(UserWarning):
                asch.step(epoch)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tsch.step(epoch)
            assert asch.get_last_lr() == tsch.get_last_lr()


@pytest.mark.filterwarnings("ignore:The epoch parameter")  # SequentialLR restarts its schedulers with step(0)
def test_scheduler_state_dict_round_trip():
    def build(o):
        return ALS.SequentialLR(o, [ALS.LinearLR(o, total_iters=3), ALS.CosineAnnealingLR(o, T_max=6)], [4])

    (o1, s1), _ = scheduler_pair(lambda m, o: m.StepLR(o, 2) if m is TLS else build(o))
    for _ in range(6):
        o1.step()
        s1.step()
    saved = s1.state_dict()
    assert "optimizer" not in saved and len(saved["_schedulers"]) == 2
    (o2, s2), _ = scheduler_pair(lambda m, o: m.StepLR(o, 2) if m is TLS else build(o))
    s2.load_state_dict(saved)
    o2.load_state_dict(o1.state_dict())
    for _ in range(8):
        for o, s in ((o1, s1), (o2, s2)):
            o.step()
            s.step()
        assert s1.get_last_lr() == s2.get_last_lr()
        assert [g["lr"] for g in o1.param_groups] == [g["lr"] for g in o2.param_groups]


def test_scheduler_state_dict_keys_match_torch():
    (ao, asch), (to, tsch) = scheduler_pair(SCHEDULERS["StepLR"])
    assert sorted(asch.state_dict()) == sorted(tsch.state_dict())
    (ao, asch), (to, tsch) = scheduler_pair(SCHEDULERS["LambdaLR"])
    assert asch.state_dict()["lr_lambdas"] == tsch.state_dict()["lr_lambdas"] == [None, None]


def test_scheduler_warnings_and_errors():
    p = axle.zeros(1, requires_grad=True)
    opt = axle.optim.SGD([p], lr=0.1)
    sched = ALS.StepLR(opt, 2)
    assert ALS._LRScheduler is ALS.LRScheduler and isinstance(sched, ALS._LRScheduler)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()  # the scheduler's step before any optimizer step
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched.get_lr()
    opt2 = axle.optim.SGD([axle.zeros(1, requires_grad=True)], lr=0.1)
    sched2 = ALS.ExponentialLR(opt2, 0.5)
    opt2.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched2.step()  # the right order: no warning
    assert opt2._step_count == 1 and sched2._step_count == 2 and "_with_counter" not in vars(type(opt2))
    raises_like_torch(lambda: ALS.StepLR(object(), 2), lambda: TLS.StepLR(object(), 2), axle.TypeError)
    fresh_a = axle.optim.SGD([axle.zeros(1, requires_grad=True)], lr=0.1)
    fresh_t = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    raises_like_torch(lambda: ALS.StepLR(fresh_a, 2, last_epoch=3), lambda: TLS.StepLR(fresh_t, 2, last_epoch=3))
    for name, kwargs in (("LinearLR", dict(start_factor=1.5)), ("ConstantLR", dict(factor=-0.1)),
                         ("OneCycleLR", dict(max_lr=0.1)), ("OneCycleLR", dict(max_lr=0.1, total_steps=0)),
                         ("CosineAnnealingWarmRestarts", dict(T_0=0)), ("ReduceLROnPlateau", dict(factor=1.0)),
                         ("ReduceLROnPlateau", dict(mode="up")), ("LambdaLR", dict(lr_lambda=[abs, abs]))):
        raises_like_torch(lambda: getattr(ALS, name)(fresh_a, **kwargs),
                          lambda: getattr(TLS, name)(fresh_t, **kwargs), axle.ValueError)


def test_scheduler_resumes_from_last_epoch():
    """Built with last_epoch (after the optimizer's groups got 'initial_lr'), as torch."""
    pair = []
    for lib, mod in ((axle, ALS), (torch, TLS)):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        for group in opt.param_groups:
            group["initial_lr"] = 0.4
        pair.append((opt, mod.CosineAnnealingLR(opt, T_max=10, last_epoch=4)))
    drive(pair, steps=10)
    assert pair[0][1].base_lrs == [0.4] and pair[0][1].last_epoch == pair[1][1].last_epoch == 15


@pytest.mark.skipif(not hasattr(axle.nn, "Linear"), reason="axle.nn has no modules in this build")
def test_module_parameters_train_like_torch():
    """Optimizers over nn.Linear's Parameters (a Tensor subclass), as in torch code."""
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((8, 4)), rng.standard_normal((8, 2))
    w0, b0 = rng.standard_normal((2, 4)), rng.standard_normal(2)
    losses = []
    for lib in (axle, torch):
        model = lib.nn.Linear(4, 2, dtype=lib.float64)
        with lib.no_grad():
            model.weight.copy_(lib.tensor(w0))
            model.bias.copy_(lib.tensor(b0))
        opt = lib.optim.AdamW(model.parameters(), lr=0.05)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        X, Y = lib.tensor(x), lib.tensor(y)
        out = []
        for _ in range(6):
            opt.zero_grad()
            loss = ((model(X) - Y) ** 2).mean()
            loss.backward()
            opt.step()
            sched.step()
            out.append(loss.item())
        losses.append(out)
        assert list(opt.state_dict()["state"]) == [0, 1]
    np.testing.assert_allclose(losses[0], losses[1], rtol=RTOL, atol=0)
