"""axle.nn's Module, Parameter, containers and layers against torch 1.13: the same
architecture built in both, torch's weights loaded into axle's through
load_state_dict, then outputs, gradients, state_dict keys, reprs, running
statistics, hooks and torch's error messages compared."""
import copy
import pickle

import numpy as np
import pytest

import axle
import axle.nn as nn

torch = pytest.importorskip("torch")
tnn = torch.nn


def to_axle(t):
    return axle.tensor(t.detach().numpy())


def load_from_torch(am, tm):
    result = am.load_state_dict({k: to_axle(v) for k, v in tm.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys
    return am


def close(a, t, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a.detach()), t.detach().numpy(), rtol=tol, atol=tol)


def build(lib, kind):
    n = lib.nn
    if kind == "mlp":
        return n.Sequential(n.Linear(12, 16), n.ReLU(), n.Dropout(0.0), n.Linear(16, 16, bias=False), n.GELU(),
                            n.LayerNorm(16), n.Linear(16, 4), n.LogSoftmax(dim=1))
    if kind == "cnn":
        return n.Sequential(n.Conv2d(3, 6, 3, padding=1), n.BatchNorm2d(6), n.ReLU(inplace=True), n.MaxPool2d(2),
                            n.Conv2d(6, 8, 3, stride=2, padding="valid", bias=False), n.GroupNorm(2, 8), n.SiLU(),
                            n.AdaptiveAvgPool2d((1, 1)), n.Flatten(), n.Linear(8, 5))
    if kind == "conv1d":
        return n.Sequential(n.Conv1d(4, 6, 5, padding="same", padding_mode="reflect"), n.Tanh(), n.AvgPool1d(2),
                            n.Conv1d(6, 6, 3, dilation=2, groups=2), n.ELU(), n.MaxPool1d(2, ceil_mode=True),
                            n.AdaptiveAvgPool1d(3), n.Flatten(), n.Linear(18, 2))
    if kind == "embed":
        return n.Sequential(n.Embedding(20, 8, padding_idx=0), n.Linear(8, 8), n.Hardswish(), n.Flatten(0, 1))
    if kind == "transpose":
        return n.Sequential(n.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1), n.LeakyReLU(0.2),
                            n.Conv2d(3, 2, 1), n.Sigmoid())
    raise KeyError(kind)


INPUTS = {"mlp": (5, 12), "cnn": (4, 3, 10, 10), "conv1d": (3, 4, 28), "embed": None, "transpose": (2, 4, 5, 5)}


