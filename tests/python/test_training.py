"""Training with axle's autograd follows torch's: a small MLP, CNN and
transformer block (functional, written once for both libraries), plain SGD
written with tensor ops, the same initial weights and data; per-step losses
and final parameters are compared with torch 1.13's, and axle's allocated
memory returns to its baseline after every step (nothing kept across steps).
float64 on the host, so the two libraries' results agree to rounding; and in
float32 at larger sizes for more steps, where the cpu plugin's kernels (oneDNN
and its own loops, forward and backward) serve the steps: losses within float32's
rounding of torch's."""
import math

import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")

STEPS, LR = 12, 0.05


def params(rng, shapes):
    return {name: rng.standard_normal(shape) / math.sqrt(fan_in) for name, (shape, fan_in) in shapes.items()}


def mlp(F, L, p, x):
    h = F.relu(F.linear(x, p["w0"], p["b0"]))
    return F.linear(F.gelu(F.linear(h, p["w1"], p["b1"])), p["w2"], p["b2"])


MLP = {"w0": ((32, 20), 20), "b0": ((32,), 20), "w1": ((32, 32), 32), "b1": ((32,), 32),
       "w2": ((4, 32), 32), "b2": ((4,), 32)}


def cnn(F, L, p, x):
    h = F.max_pool2d(F.relu(F.conv2d(x, p["c0"], p["c0b"], padding=1)), 2)
    h = F.relu(F.conv2d(h, p["c1"], p["c1b"], stride=2))
    return F.linear(h.flatten(1), p["f"], p["fb"])


CNN = {"c0": ((6, 3, 3, 3), 27), "c0b": ((6,), 27), "c1": ((8, 6, 3, 3), 54), "c1b": ((8,), 54),
       "f": ((4, 8 * 2 * 2), 32), "fb": ((4,), 32)}

D, HEADS = 16, 2


def transformer(F, L, p, x):
    b, s, _ = x.shape
    hd = D // HEADS
    q, k, v = (t.reshape(b, s, HEADS, hd).transpose(1, 2)
               for t in F.linear(x, p["qkv"], p["qkvb"]).chunk(3, -1))
    attn = L.matmul(F.softmax(L.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(hd)), dim=-1), v)
    x = F.layer_norm(x + F.linear(attn.transpose(1, 2).reshape(b, s, D), p["o"], p["ob"]), (D,), p["ln0"], p["ln0b"])
    ff = F.linear(F.gelu(F.linear(x, p["ff0"], p["ff0b"])), p["ff1"], p["ff1b"])
    return F.layer_norm(x + ff, (D,), p["ln1"], p["ln1b"])


TRANSFORMER = {"qkv": ((3 * D, D), D), "qkvb": ((3 * D,), D), "o": ((D, D), D), "ob": ((D,), D),
               "ln0": ((D,), 1), "ln0b": ((D,), 1), "ff0": ((32, D), D), "ff0b": ((32,), D),
               "ff1": ((D, 32), 32), "ff1b": ((D,), 32), "ln1": ((D,), 1), "ln1b": ((D,), 1)}

CASES = {
    "mlp": (mlp, MLP, (8, 20), (8, 4)),
    "cnn": (cnn, CNN, (4, 3, 12, 12), (4, 4)),
    "transformer": (transformer, TRANSFORMER, (2, 5, D), (2, 5, D)),
}


def train(L, model, weights, x, y, dtype="float64", steps=STEPS):
    """Plain SGD on the mean squared error; returns the losses and final weights."""
    F = L.nn.functional
    dt = getattr(L, dtype)
    p = {k: L.tensor(v, dtype=dt, requires_grad=True) for k, v in weights.items()}
    X, Y = L.tensor(x, dtype=dt), L.tensor(y, dtype=dt)
    losses, baseline = [], None
    for step in range(steps):
        d = model(F, L, p, X) - Y
        loss = (d * d).mean()
        loss.backward()
        with L.no_grad():
            for t in p.values():
                t.sub_(t.grad * LR)
                t.grad = None
        losses.append(loss.item())
        del d, loss
        if L is axle:
            used = axle.memory_allocated("cpu")
            baseline = used if baseline is None else baseline
            assert used == baseline, f"step {step}: {used} bytes allocated, {baseline} after the first step"
    return losses, {k: np.asarray(v.detach().numpy() if L is torch else v.detach()) for k, v in p.items()}


