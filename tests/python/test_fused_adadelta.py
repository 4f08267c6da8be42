"""The fused Adadelta update (the declared op _fused_adadelta_, axle's own name:
torch has no fused Adadelta; axle.optim.Adadelta runs it once per parameter
group and device) against torch 1.13's Adadelta, whose per-tensor algorithm is
the spec: float32 and float64, weight decay and maximize, parameters without a
gradient in some steps, and the op's errors (test_fused_sgd.py takes the
parameters the cpu kernel declines)."""
import numpy as np
import pytest
import torch

import axle

CONFIGS = [
    dict(),
    dict(lr=0.5, rho=0.8, weight_decay=0.1),
    dict(eps=1e-4, rho=0.95, maximize=True),
    dict(lr=2.0, weight_decay=1e-3, maximize=True),
]
SHAPES = [(3, 5), (37,), (4, 4, 9), (64, 3, 3, 3), (0, 2), (300, 1000)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cfg", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_adadelta_steps_match_torch(cfg, dtype):
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    ap = [axle.tensor(v, requires_grad=True) for v in values]
    tp = [torch.tensor(v, requires_grad=True) for v in values]
    aopt, topt = axle.optim.Adadelta(ap, **cfg), torch.optim.Adadelta(tp, **cfg)
    tol = 2e-6 if dtype == np.float32 else 1e-13
    for step in range(5):
        for i, (a, t) in enumerate(zip(ap, tp)):
            if step == 1 and i == 2:  # no gradient this step: parameter and state untouched
                a.grad, t.grad = None, None
                continue
            g = rng.standard_normal(a.shape).astype(dtype)
            a.grad, t.grad = axle.tensor(g), torch.tensor(g)
        with axle.trace() as tr:
            aopt.step()
        topt.step()
        # the state's zeros at the first step, then one op call for the whole group
        assert [e["op"] for e in tr.events if e["depth"] == 0 and e["op"] != "zeros_like"] == ["_fused_adadelta_"]
        for a, t in zip(ap, tp):
            np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)
            for key in ("square_avg", "acc_delta"):
                np.testing.assert_allclose(aopt.state[a][key].numpy(), topt.state[t][key].numpy(), rtol=tol,
                                           atol=tol)
            assert aopt.state[a]["step"] == topt.state[t]["step"]


def test_cpu_kernel_serves_dense_float32():
    if not any(p["name"] == "cpu" and p["status"] != "rejected" for p in axle.plugins()):
        pytest.skip("the cpu plugin is not loaded")
    p, g = [axle.ones(1000)], [axle.full((1000,), 0.5)]
    v, u = [axle.zeros(1000)], [axle.zeros(1000)]
    with axle.trace() as tr:
        axle._fused_adadelta_(p, g, v, u, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False)
    assert [e["plugin"] for e in tr.events if e["op"] == "_fused_adadelta_"] == ["cpu"]
    # v = 0.1 * 0.25; delta = sqrt(1e-6) / sqrt(v + 1e-6) * 0.5; u = 0.1 delta^2; p = 1 - delta
    v_want = np.float32(0.1) * np.float32(0.5) * np.float32(0.5)
    delta = np.sqrt(np.float32(1e-6)) / np.sqrt(v_want + np.float32(1e-6)) * np.float32(0.5)
    np.testing.assert_allclose(v[0].numpy(), v_want, rtol=1e-6)
    np.testing.assert_allclose(p[0].numpy(), 1 - delta, rtol=1e-6)
    np.testing.assert_allclose(u[0].numpy(), 0.1 * delta * delta, rtol=1e-5)


def test_the_op_errors():
    p, g = [axle.ones(3), axle.ones(2, 2)], [axle.ones(3), axle.ones(2, 2)]
    v, u = [axle.zeros(3), axle.zeros(2, 2)], [axle.zeros(3), axle.zeros(2, 2)]
    kw = dict(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False)
    with pytest.raises(axle.ShapeError, match="_fused_adadelta_: expected one gradient per parameter"):
        axle._fused_adadelta_(p, g[:1], v, u, **kw)
    with pytest.raises(axle.ShapeError, match="accumulated delta of parameter 1"):
        axle._fused_adadelta_(p, g, v, [u[0], axle.zeros(4)], **kw)
    with pytest.raises(axle.DTypeError, match="square average of parameter 0"):
        axle._fused_adadelta_(p, g, [v[0].double(), v[1]], u, **kw)
    with pytest.raises(axle.DTypeError, match="floating parameters"):
        axle._fused_adadelta_([axle.ones(3, dtype=axle.int64)], [axle.ones(3)], [axle.zeros(3)], [axle.zeros(3)], **kw)
    w = axle.ones(3, requires_grad=True)
    with pytest.raises(axle.AutogradError, match="leaf Variable that requires grad"):
        axle._fused_adadelta_([w], [axle.ones(3)], [axle.zeros(3)], [axle.zeros(3)], **kw)
    # Nothing was written by the refused calls.
    assert np.array_equal(p[0].numpy(), np.ones(3)) and np.array_equal(v[1].numpy(), np.zeros((2, 2)))