@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_layers_match_torch_forward_and_backward(kind):
    torch.manual_seed(0)
    tm = build(torch, kind).double()
    am = load_from_torch(build(axle, kind).double(), tm)
    assert [n for n, _ in am.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert list(am.state_dict().keys()) == list(tm.state_dict().keys())
    assert repr(am) == repr(tm)
    rng = np.random.default_rng(1)
    if INPUTS[kind] is None:
        x = rng.integers(0, 20, (3, 4))
        tx, ax = torch.from_numpy(x), axle.tensor(x)
    else:
        x = rng.standard_normal(INPUTS[kind])
        tx, ax = torch.from_numpy(x).requires_grad_(), axle.tensor(x, requires_grad=True)
    for mode in ("train", "eval"):
        getattr(tm, mode)(), getattr(am, mode)()
        ty, ay = tm(tx), am(ax)
        close(ay, ty, 1e-9)
        w = rng.standard_normal(tuple(ty.shape))
        (ty * torch.from_numpy(w)).sum().backward()
        (ay * axle.tensor(w)).sum().backward()
        for (name, ap), (_, tp) in zip(am.named_parameters(), tm.named_parameters()):
            close(ap.grad, tp.grad, 1e-8)
        if INPUTS[kind] is not None:
            close(ax.grad, tx.grad, 1e-8)
            ax.grad, tx.grad = None, None
        am.zero_grad(), tm.zero_grad()
    for (name, ab), (_, tb) in zip(am.named_buffers(), tm.named_buffers()):  # running statistics
        close(ab.double(), tb.double(), 1e-12)


def test_parameter_is_a_tensor_subclass_as_torch():
    p = nn.Parameter(axle.ones(2, 3))
    assert isinstance(p, axle.Tensor) and isinstance(p, nn.Parameter) and p.requires_grad and p.is_leaf
    assert not isinstance(p * 2, nn.Parameter)
    assert repr(p).startswith("Parameter containing:\ntensor(")
    q = nn.Parameter(axle.ones(2), requires_grad=False)
    assert not q.requires_grad
    d = copy.deepcopy(p)
    assert isinstance(d, nn.Parameter) and d is not p and axle.equal(d, p)
    r = pickle.loads(pickle.dumps(p))
    assert isinstance(r, nn.Parameter) and axle.equal(r, p)
    with axle.no_grad():
        assert p.add_(1) is p  # in-place ops keep the object


def test_module_registration_and_iteration_as_torch():
    for lib in (axle, torch):
        n = lib.nn

        class Net(n.Module):
            def __init__(self):
                super().__init__()
                self.a = n.Linear(2, 3)
                self.shared = self.a
                self.blocks = n.ModuleList([n.Linear(3, 3), n.ReLU()])
                self.heads = n.ModuleDict({"x": n.Linear(3, 1), "y": n.Identity()})
                self.scale = n.Parameter(lib.ones(1))
                self.register_buffer("steps", lib.zeros(1))
                self.register_buffer("cache", lib.zeros(2), persistent=False)
                self.plist = n.ParameterList([n.Parameter(lib.ones(2)), n.Parameter(lib.zeros(3))])
                self.pdict = n.ParameterDict({"u": n.Parameter(lib.ones(4))})

        net = Net()
        if lib is axle:
            got = net
        else:
            want = net
    assert [k for k, _ in got.named_parameters()] == [k for k, _ in want.named_parameters()]
    assert [k for k, _ in got.named_buffers()] == [k for k, _ in want.named_buffers()]
    assert list(got.state_dict()) == list(want.state_dict())
    assert [k for k, _ in got.named_modules()] == [k for k, _ in want.named_modules()]
    assert [k for k, _ in got.named_children()] == [k for k, _ in want.named_children()]
    assert len(list(got.parameters())) == len(list(want.parameters()))
    assert got.get_submodule("blocks.0") is got.blocks[0]
    assert got.get_parameter("heads.x.weight") is got.heads["x"].weight
    assert repr(got).replace("axle", "torch") == repr(want)
    got.eval()
    assert not any(m.training for m in got.modules())
    got.train()
    assert all(m.training for m in got.modules())
    # Reassigning and deleting attributes moves them between the dicts as torch.
    got.scale = None
    assert "scale" in got._parameters and got.scale is None
    del got.heads
    assert "heads" not in dict(got.named_children())


@pytest.mark.parametrize("stmt", [
    "m.weight = lib.ones(2, 2)",
    "m.register_buffer('w.x', lib.ones(1))",
    "m.register_buffer('weight', lib.ones(1))",
    "m.register_parameter('p', lib.ones(1))",
    "m.add_module('', lib.nn.ReLU())",
    "m.train('yes')",
    "m.undefined_attribute",
    "lib.nn.Conv2d(3, 4, 3, groups=2)",
    "lib.nn.Conv2d(4, 4, 3, padding='full')",
    "lib.nn.Conv2d(4, 4, 3, stride=2, padding='same')",
    "lib.nn.Embedding(5, 2, padding_idx=7)",
    "lib.nn.Dropout(1.5)",
    "lib.nn.GroupNorm(3, 8)",
])
def test_module_errors_as_torch(stmt):
    errors = []
    for lib in (axle, torch):
        m = lib.nn.Linear(2, 2)
        with pytest.raises(Exception) as info:
            exec(stmt, {"lib": lib, "m": m})
        errors.append(info.value)
    got, want = errors
    assert isinstance(got, type(want)) or type(want).__name__ in [c.__name__ for c in type(got).__mro__], (got, want)
    assert str(got).replace("axle", "torch") == str(want), (str(got), str(want))


def test_load_state_dict_strict_messages_as_torch():
    msgs = []
    for lib in (axle, torch):
        m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        sd = {k: v for k, v in m.state_dict().items() if k != "1.bias"}
        sd["extra.weight"] = lib.ones(1)
        sd["0.weight"] = lib.ones(4, 2)
        with pytest.raises(RuntimeError) as info:
            m.load_state_dict(sd)
        msgs.append(str(info.value))
        result = m.load_state_dict({k: v for k, v in m.state_dict().items() if k != "1.bias"}, strict=False)
        msgs.append((result.missing_keys, result.unexpected_keys))
    assert msgs[0] == msgs[2]
    assert msgs[1] == msgs[3]


def test_hooks_as_torch():
    seen = {}
    for lib in (axle, torch):
        m = lib.nn.Linear(3, 2).double()
        with lib.no_grad():
            m.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3)))
            m.bias.fill_(0.5)
        log = []
        h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        h2 = m.register_forward_hook(lambda mod, args, out: out + 1)
        m.register_full_backward_hook(lambda mod, gin, gout: log.append(
            ([None if g is None else np.asarray(g.detach()).tolist() for g in gin],
             [np.asarray(g.detach()).tolist() for g in gout])))
        x = lib.tensor(np.array([[1.0, 2.0, 3.0]]), requires_grad=True)
        y = m(x)
        y.sum().backward()
        h1.remove()
        h2.remove()
        seen[lib.__name__] = (np.asarray(y.detach()).tolist(), log, np.asarray(m(x).detach()).tolist(),
                              np.asarray(x.grad).tolist())
    assert seen["axle"] == seen["torch"]


