"""The fused GRU cell (_thnn_fused_gru_cell and its backward op) against torch
1.13: its CPU build has the ops' schemas but no CPU kernel, so the reference is
torch's own composition of the cell (aten's GRUCell: n = tanh(i_n + r * h_n),
hy = n + z (hx - n)) in float64, with torch's autograd for the gradients.
float32 calls run the cpu plugin's kernel where it is loaded (its polynomial
exp and tanh within float32 tolerance), float64 ones the composite. The
modules (nn.GRU, nn.GRUCell) run the cell per step and train like torch's."""
import math

import numpy as np
import pytest
import torch

import axle

HAS_CPU = any(p["name"] == "cpu" and p["status"] != "rejected" for p in axle.plugins())


def torch_cell(ig, hg, hx, bi=None, bh=None):
    if bi is not None:
        ig = ig + bi
    if bh is not None:
        hg = hg + bh
    i_r, i_z, i_n = ig.chunk(3, 1)
    h_r, h_z, h_n = hg.chunk(3, 1)
    r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return n + z * (hx - n), torch.cat([r, z, n, h_n, hx], 1)


def draw(batch, hidden, biases, scale, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((batch, 3 * hidden)) * scale, rng.standard_normal((batch, 3 * hidden)) * scale,
              rng.standard_normal((batch, hidden))]
    arrays += [rng.standard_normal(3 * hidden) if b else None for b in biases]
    return arrays


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch,hidden,biases,scale", [
    (3, 2, (True, True), 1.0), (4, 17, (False, False), 2.0), (2, 64, (True, False), 1.0),
    (1, 33, (False, True), 8.0), (5, 40, (True, True), 40.0), (0, 5, (True, True), 1.0),
    (3, 300, (True, True), 1.0), (2, 129, (False, True), 3.0),  # the cpu kernel's 128-column chunks and a tail
])
def test_forward_and_gradients_match_torch(dtype, batch, hidden, biases, scale):
    arrays = draw(batch, hidden, biases, scale, seed=batch * 100 + hidden)
    adt = getattr(axle, dtype)
    t_in = [None if a is None else torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    a_in = [None if a is None else axle.tensor(a, dtype=adt, requires_grad=True) for a in arrays]
    t_out = torch_cell(*t_in)
    a_out = axle._thnn_fused_gru_cell(*a_in)
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    for a, t in zip(a_out, t_out):
        assert a.dtype == adt and tuple(a.shape) == tuple(t.shape)
        np.testing.assert_allclose(np.asarray(a.detach()), t.detach().numpy(), **tol)
    # Gradients through hy and (as axle's gradient checks do) the workspace too.
    rng = np.random.default_rng(7)
    w_h, w_ws = rng.standard_normal(tuple(t_out[0].shape)), rng.standard_normal(tuple(t_out[1].shape))
    ((t_out[0] * torch.tensor(w_h)).sum() + (t_out[1] * torch.tensor(w_ws)).sum()).backward()
    ((a_out[0] * axle.tensor(w_h, dtype=adt)).sum() + (a_out[1] * axle.tensor(w_ws, dtype=adt)).sum()).backward()
    for a, t in zip(a_in, t_in):
        if a is None:
            continue
        assert a.grad is not None and a.grad.dtype == adt
        np.testing.assert_allclose(np.asarray(a.grad), t.grad.numpy(), **tol)


def test_only_hy_needs_grad():
    arrays = draw(3, 5, (True, True), 1.0, seed=11)
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    a_in = [axle.tensor(a, requires_grad=True) for a in arrays]
    torch_cell(*t_in)[0].sum().backward()
    axle._thnn_fused_gru_cell(*a_in)[0].sum().backward()
    for a, t in zip(a_in, t_in):
        np.testing.assert_allclose(np.asarray(a.grad), t.grad.numpy(), rtol=1e-12, atol=1e-13)


def test_cpu_plugin_serves_float32_and_saturates():
    if not HAS_CPU:
        pytest.skip("the cpu plugin is not loaded")
    ig, hg, hx = (axle.tensor(a, dtype=axle.float32, requires_grad=True)
                  for a in (np.full((2, 6), 100.0), np.full((2, 6), -100.0), np.ones((2, 2))))
    with axle.trace() as tr:
        hy, ws = axle._thnn_fused_gru_cell(ig, hg, hx)
        hy.sum().backward()
    served = {e["op"] for e in tr.events if e["plugin"] == "cpu"}
    assert {"_thnn_fused_gru_cell", "_thnn_fused_gru_cell_backward"} <= served, served
    # r = z = sigmoid(0) = 0.5, n = tanh(100 - 50) = 1: hy = 1 + 0.5 (1 - 1) = 1.
    np.testing.assert_allclose(np.asarray(hy.detach()), 1.0, rtol=1e-6)
    far = [np.array([[88.5, -95.0, 30.0, -30.0, 9.0, -9.0]]), np.zeros((1, 6)), np.ones((1, 2))]
    got = axle._thnn_fused_gru_cell(*(axle.tensor(a, dtype=axle.float32) for a in far))
    want = torch_cell(*(torch.tensor(a) for a in far))
    for a, t in zip(got, want):
        assert np.isfinite(np.asarray(a)).all()
        np.testing.assert_allclose(np.asarray(a), t.numpy(), rtol=2e-6, atol=1e-30)


def test_nan_propagates():
    ig = np.zeros((1, 3))
    ig[0, 2] = math.nan  # the n gate
    for dt in (axle.float32, axle.float64):
        hy, ws = axle._thnn_fused_gru_cell(axle.tensor(ig, dtype=dt), axle.zeros(1, 3, dtype=dt),
                                           axle.ones(1, 1, dtype=dt))
        assert math.isnan(hy.item()) and math.isnan(ws[0, 2].item())


@pytest.mark.parametrize("call,kind,words", [
    (lambda: axle._thnn_fused_gru_cell(axle.zeros(3, 6), axle.zeros(3, 3), axle.zeros(3, 2)), axle.ShapeError,
     ["_thnn_fused_gru_cell", "hidden_gates", "[3, 6]", "[3, 3]"]),
    (lambda: axle._thnn_fused_gru_cell(axle.zeros(3, 6), axle.zeros(3, 6), axle.zeros(3, 3)), axle.ShapeError,
     ["hx", "[3, 2]", "[3, 3]"]),
    (lambda: axle._thnn_fused_gru_cell(axle.zeros(3, 8), axle.zeros(3, 8), axle.zeros(3, 2)), axle.ShapeError,
     ["3 * hidden", "[3, 8]"]),
    (lambda: axle._thnn_fused_gru_cell(axle.zeros(3, 6, dtype=axle.int64), axle.zeros(3, 6, dtype=axle.int64),
                                       axle.zeros(3, 2, dtype=axle.int64)), axle.DTypeError, ["floating", "int64"]),
    (lambda: axle._thnn_fused_gru_cell(axle.zeros(3, 6), axle.zeros(3, 6), axle.zeros(3, 2), None, axle.zeros(5)),
     axle.ShapeError, ["hidden_bias", "[6]", "[5]"]),
    (lambda: axle._thnn_fused_gru_cell_backward(axle.zeros(2, 3), axle.zeros(2, 14), True), axle.ShapeError,
     ["_thnn_fused_gru_cell_backward", "workspace", "[2, 14]"]),
    (lambda: axle._thnn_fused_gru_cell_backward(axle.zeros(2, 2), axle.zeros(2, 15), True), axle.ShapeError,
     ["grad_hy", "[2, 3]", "[2, 2]"]),
])
def test_errors_name_the_op_and_values(call, kind, words):
    with pytest.raises(kind) as e:
        call()
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_backward_op_without_bias_leaves_them_undefined():
    rng = np.random.default_rng(3)
    g, ws = (axle.tensor(rng.standard_normal(s), dtype=axle.float32) for s in ((2, 3), (2, 15)))
    gi, gh, ghx, bi, bh = axle._thnn_fused_gru_cell_backward(g, ws, False)
    assert bi is None and bh is None
    assert tuple(gi.shape) == tuple(gh.shape) == (2, 9) and tuple(ghx.shape) == (2, 3)
    _, _, _, bi, bh = axle._thnn_fused_gru_cell_backward(g, ws, True)
    np.testing.assert_allclose(np.asarray(bi), np.asarray(gi).sum(0), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(bh), np.asarray(gh).sum(0), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True}, {"bias": False},
                                    {"batch_first": True}])
