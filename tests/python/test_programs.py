"""torch-style training programs on each device (the host, and cuda:0 where
the CUDA plugin finds a GPU): a convnet with batch norm (SGD with momentum,
nll_loss over log_softmax), a two-layer LSTM language model (gradient
clipping, torch's word-LM update by hand) and a Transformer-encoder language
model (causal mask, Adam), each written once against the torch / axle API and
run from the same initial weights on the same data: axle gives torch's (CPU)
per-step losses to float32 tolerance, and no op of them leaves a device
through the host fallback. Dropout is off in the compared runs (its draws are
each library's own); one dropout step runs on each device. A device without
hardware is skipped with the plugin's reason. AXLE_TEST_DEVICE=<type> runs
the programs on that plugin's device only."""
import math
import os

import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")


DEVICES = [os.environ["AXLE_TEST_DEVICE"]] if os.environ.get("AXLE_TEST_DEVICE") else ["cpu", "cuda"]


def device_reason(device):
    info = next((d for d in axle.devices() if d["type"] == device), None)
    if info is None:
        return "no plugin for device type %r in this build" % device
    return None if info["count"] > 0 else "no %s device: %s" % (device, info["note"])


ON_DEVICES = pytest.mark.parametrize("device", [
    pytest.param(d, marks=pytest.mark.skipif(device_reason(d) is not None, reason=str(device_reason(d))))
    for d in DEVICES])

STEPS = 5


def convnet(L):
    nn = L.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 8, 3, 1)
            self.bn1 = nn.BatchNorm2d(8)
            self.conv2 = nn.Conv2d(8, 16, 3, 1)
            self.fc1 = nn.Linear(16 * 5 * 5, 32)
            self.fc2 = nn.Linear(32, 10)
            self.dropout = nn.Dropout(0.0)

        def forward(self, x):
            x = L.relu(self.bn1(self.conv1(x)))
            x = nn.functional.max_pool2d(nn.functional.relu(self.conv2(x)), 2)
            x = self.dropout(L.flatten(x, 1))
            return nn.functional.log_softmax(self.fc2(nn.functional.relu(self.fc1(x))), dim=1)

    return Net()


def lstm_lm(L, ntoken=50, ninp=16, nhid=24):
    nn = L.nn

    class RNNModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(ntoken, ninp)
            self.rnn = nn.LSTM(ninp, nhid, 2, dropout=0.0)
            self.decoder = nn.Linear(nhid, ntoken)

        def forward(self, x, hidden):
            output, hidden = self.rnn(self.encoder(x), hidden)
            return nn.functional.log_softmax(self.decoder(output), dim=-1), hidden

    return RNNModel()


def transformer_lm(L, ntoken=50, d=16):
    nn = L.nn

    class TransformerModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(ntoken, d)
            layer = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0)
            self.transformer_encoder = nn.TransformerEncoder(layer, 2)
            self.decoder = nn.Linear(d, ntoken)

        def forward(self, src, mask):
            x = self.encoder(src) * math.sqrt(d)
            return nn.functional.log_softmax(self.decoder(self.transformer_encoder(x, mask)), dim=-1)

    return TransformerModel()


def same_weights(t_model, a_model):
    state = {k: axle.tensor(v.detach().numpy()) for k, v in t_model.state_dict().items()}
    a_model.load_state_dict(state)


def train_convnet(L, model, device, x, y):
    model.to(device).train()
    opt = L.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = L.tensor(x).to(device), L.tensor(y).to(device)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = L.nn.functional.nll_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, model.bn1.running_var.cpu().numpy()


def train_lstm(L, model, device, data, targets):
    model.to(device).train()
    data, targets = L.tensor(data).to(device), L.tensor(targets).to(device)
    hidden = tuple(L.zeros(2, data.shape[1], 24, device=device) for _ in range(2))
    losses = []
    for _ in range(STEPS):
        hidden = tuple(h.detach() for h in hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = L.nn.functional.nll_loss(output.view(-1, 50), targets.reshape(-1))
        loss.backward()
        L.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-2.0)
        losses.append(loss.item())
    return losses, None


def train_transformer(L, model, device, data, targets):
    model.to(device).train()
    data, targets = L.tensor(data).to(device), L.tensor(targets).to(device)
    n = data.shape[0]
    mask = L.triu(L.full((n, n), float("-inf")), diagonal=1).to(device)
    opt = L.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = L.nn.functional.nll_loss(model(data, mask).view(-1, 50), targets.reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, None


def inputs(name, rng):
    if name == "convnet":
        return rng.standard_normal((16, 1, 14, 14)).astype(np.float32), rng.integers(0, 10, 16)
    tokens = rng.integers(0, 50, (13, 4))
    return tokens[:-1], tokens[1:]


PROGRAMS = {"convnet": (convnet, train_convnet), "lstm_lm": (lstm_lm, train_lstm),
            "transformer_lm": (transformer_lm, train_transformer)}


@ON_DEVICES
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_follows_torch(name, device):
    build, train = PROGRAMS[name]
    torch.manual_seed(0)
    t_model = build(torch)
    a_model = build(axle)
    same_weights(t_model, a_model)
    args = inputs(name, np.random.default_rng(1))
    t_losses, t_extra = train(torch, t_model, "cpu", *args)
    before = axle.fallback_stats()
    a_losses, a_extra = train(axle, a_model, device, *args)
    after = axle.fallback_stats()
    np.testing.assert_allclose(a_losses, t_losses, rtol=2e-4, atol=1e-5)
    if t_extra is not None:  # batch norm's running statistics follow torch's
        np.testing.assert_allclose(a_extra, t_extra, rtol=1e-4, atol=1e-6)
    hosted = {key: n - before.get(key, 0) for key, n in after.items() if n > before.get(key, 0)}
    assert not {k: n for k, n in hosted.items() if device in str(k)}, hosted
    assert all(p.device.type == device for p in a_model.parameters())


@ON_DEVICES
def test_dropout_trains_on_device(device):
    axle.manual_seed(0)
    layer = axle.nn.Dropout(0.5).to(device)
    x = axle.ones(4096, device=device, requires_grad=True)
    y = layer(x)
    kept = (y != 0).sum().item()
    assert 1800 < kept < 2300 and set(np.unique(y.detach().cpu().numpy())) <= {0.0, 2.0}
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), y.detach().cpu().numpy())