def test_to_and_dtype_conversions_keep_parameters():
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    w = m[0].weight
    m.double()
    assert m[0].weight is w and w.dtype == axle.float64
    assert m[1].running_mean.dtype == axle.float64 and m[1].num_batches_tracked.dtype == axle.int64
    m.to(axle.float32)
    assert w.dtype == axle.float32
    with pytest.raises(TypeError):
        m.to(axle.int64)


def test_batchnorm_running_statistics_follow_torch_with_momentum_none():
    rng = np.random.default_rng(3)
    tm, am = tnn.BatchNorm1d(4, momentum=None).double(), nn.BatchNorm1d(4, momentum=None).double()
    for _ in range(3):
        x = rng.standard_normal((6, 4)) * 3 + 1
        close(am(axle.tensor(x)), tm(torch.from_numpy(x)), 1e-10)
    close(am.running_mean, tm.running_mean, 1e-12)
    close(am.running_var, tm.running_var, 1e-12)
    assert am.num_batches_tracked.item() == tm.num_batches_tracked.item() == 3


def test_init_functions_draw_the_right_distributions():
    w = axle.empty(400, 300)
    nn.init.kaiming_uniform_(w, a=5 ** 0.5)
    bound = 1 / 300 ** 0.5
    assert float(w.abs().max()) <= bound and float(w.abs().max()) > 0.9 * bound
    nn.init.xavier_normal_(w)
    assert abs(float(w.std()) - (2 / 700) ** 0.5) < 0.01 * (2 / 700) ** 0.5 * 5
    nn.init.trunc_normal_(w, std=1.0, a=-1.0, b=1.0)
    assert float(w.abs().max()) <= 1.0
    assert nn.init.calculate_gain("leaky_relu", 0.2) == tnn.init.calculate_gain("leaky_relu", 0.2)
    with pytest.raises(ValueError):
        nn.init.xavier_uniform_(axle.empty(3))
    e = nn.Embedding(10, 3, padding_idx=2)
    assert float(e.weight[2].abs().sum()) == 0.0


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_and_vector_conversion_as_torch(norm_type):
    rng = np.random.default_rng(4)
    grads = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
    out = {}
    for lib in (axle, torch):
        ps = [lib.nn.Parameter(lib.tensor(np.zeros(g.shape))) for g in grads]
        for p, g in zip(ps, grads):
            p.grad = lib.tensor(g)
        total = lib.nn.utils.clip_grad_norm_(ps, 1.5, norm_type)
        clipped = [np.asarray(p.grad).copy() for p in ps]
        lib.nn.utils.clip_grad_value_(ps, 0.1)
        vec = lib.nn.utils.parameters_to_vector([lib.tensor(g) for g in grads])
        lib.nn.utils.vector_to_parameters(vec * 2, ps)
        out[lib.__name__] = (float(total), clipped, [np.asarray(p.grad) for p in ps],
                             [np.asarray(p.detach()) for p in ps])
    a, t = out["axle"], out["torch"]
    assert a[0] == pytest.approx(t[0], rel=1e-12)
    for x, y in zip(a[1] + a[2] + a[3], t[1] + t[2] + t[3]):
        np.testing.assert_allclose(x, y, rtol=1e-12)


