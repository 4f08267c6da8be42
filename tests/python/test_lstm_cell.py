"""The fused LSTM cell (_thnn_fused_lstm_cell and its backward op) against torch
1.13: its CPU build has the ops' schemas but no CPU kernel, so the reference is
torch's own composition of the cell in float64, with torch's autograd for the
gradients. float32 calls run the cpu plugin's kernel where it is loaded (its
polynomial exp and tanh within float32 tolerance), float64 ones the composite."""
import math

import numpy as np
import pytest
import torch

import axle

HAS_CPU = any(p["name"] == "cpu" and p["status"] != "rejected" for p in axle.plugins())


def torch_cell(ig, hg, cx, bi=None, bh=None):
    gates = ig + hg
    if bi is not None:
        gates = gates + bi
    if bh is not None:
        gates = gates + bh
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    cy = f * cx + i * g
    return o * torch.tanh(cy), cy, torch.cat([i, f, g, o], 1)


def draw(batch, hidden, biases, scale, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((batch, 4 * hidden)) * scale, rng.standard_normal((batch, 4 * hidden)) * scale,
              rng.standard_normal((batch, hidden))]
    arrays += [rng.standard_normal(4 * hidden) if b else None for b in biases]
    return arrays


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch,hidden,biases,scale", [
    (3, 2, (True, True), 1.0), (4, 17, (False, False), 2.0), (2, 64, (True, False), 1.0),
    (1, 33, (False, True), 8.0), (5, 40, (True, True), 40.0), (0, 5, (True, True), 1.0),
    (3, 300, (True, True), 1.0), (2, 129, (False, True), 3.0),  # the cpu kernel's 128-column chunks and a tail
])
def test_forward_and_gradients_match_torch(dtype, batch, hidden, biases, scale):
    arrays = draw(batch, hidden, biases, scale, seed=batch * 100 + hidden)
    tdt, adt = getattr(torch, dtype), getattr(axle, dtype)
    t_in = [None if a is None else torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    a_in = [None if a is None else axle.tensor(a, dtype=adt, requires_grad=True) for a in arrays]
    t_out = torch_cell(*t_in)
    a_out = axle._thnn_fused_lstm_cell(*a_in)
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    for a, t in zip(a_out, t_out):
        assert a.dtype == adt and tuple(a.shape) == tuple(t.shape)
        np.testing.assert_allclose(np.asarray(a.detach()), t.detach().numpy(), **tol)
    rng = np.random.default_rng(7)
    w_h, w_c = rng.standard_normal(tuple(t_out[0].shape)), rng.standard_normal(tuple(t_out[1].shape))
    (t_out[0] * torch.tensor(w_h) + t_out[1] * torch.tensor(w_c)).sum().backward()
    (a_out[0] * axle.tensor(w_h, dtype=adt) + a_out[1] * axle.tensor(w_c, dtype=adt)).sum().backward()
    for a, t in zip(a_in, t_in):
        if a is None:
            continue
        assert a.grad is not None and a.grad.dtype == adt
        np.testing.assert_allclose(np.asarray(a.grad), t.grad.numpy(), **tol)
    del tdt


def test_cpu_plugin_serves_float32_and_saturates():
    if not HAS_CPU:
        pytest.skip("the cpu plugin is not loaded")
    big = [np.full((2, 8), v) for v in (100.0, -100.0)] + [np.ones((2, 2))]
    ig, hg, cx = (axle.tensor(a, dtype=axle.float32, requires_grad=True) for a in big)
    with axle.trace() as tr:
        hy, cy, ws = axle._thnn_fused_lstm_cell(ig, hg, cx)
        (hy.sum() + cy.sum()).backward()
    served = {e["op"] for e in tr.events if e["plugin"] == "cpu"}
    assert {"_thnn_fused_lstm_cell", "_thnn_fused_lstm_cell_backward_impl"} <= served, served
    # Gates of 100 - 100 = 0: sigmoid 0.5, tanh 0; cy = 0.5 * cx.
    np.testing.assert_allclose(np.asarray(cy.detach()), 0.5, rtol=1e-6)
    far = [np.array([[88.5, -95.0, 30.0, -30.0] * 2]), np.zeros((1, 8)), np.ones((1, 2))]
    hy, cy, ws = axle._thnn_fused_lstm_cell(*(axle.tensor(a, dtype=axle.float32) for a in far))
    want = torch_cell(*(torch.tensor(a) for a in far))
    for a, t in zip((hy, cy, ws), want):
        assert np.isfinite(np.asarray(a)).all()
        np.testing.assert_allclose(np.asarray(a), t.numpy(), rtol=2e-6, atol=1e-30)


def test_nan_propagates():
    ig = np.zeros((1, 4))
    ig[0, 2] = math.nan  # the g gate
    for dt in (axle.float32, axle.float64):
        hy, cy, ws = axle._thnn_fused_lstm_cell(axle.tensor(ig, dtype=dt), axle.zeros(1, 4, dtype=dt),
                                                axle.ones(1, 1, dtype=dt))
        assert math.isnan(cy.item()) and math.isnan(hy.item()) and math.isnan(ws[0, 2].item())


@pytest.mark.parametrize("call,kind,words", [
    (lambda: axle._thnn_fused_lstm_cell(axle.zeros(3, 8), axle.zeros(3, 4), axle.zeros(3, 2)), axle.ShapeError,
     ["_thnn_fused_lstm_cell", "hidden_gates", "[3, 8]", "[3, 4]"]),
    (lambda: axle._thnn_fused_lstm_cell(axle.zeros(3, 8), axle.zeros(3, 8), axle.zeros(3, 3)), axle.ShapeError,
     ["cx", "[3, 2]", "[3, 3]"]),
    (lambda: axle._thnn_fused_lstm_cell(axle.zeros(3, 8, dtype=axle.int64), axle.zeros(3, 8, dtype=axle.int64),
                                        axle.zeros(3, 2, dtype=axle.int64)), axle.DTypeError, ["floating", "int64"]),
    (lambda: axle._thnn_fused_lstm_cell(axle.zeros(3, 8), axle.zeros(3, 8), axle.zeros(3, 2), axle.zeros(5)),
     axle.ShapeError, ["input_bias", "[8]", "[5]"]),
    (lambda: axle._thnn_fused_lstm_cell_backward_impl(None, None, axle.zeros(2, 3), axle.zeros(2, 3),
                                                      axle.zeros(2, 10), True), axle.ShapeError, ["workspace"]),
])
def test_errors_name_the_op_and_values(call, kind, words):
    with pytest.raises(kind) as e:
        call()
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_backward_op_without_bias_leaves_it_undefined():
    rng = np.random.default_rng(3)
    args = [axle.tensor(rng.standard_normal(s), dtype=axle.float32) for s in ((2, 3), (2, 3), (2, 3), (2, 3), (2, 12))]
    gates, gcx, gb = axle._thnn_fused_lstm_cell_backward_impl(*args, False)
    assert gb is None and tuple(gates.shape) == (2, 12) and tuple(gcx.shape) == (2, 3)
    _, _, gb = axle._thnn_fused_lstm_cell_backward_impl(*args, True)
    np.testing.assert_allclose(np.asarray(gb), np.asarray(gates).sum(0), rtol=1e-6)


@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True}, {"proj_size": 4}])
def test_float32_lstm_trains_like_torch(kwargs):
    # The module in float32 (the cpu plugin's cell where loaded) against torch's LSTM.
    torch.manual_seed(4)
    tm = torch.nn.LSTM(6, 20, **kwargs)
    am = axle.nn.LSTM(6, 20, **kwargs)
    am.load_state_dict({k: axle.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(5)
    x = rng.standard_normal((9, 4, 6)).astype(np.float32)
    tx, ax = torch.tensor(x, requires_grad=True), axle.tensor(x, requires_grad=True)
    with axle.trace() as tr:
        aout, (ah, ac) = am(ax)
        (aout.sum() + ac.sum()).backward()
    tout, (th, tc) = tm(tx)
    (tout.sum() + tc.sum()).backward()
    for a, t in ((aout, tout), (ah, th), (ac, tc), (ax.grad, tx.grad)):
        np.testing.assert_allclose(np.asarray(a.detach()), t.detach().numpy(), rtol=1e-4, atol=1e-5)
    for (name, ap), (_, tp) in zip(am.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(np.asarray(ap.grad), tp.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)
    if HAS_CPU:
        served = {e["op"] for e in tr.events if e["plugin"] == "cpu"}
        assert {"_thnn_fused_lstm_cell", "_thnn_fused_lstm_cell_backward_impl"} <= served, served