def test_gru_trains_like_torch(dtype, kwargs):
    # The module (the cpu plugin's cell in float32 where loaded) against torch's GRU.
    torch.manual_seed(4)
    tdt = getattr(torch, dtype)
    tm = torch.nn.GRU(6, 20, **kwargs).to(tdt)
    am = axle.nn.GRU(6, 20, **kwargs).to(getattr(axle, dtype))
    am.load_state_dict({k: axle.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(5)
    x = rng.standard_normal((9, 4, 6)).astype(dtype)
    tx, ax = torch.tensor(x, requires_grad=True), axle.tensor(x, requires_grad=True)
    with axle.trace() as tr:
        aout, ah = am(ax)
        (aout.sum() + (ah * ah).sum()).backward()
    tout, th = tm(tx)
    (tout.sum() + (th * th).sum()).backward()
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    for a, t in ((aout, tout), (ah, th), (ax.grad, tx.grad)):
        np.testing.assert_allclose(np.asarray(a.detach()), t.detach().numpy(), **tol)
    for (name, ap), (_, tp) in zip(am.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(np.asarray(ap.grad), tp.grad.numpy(), err_msg=name, **tol)
    if HAS_CPU and dtype == "float32":
        served = {e["op"] for e in tr.events if e["plugin"] == "cpu"}
        assert {"_thnn_fused_gru_cell", "_thnn_fused_gru_cell_backward"} <= served, served


def test_gru_cell_module_follows_torch():
    torch.manual_seed(9)
    tm = torch.nn.GRUCell(5, 7).double()
    am = axle.nn.GRUCell(5, 7).double()
    am.load_state_dict({k: axle.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(2)
    x, h = rng.standard_normal((3, 5)), rng.standard_normal((3, 7))
    th = tm(torch.tensor(x), torch.tensor(h, requires_grad=True))
    ah = am(axle.tensor(x), axle.tensor(h, requires_grad=True))
    np.testing.assert_allclose(np.asarray(ah.detach()), th.detach().numpy(), rtol=1e-12, atol=1e-13)
    th.sum().backward()
    ah.sum().backward()
    for (name, ap), (_, tp) in zip(am.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(np.asarray(ap.grad), tp.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
    # Unbatched input and no initial state, as torch.
    np.testing.assert_allclose(np.asarray(am(axle.tensor(x[0])).detach()), tm(torch.tensor(x[0])).detach().numpy(),
                               rtol=1e-12, atol=1e-13)