@pytest.mark.parametrize("kind,kwargs", [
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"batch_first": True, "proj_size": 3}),
    ("GRU", {}), ("GRU", {"num_layers": 2, "batch_first": True, "bidirectional": True}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2}), ("RNN", {"bias": False}),
])
def test_recurrent_layers_match_torch(kind, kwargs):
    torch.manual_seed(1)
    tm = getattr(tnn, kind)(5, 6, **kwargs).double()
    am = load_from_torch(getattr(nn, kind)(5, 6, **kwargs).double(), tm)
    assert [n for n, _ in am.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert repr(am) == repr(tm)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((7, 3, 5))
    tx, ax = torch.from_numpy(x).requires_grad_(), axle.tensor(x, requires_grad=True)
    tout, th = tm(tx)
    aout, ah = am(ax)
    close(aout, tout, 1e-10)
    for a, t in zip(ah if kind == "LSTM" else [ah], th if kind == "LSTM" else [th]):
        close(a, t, 1e-10)
    w = rng.standard_normal(tuple(tout.shape))
    (tout * torch.from_numpy(w)).sum().backward()
    (aout * axle.tensor(w)).sum().backward()
    close(ax.grad, tx.grad, 1e-9)
    for (_, ap), (_, tp) in zip(am.named_parameters(), tm.named_parameters()):
        close(ap.grad, tp.grad, 1e-9)
    # Unbatched input and a given initial state.
    if kind != "LSTM" and not kwargs.get("batch_first"):
        h0 = rng.standard_normal(tuple(th.shape[:1]) + (6,))
        a1, _ = am(axle.tensor(x[:, 0]), axle.tensor(h0))
        t1, _ = tm(torch.from_numpy(x[:, 0]), torch.from_numpy(h0))
        close(a1, t1, 1e-10)


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell", "RNNCell"])
def test_recurrent_cells_match_torch(kind):
    torch.manual_seed(2)
    tm = getattr(tnn, kind)(4, 3).double()
    am = load_from_torch(getattr(nn, kind)(4, 3).double(), tm)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4))
    t_out, a_out = tm(torch.from_numpy(x)), am(axle.tensor(x))
    for a, t in zip(a_out if kind == "LSTMCell" else [a_out], t_out if kind == "LSTMCell" else [t_out]):
        close(a, t, 1e-12)
    assert repr(am) == repr(tm)


