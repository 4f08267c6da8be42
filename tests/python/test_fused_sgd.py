"""The fused SGD update (the declared op _fused_sgd_, which axle.optim.SGD runs
once per parameter group) against torch 1.13's SGD, whose per-tensor algorithm
is the spec: float32 and float64, every branch of the update, parameters the
cpu kernel declines (strided, a gradient of another layout or dtype; for
Adadelta and AdamW's fused ops too), and the errors."""
import numpy as np
import pytest
import torch

import axle

CONFIGS = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.2, weight_decay=0.01),
    dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1),
    dict(lr=0.1, momentum=0.5, maximize=True, weight_decay=1e-3),
]
SHAPES = [(3, 5), (37,), (4, 4, 9), (64, 3, 3, 3), (0, 2)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cfg", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_sgd_steps_match_torch(cfg, dtype):
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    ap = [axle.tensor(v, requires_grad=True) for v in values]
    tp = [torch.tensor(v, requires_grad=True) for v in values]
    aopt, topt = axle.optim.SGD(ap, **cfg), torch.optim.SGD(tp, **cfg)
    for step in range(4):
        for i, (a, t) in enumerate(zip(ap, tp)):
            if step == 1 and i == 2:  # a parameter without gradient this step: untouched, its buffer too
                a.grad, t.grad = None, None
                continue
            g = rng.standard_normal(a.shape).astype(dtype)
            a.grad, t.grad = axle.tensor(g), torch.tensor(g)
        aopt.step(), topt.step()
        tol = 1e-6 if dtype == np.float32 else 1e-13
        for a, t in zip(ap, tp):
            np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)
        for a, t in zip(ap, tp):
            ab, tb = aopt.state[a].get("momentum_buffer"), topt.state[t].get("momentum_buffer")
            assert (ab is None) == (tb is None)
            if ab is not None:
                np.testing.assert_allclose(ab.numpy(), tb.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name,cfg", [("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
                                      ("Adadelta", dict(lr=0.5, weight_decay=0.01)),
                                      ("AdamW", dict(lr=0.05, amsgrad=True))])
def test_declined_layouts_and_dtypes_take_the_same_math(name, cfg):
    """A transposed parameter and a gradient of another layout: the cpu kernels
    of the fused updates (_fused_sgd_, _fused_adadelta_, _fused_adamw_) decline,
    the composite runs the same math op by op."""
    rng = np.random.default_rng(1)
    base = [rng.standard_normal((6, 4)) for _ in range(2)]
    ap = [axle.tensor(base[0]).t().requires_grad_(), axle.tensor(base[1], requires_grad=True)]
    tp = [torch.tensor(base[0]).t().requires_grad_(), torch.tensor(base[1], requires_grad=True)]
    aopt, topt = getattr(axle.optim, name)(ap, **cfg), getattr(torch.optim, name)(tp, **cfg)
    for _ in range(3):
        g = [rng.standard_normal(a.shape) for a in ap]
        ap[0].grad, tp[0].grad = axle.tensor(g[0]), torch.tensor(g[0])
        ap[1].grad = axle.tensor(g[1].T).t()  # transposed-layout gradient of a contiguous parameter
        tp[1].grad = torch.tensor(g[1].T).t()
        aopt.step(), topt.step()
    for a, t in zip(ap, tp):
        np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_the_op_directly_and_its_errors():
    p = [axle.ones(3), axle.ones(2, 2)]
    g = [axle.full((3,), 2.0), axle.full((2, 2), -1.0)]
    b = [axle.zeros(3), axle.zeros(2, 2)]
    out = axle._fused_sgd_(p, g, b, weight_decay=0.5, momentum=0.9, lr=0.1, dampening=0.0, nesterov=False,
                           maximize=False, is_first_step=True)
    assert out is None  # `-> ()`
    # d = g + 0.5 p; first step: buf = d; p -= 0.1 d
    assert np.allclose(b[0].numpy(), 2.5) and np.allclose(b[1].numpy(), -0.5)
    assert np.allclose(p[0].numpy(), 0.75) and np.allclose(p[1].numpy(), 1.05)
    kw = dict(weight_decay=0.0, momentum=0.9, lr=0.1, dampening=0.0, nesterov=False, maximize=False,
              is_first_step=False)
    with pytest.raises(axle.ShapeError, match="_fused_sgd_: expected one gradient per parameter"):
        axle._fused_sgd_(p, g[:1], b, **kw)
    with pytest.raises(axle.ShapeError, match="momentum buffer of parameter 1"):
        axle._fused_sgd_(p, g, [b[0], axle.zeros(4)], **kw)
    with pytest.raises(axle.DTypeError, match="gradient of parameter 0"):
        axle._fused_sgd_(p, [g[0].double(), g[1]], b, **kw)
    with pytest.raises(axle.NotImplementedError, match="grad_scale"):
        axle._fused_sgd_(p, g, b, grad_scale=axle.tensor(2.0), **kw)
    # A leaf that requires grad, with grad mode on: refused as torch refuses in-place writes to it.
    w = axle.ones(3, requires_grad=True)
    with pytest.raises(axle.AutogradError, match="leaf Variable that requires grad"):
        axle._fused_sgd_([w], [axle.ones(3)], [axle.zeros(3)], **kw)
    with axle.no_grad():
        axle._fused_sgd_([w], [axle.ones(3)], [axle.zeros(3)], **kw)
    assert np.allclose(w.detach().numpy(), 0.9)


def test_writes_bump_versions():
    """Saved tensors see the update: the op gives each written tensor a new version."""
    w = axle.ones(3, requires_grad=True)
    y = (w * w).sum()
    with axle.no_grad():
        axle._fused_sgd_([w], [axle.ones(3)], [], weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0,
                         nesterov=False, maximize=False, is_first_step=False)
    with pytest.raises(Exception, match="modified by an inplace operation"):
        y.backward()


def test_expanded_gradients_and_a_failed_step_leave_no_state():
    # An expanded gradient (stride 0) is taken as torch's per-tensor step takes it.
    ap, tp = axle.zeros(3, 4, requires_grad=True), torch.zeros(3, 4, requires_grad=True)
    aopt, topt = axle.optim.SGD([ap], lr=0.1, momentum=0.9), torch.optim.SGD([tp], lr=0.1, momentum=0.9)
    for _ in range(2):
        ap.grad, tp.grad = axle.ones(4).expand(3, 4), torch.ones(4).expand(3, 4)
        aopt.step(), topt.step()
    np.testing.assert_allclose(ap.detach().numpy(), tp.detach().numpy(), rtol=1e-6)
    # A step that fails (a broken buffer in the state) writes no new buffers for the others.
    a, b = axle.zeros(5, requires_grad=True), axle.zeros(5, requires_grad=True)
    opt = axle.optim.SGD([a, b], lr=0.1, momentum=0.9)
    a.grad, b.grad = axle.ones(5), axle.ones(5)
    opt.step()
    opt.state[a]["momentum_buffer"] = axle.zeros(4)
    c = axle.zeros(5, requires_grad=True)
    c.grad = axle.ones(5)
    opt.add_param_group({"params": [c]})
    with pytest.raises(axle.ShapeError, match="momentum buffer of parameter 0"):
        opt.step()
    assert opt.state[c].get("momentum_buffer") is None  # c's new buffer did not enter the state
    np.testing.assert_array_equal(c.detach().numpy(), np.zeros(5))