def draw(name, cases, d, seed=7):
    model, shapes, x_shape, y_shape = cases[name]
    rng = np.random.default_rng(seed)
    weights = params(rng, shapes)
    if name == "transformer":  # layer norms start near 1 and 0
        for k in ("ln0", "ln1"):
            weights[k] = 1 + 0.1 * rng.standard_normal(d)
        for k in ("ln0b", "ln1b"):
            weights[k] = 0.1 * rng.standard_normal(d)
    return model, weights, rng.standard_normal(x_shape), rng.standard_normal(y_shape)


@pytest.mark.parametrize("name", sorted(CASES))
def test_training_follows_torch(name):
    model, weights, x, y = draw(name, CASES, D)
    got_losses, got = train(axle, model, weights, x, y)
    want_losses, want = train(torch, model, weights, x, y)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-9)
    assert got_losses[-1] < got_losses[0]  # it learns
    for k in weights:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-8, atol=1e-10, err_msg=k)


# float32 at sizes where the cpu plugin serves the ops (its element thresholds):
# an MLP on 64 x 256 inputs, a CNN on 8 x 3 x 16 x 16, a transformer block of
# width 64 (4 heads, 32 tokens, batch 4).
D32 = 64


def transformer32(F, L, p, x):
    b, s, _ = x.shape
    hd = D32 // 4
    q, k, v = (t.reshape(b, s, 4, hd).transpose(1, 2) for t in F.linear(x, p["qkv"], p["qkvb"]).chunk(3, -1))
    attn = L.matmul(F.softmax(L.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(hd)), dim=-1), v)
    x = F.layer_norm(x + F.linear(attn.transpose(1, 2).reshape(b, s, D32), p["o"], p["ob"]), (D32,), p["ln0"],
                     p["ln0b"])
    ff = F.linear(F.gelu(F.linear(x, p["ff0"], p["ff0b"])), p["ff1"], p["ff1b"])
    return F.layer_norm(x + ff, (D32,), p["ln1"], p["ln1b"])


CASES32 = {
    "mlp": (mlp, {"w0": ((256, 256), 256), "b0": ((256,), 256), "w1": ((256, 256), 256), "b1": ((256,), 256),
                  "w2": ((16, 256), 256), "b2": ((16,), 256)}, (64, 256), (64, 16)),
    "cnn": (cnn, {"c0": ((16, 3, 3, 3), 27), "c0b": ((16,), 27), "c1": ((32, 16, 3, 3), 144), "c1b": ((32,), 144),
                  "f": ((10, 32 * 3 * 3), 288), "fb": ((10,), 288)}, (8, 3, 16, 16), (8, 10)),
    "transformer": (transformer32, {"qkv": ((3 * D32, D32), D32), "qkvb": ((3 * D32,), D32), "o": ((D32, D32), D32),
                                    "ob": ((D32,), D32), "ln0": ((D32,), 1), "ln0b": ((D32,), 1),
                                    "ff0": ((128, D32), D32), "ff0b": ((128,), D32), "ff1": ((D32, 128), 128),
                                    "ff1b": ((D32,), 128), "ln1": ((D32,), 1), "ln1b": ((D32,), 1)},
                    (4, 32, D32), (4, 32, D32)),
}
# Backward ops the cpu plugin serves in each float32 step (when it is built).
PLUGIN_BACKWARD = {"mlp": {"threshold_backward", "gelu_backward"},
                   "cnn": {"convolution_backward", "max_pool2d_with_indices_backward"},
                   "transformer": {"native_layer_norm_backward", "_softmax_backward_data", "gelu_backward"}}


@pytest.mark.parametrize("name", sorted(CASES32))
def test_float32_training_follows_torch(name):
    model, weights, x, y = draw(name, CASES32, D32, seed=11)
    steps = 40
    got_losses, got = train(axle, model, weights, x, y, "float32", steps)
    want_losses, want = train(torch, model, weights, x, y, "float32", steps)
    np.testing.assert_allclose(got_losses, want_losses, rtol=2e-4)
    assert got_losses[-1] < 0.9 * got_losses[0]  # it learns
    for k in weights:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-3, atol=1e-4, err_msg=k)
    if any(p["name"] == "cpu" and p["status"] != "rejected" for p in axle.plugins()):
        p = {k: axle.tensor(v, dtype=axle.float32, requires_grad=True) for k, v in weights.items()}
        with axle.trace() as t:
            model(axle.nn.functional, axle, p, axle.tensor(x, dtype=axle.float32)).sum().backward()
        served = {e["op"] for e in t.events if e["plugin"] == "cpu"}
        assert PLUGIN_BACKWARD[name] <= served, PLUGIN_BACKWARD[name] - served