@pytest.mark.parametrize("kwargs,masks", [
    ({}, {}),
    ({"batch_first": True}, {"key_padding_mask": True}),
    ({"bias": False}, {"attn_mask": "bool"}),
    ({"kdim": 3, "vdim": 5}, {"attn_mask": "float"}),
    ({"add_bias_kv": True, "add_zero_attn": True}, {"key_padding_mask": True, "attn_mask": "bool"}),
])
def test_multihead_attention_matches_torch(kwargs, masks):
    torch.manual_seed(3)
    tm = tnn.MultiheadAttention(8, 2, **kwargs).double()
    am = load_from_torch(nn.MultiheadAttention(8, 2, **kwargs).double(), tm)
    assert [n for n, _ in am.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert repr(am) == repr(tm)
    rng = np.random.default_rng(4)
    L, S, N = 4, 6, 3
    bf = kwargs.get("batch_first", False)
    shape = lambda length, dim: (N, length, dim) if bf else (length, N, dim)  # noqa: E731
    arrays = [rng.standard_normal(shape(L, 8)), rng.standard_normal(shape(S, kwargs.get("kdim", 8))),
              rng.standard_normal(shape(S, kwargs.get("vdim", 8)))]
    extra = {}
    if masks.get("key_padding_mask"):
        kpm = np.zeros((N, S), dtype=bool)
        kpm[0, -2:] = True
        extra["key_padding_mask"] = kpm
    if masks.get("attn_mask") == "bool":
        extra["attn_mask"] = np.triu(np.ones((L, S), dtype=bool), 3)
    elif masks.get("attn_mask") == "float":
        extra["attn_mask"] = rng.standard_normal((L, S))
    tq = [torch.from_numpy(a).requires_grad_() for a in arrays]
    aq = [axle.tensor(a, requires_grad=True) for a in arrays]
    tout, tw = tm(*tq, **{k: torch.from_numpy(v) for k, v in extra.items()})
    aout, aw = am(*aq, **{k: axle.tensor(v) for k, v in extra.items()})
    close(aout, tout, 1e-10)
    close(aw, tw, 1e-10)
    tout.sum().backward()
    aout.sum().backward()
    for a, t in zip(aq, tq):
        close(a.grad, t.grad, 1e-9)
    for (_, ap), (_, tp) in zip(am.named_parameters(), tm.named_parameters()):
        close(ap.grad, tp.grad, 1e-9)
    t_sep, t_w = tm(*tq, average_attn_weights=False)
    a_sep, a_w = am(*aq, average_attn_weights=False)
    close(a_sep, t_sep, 1e-10)
    close(a_w, t_w, 1e-10)  # per head: (N, heads, L, S plus the bias_k and zero-attention columns)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_layers_match_torch(norm_first):
    torch.manual_seed(4)
    tm = tnn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16,
                         dropout=0.0, activation="gelu", norm_first=norm_first).double()
    am = load_from_torch(nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                                        dim_feedforward=16, dropout=0.0, activation="gelu",
                                        norm_first=norm_first).double(), tm)
    assert repr(am) == repr(tm)
    rng = np.random.default_rng(5)
    src, tgt = rng.standard_normal((5, 2, 8)), rng.standard_normal((4, 2, 8))
    mask = tnn.Transformer.generate_square_subsequent_mask(4).double()
    amask = nn.Transformer.generate_square_subsequent_mask(4).double()
    close(amask, mask, 0)
    ty = tm(torch.from_numpy(src), torch.from_numpy(tgt), tgt_mask=mask)
    ay = am(axle.tensor(src), axle.tensor(tgt), tgt_mask=amask)
    close(ay, ty, 1e-9)
    ty.sum().backward()
    ay.sum().backward()
    for (_, ap), (_, tp) in zip(am.named_parameters(), tm.named_parameters()):
        close(ap.grad, tp.grad, 1e-8)


@pytest.mark.parametrize("name,kwargs,target", [
    ("CrossEntropyLoss", {"ignore_index": 1, "label_smoothing": 0.1}, "index"),
    ("CrossEntropyLoss", {"weight": "w"}, "index"),
    ("NLLLoss", {"reduction": "sum"}, "index"),
    ("MSELoss", {}, "same"), ("L1Loss", {"reduction": "none"}, "same"), ("SmoothL1Loss", {"beta": 0.5}, "same"),
    ("HuberLoss", {"delta": 0.3}, "same"), ("BCEWithLogitsLoss", {"pos_weight": "w"}, "prob"),
    ("KLDivLoss", {"reduction": "batchmean"}, "same"), ("MSELoss", {"size_average": False}, "same"),
])
def test_loss_modules_match_torch(name, kwargs, target):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((6, 4))
    t = {"index": rng.integers(0, 4, 6), "same": rng.standard_normal((6, 4)), "prob": rng.random((6, 4))}[target]
    w = rng.random(4) + 0.5
    out = []
    for lib in (axle, torch):
        kw = {k: (lib.tensor(w) if v == "w" else v) for k, v in kwargs.items()}
        module = getattr(lib.nn, name)(**kw)
        xi = lib.tensor(x, requires_grad=True)
        loss = module(xi, lib.tensor(t))
        loss.sum().backward()
        out.append((np.asarray(loss.detach()), np.asarray(xi.grad), repr(module),
                    [k for k, _ in module.named_buffers()]))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12, atol=1e-15)
    assert out[0][2] == out[1][2] and out[0][3] == out[1][3]


def test_bilinear_and_embedding_max_norm_match_torch():
    torch.manual_seed(5)
    tm = tnn.Bilinear(3, 4, 2).double()
    am = load_from_torch(nn.Bilinear(3, 4, 2).double(), tm)
    assert repr(am) == repr(tm)
    rng = np.random.default_rng(7)
    x1, x2 = rng.standard_normal((5, 3)), rng.standard_normal((5, 4))
    close(am(axle.tensor(x1), axle.tensor(x2)), tm(torch.from_numpy(x1), torch.from_numpy(x2)), 1e-12)
    te = tnn.Embedding(6, 3, max_norm=1.0).double()
    ae = load_from_torch(nn.Embedding(6, 3, max_norm=1.0).double(), te)
    idx = np.array([[0, 2, 2], [5, 1, 0]])
    close(ae(axle.tensor(idx)), te(torch.from_numpy(idx)), 1e-12)
    close(ae.weight, te.weight, 1e-12)  # the named rows renormalized in place


@pytest.mark.parametrize("expr,shape", [
    ("F.max_pool1d(x, 3, 2, 1)", (2, 3, 11)), ("F.max_pool1d(x, 2, return_indices=True)[1]", (2, 3, 10)),
    ("F.avg_pool1d(x, 3, 2, 1)", (2, 3, 11)), ("F.adaptive_avg_pool1d(x, 4)", (2, 3, 11)),
    ("F.adaptive_max_pool1d(x, 4)", (2, 3, 11)), ("F.logsigmoid(x)", (4, 5)), ("F.softmin(x, 1)", (4, 5)),
    ("F.tanhshrink(x)", (4, 5)), ("F.hardshrink(x, 0.3)", (4, 5)), ("F.softshrink(x, 0.3)", (4, 5)),
    ("F.sigmoid(x)", (3,)), ("F.tanh(x)", (3,)), ("F.pixel_shuffle(x, 2)", (1, 8, 3, 5)),
    ("F.pixel_unshuffle(x, 2)", (2, 2, 4, 6)), ("F.instance_norm(x)", (2, 3, 7)),
    ("F.instance_norm(x, weight=L.ones(3, dtype=L.float64) * 2, bias=L.ones(3, dtype=L.float64))", (2, 3, 4, 5)),
    ("F.upsample(x, scale_factor=2)", (1, 2, 3, 3)), ("F.upsample_bilinear(x, size=(5, 4))", (1, 2, 3, 3)),
    ("F.pdist(x)", (5, 3)), ("F.dropout2d(x, 0.5, training=False)", (2, 3, 4, 4)),
    ("F.conv3d(x, w3)", (1, 2, 4, 4, 4)), ("F.conv_transpose1d(x, w1, stride=2, padding=1, output_padding=1)", (1, 2, 6)),
])
def test_more_functional_matches_torch(expr, shape):
    rng = np.random.default_rng(9)
    x = rng.standard_normal(shape)
    w3, w1 = rng.standard_normal((3, 2, 2, 2, 2)), rng.standard_normal((2, 3, 3))
    out = []
    for lib in (axle, torch):
        env = {"F": lib.nn.functional, "L": lib, "x": lib.tensor(x), "w3": lib.tensor(w3), "w1": lib.tensor(w1)}
        out.append(eval(expr, env))
    close(out[0].double() if out[0].is_floating_point() else out[0], out[1].double() if out[1].is_floating_point()
          else out[1], 1e-10)


@pytest.mark.parametrize("ctor,shape", [
    ("ConstantPad1d((1, 2), 3.5)", (2, 3, 4)), ("ZeroPad2d((1, 0, 2, 1))", (1, 2, 3, 3)),
    ("ReflectionPad1d(2)", (1, 2, 5)), ("ReflectionPad2d((1, 1, 2, 0))", (1, 2, 4, 4)),
    ("ReplicationPad2d(1)", (1, 2, 3, 3)), ("ReplicationPad1d((0, 3))", (2, 2, 4)),
    ("PixelShuffle(2)", (1, 8, 2, 3)), ("PixelUnshuffle(2)", (1, 2, 4, 4)),
    ("Upsample(scale_factor=2, mode='nearest')", (1, 2, 3, 3)), ("UpsamplingBilinear2d(size=(5, 5))", (1, 1, 3, 3)),
    ("InstanceNorm1d(3)", (2, 3, 6)), ("InstanceNorm2d(3, affine=True)", (2, 3, 4, 4)),
    ("InstanceNorm2d(3, track_running_stats=True)", (2, 3, 4, 4)),
    ("Hardshrink(0.2)", (3, 4)), ("Softshrink()", (3, 4)), ("Softmax2d()", (2, 3, 4, 4)),
])
def test_more_modules_match_torch(ctor, shape):
    tm = eval("tnn." + ctor).double()
    am = eval("nn." + ctor).double()
    if list(tm.state_dict()):
        load_from_torch(am, tm)
    assert repr(am) == repr(tm)
    x = np.random.default_rng(10).standard_normal(shape)
    tx, ax = torch.from_numpy(x).requires_grad_(), axle.tensor(x, requires_grad=True)
    ty, ay = tm(tx), am(ax)
    close(ay, ty, 1e-10)
    ty.sum().backward()
    ay.sum().backward()
    close(ax.grad, tx.grad, 1e-9)
    for (_, ab), (_, tb) in zip(am.named_buffers(), tm.named_buffers()):
        close(ab.double(), tb.double(), 1e-12)


def test_distance_modules_match_torch():
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    for name, kw in (("CosineSimilarity", {"dim": 1}), ("PairwiseDistance", {"p": 1.5})):
        close(getattr(nn, name)(**kw)(axle.tensor(a), axle.tensor(b)),
              getattr(tnn, name)(**kw)(torch.from_numpy(a), torch.from_numpy(b)), 1e-12)


def test_batch_norm_with_one_running_statistic_or_mixed_dtypes_as_torch():
    # One running statistic given: only it is updated; running statistics of
    # another dtype than the input's: refused, as torch's mixed-dtype check.
    x = np.random.default_rng(6).standard_normal((4, 3, 5)).astype(np.float32)
    for given in ("running_mean", "running_var"):
        a = {"running_mean": None, "running_var": None}
        t = dict(a)
        a[given] = axle.zeros(3) if given == "running_mean" else axle.ones(3)
        t[given] = torch.zeros(3) if given == "running_mean" else torch.ones(3)
        got = axle.nn.functional.batch_norm(axle.tensor(x), training=True, momentum=0.3, **a)
        want = torch.nn.functional.batch_norm(torch.tensor(x), training=True, momentum=0.3, **t)
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(a[given]), t[given].numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="mixed dtype"):
        torch.nn.functional.batch_norm(torch.tensor(x), torch.zeros(3, dtype=torch.float64),
                                       torch.ones(3, dtype=torch.float64), training=True)
    with pytest.raises(axle.DTypeError, match="mixed dtype"):
        axle.nn.functional.batch_norm(axle.tensor(x), axle.zeros(3, dtype=axle.float64),
                                      axle.ones(3, dtype=axle.float64), training=True)
