"""Forty-three torch.nn module classes (activations, pads, pools, dropouts, a 3-d convolution and its lazy
transpose, instance norm, losses, the recurrent base classes) against torch 1.13.

Each case builds the same class with the same constructor arguments in axle and in torch, gives torch's
parameters random values (so constant initial values such as ones, zeros or 0.25 hide no mistakes), copies
torch's state dict into axle's module, and runs both forwards on the same float64 inputs. The outputs must
agree, then a fixed random gradient is sent backward and the gradients of every input that requires grad
and of every parameter must agree too. Buffers (running statistics) are compared after the forwards.
Modules with a training mode run in the modes listed for the case; random dropouts are compared only where
they are deterministic (eval mode, p=0 and p=1). In-place variants get a copy of the input, which they must
overwrite with their output as torch's do. The recurrent base classes have no forward: their parameters,
state dict, repr and the error raised by calling them are compared. The reprs of all modules are compared
as built."""
import warnings

import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore:Lazy modules are a new feature", "ignore:Implicit dimension",
                                        "ignore:NLLLoss2d has been deprecated")

RTOL, ATOL = 1e-6, 1e-8


# ---- inputs: each builder takes a numpy Generator and gives (array, requires_grad) ----

def randn(*shape, grad=True):
    return lambda rng: (rng.standard_normal(shape), grad)


def uniform(low, high, *shape, grad=True):
    return lambda rng: (rng.uniform(low, high, shape), grad)


def labels(classes, *shape):
    return lambda rng: (rng.integers(0, classes, shape).astype(np.int64), False)


def signs(*shape):
    return lambda rng: (rng.choice([-1.0, 1.0], shape), False)


def bits(*shape):
    return lambda rng: (rng.integers(0, 2, shape).astype(np.float64), False)


def counts(*shape):
    return lambda rng: (rng.integers(0, 5, shape).astype(np.float64), False)


# ---- the table ----

def _show(value):
    if isinstance(value, np.ndarray):
        return "array%s" % (list(value.shape),)
    return repr(value).replace(" ", "")


def case(name, *args, inputs, modes=("train",), lazy=False, rtol=RTOL, atol=ATOL, marks=(), suffix="", **kwargs):
    """One row: axle.nn.<name>(*args, **kwargs) and torch.nn.<name>(*args, **kwargs) on `inputs`.
    numpy arrays among the arguments (loss weights) become each library's tensor."""
    words = [_show(a) for a in args] + ["%s=%s" % (k, _show(v)) for k, v in kwargs.items()]
    ident = "%s(%s)%s" % (name, ",".join(words), suffix)
    if modes != ("train",):
        ident += "-" + "+".join(modes)
    spec = dict(name=name, args=args, kwargs=kwargs, inputs=inputs, modes=modes, lazy=lazy, rtol=rtol, atol=atol)
    return pytest.param(spec, id=ident, marks=marks)


W3 = np.array([0.5, 1.5, 2.0])
W4 = np.array([0.3, 1.0, 2.5, 0.7])

CASES = [
    # adaptive max pools (window sizes overlap where the output does not divide the input)
    case("AdaptiveMaxPool1d", 3, inputs=[randn(2, 3, 5)]),
    case("AdaptiveMaxPool1d", 4, return_indices=True, inputs=[randn(3, 7)]),
    case("AdaptiveMaxPool2d", (2, 3), inputs=[randn(2, 2, 5, 4)]),
    case("AdaptiveMaxPool2d", (None, 2), inputs=[randn(2, 3, 5)]),
    case("AdaptiveMaxPool2d", 3, return_indices=True, inputs=[randn(1, 2, 4, 5)]),
    # average pool
    case("AvgPool2d", 2, inputs=[randn(2, 3, 4, 5)]),
    case("AvgPool2d", 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False, inputs=[randn(2, 2, 6, 5)]),
    case("AvgPool2d", (2, 3), stride=1, padding=(1, 0), divisor_override=4, inputs=[randn(2, 4, 5)]),
    # activations
    case("CELU", inputs=[randn(2, 3, 4)]),
    case("CELU", alpha=0.5, inputs=[randn(2, 3)]),
    case("CELU", alpha=1.5, inplace=True, inputs=[randn(3, 4)]),
    case("GLU", inputs=[randn(2, 4)]),
    case("GLU", dim=1, inputs=[randn(2, 6, 3)]),
    case("Hardsigmoid", inputs=[uniform(-4, 4, 3, 5)]),
    case("Hardsigmoid", inplace=True, inputs=[uniform(-4, 4, 3, 5)]),
    case("Hardtanh", inputs=[uniform(-2, 2, 3, 5)]),
    case("Hardtanh", -0.5, 0.7, inputs=[randn(3, 5)]),
    case("Hardtanh", min_val=-2.0, max_val=1.0, inplace=True, inputs=[uniform(-3, 3, 4, 4)]),
    case("LogSigmoid", inputs=[uniform(-6, 6, 3, 4)]),
    case("Mish", inputs=[uniform(-4, 4, 3, 4)]),
    case("Mish", inplace=True, inputs=[uniform(-4, 4, 3, 4)]),
    case("PReLU", inputs=[randn(2, 3, 4)]),
    case("PReLU", num_parameters=3, init=0.1, inputs=[randn(2, 3, 4)]),
    case("ReLU6", inputs=[uniform(-3, 9, 3, 5)]),
    case("ReLU6", inplace=True, inputs=[uniform(-3, 9, 3, 5)]),
    case("SELU", inputs=[randn(3, 4)]),
    case("SELU", inplace=True, inputs=[randn(3, 4)]),
    case("Softmax", dim=1, inputs=[randn(2, 4, 3)]),
    case("Softmax", dim=-1, inputs=[randn(3, 5)]),
    case("Softmax", suffix="-implicit-dim", inputs=[randn(2, 3, 4)]),
    case("Softmin", dim=0, inputs=[randn(3, 4)]),
    case("Softmin", dim=2, inputs=[randn(2, 3, 4)]),
    case("Softplus", inputs=[randn(3, 4)]),
    case("Softplus", beta=2.0, threshold=1.0, inputs=[randn(4, 5)]),
    case("Softsign", inputs=[randn(3, 4)]),
    case("Tanhshrink", inputs=[randn(3, 4)]),
    case("Threshold", 0.1, 20.0, inputs=[randn(3, 5)]),
    case("Threshold", threshold=-0.2, value=0.5, inplace=True, inputs=[randn(3, 5)]),
    # pads
    case("ConstantPad2d", (1, 0, 2, 1), 3.5, inputs=[randn(2, 3, 2, 3)]),
    case("ConstantPad2d", 1, -1.0, inputs=[randn(3, 2, 2)]),
    case("ConstantPad2d", (-1, 1, 0, 2), 0.25, inputs=[randn(1, 2, 3, 4)]),
    case("ConstantPad3d", 1, 2.0, inputs=[randn(1, 2, 2, 2, 3)]),
    case("ConstantPad3d", (1, 0, 0, 2, 1, 1), -0.5, inputs=[randn(2, 2, 3, 2)]),
    case("ReflectionPad3d", 1, inputs=[randn(1, 2, 3, 3, 3)]),
    case("ReflectionPad3d", (1, 0, 2, 1, 0, 2), inputs=[randn(2, 3, 3, 4)]),
    case("ReplicationPad3d", 2, inputs=[randn(1, 2, 2, 3, 2)]),
    case("ReplicationPad3d", (0, 1, 2, 0, 1, 3), inputs=[randn(2, 2, 3, 2)]),
    # shape and resampling
    case("Unflatten", 1, (2, 3), inputs=[randn(2, 6, 2)]),
    case("Unflatten", -1, (2, 2, 1), inputs=[randn(3, 4)]),
    case("UpsamplingNearest2d", size=(5, 7), inputs=[randn(1, 2, 2, 3)]),
    case("UpsamplingNearest2d", scale_factor=2, inputs=[randn(2, 1, 2, 3)]),
    case("UpsamplingNearest2d", scale_factor=(1.5, 2.5), inputs=[randn(1, 2, 3, 2)]),
    # dropouts: deterministic only in eval mode or with p 0 or 1
    case("Dropout1d", inputs=[randn(2, 3, 4)], modes=("eval",)),
    case("Dropout1d", p=0.0, inputs=[randn(2, 3, 4)], modes=("train", "eval")),
    case("Dropout1d", p=1.0, inputs=[randn(3, 4)], modes=("train", "eval")),
    case("Dropout1d", p=1.0, inplace=True, inputs=[randn(2, 3, 4)], modes=("train", "eval")),
    case("Dropout2d", p=0.3, inputs=[randn(2, 3, 2, 2)], modes=("eval",)),
    case("Dropout2d", p=0.0, inputs=[randn(2, 3, 2, 2)], modes=("train", "eval")),
    case("Dropout2d", p=1.0, inputs=[randn(2, 3, 2, 2)], modes=("train", "eval")),
    case("Dropout2d", p=1.0, inplace=True, inputs=[randn(2, 3, 2, 2)], modes=("train",)),
    case("Dropout3d", p=0.7, inputs=[randn(2, 2, 2, 2, 2)], modes=("eval",)),
    case("Dropout3d", p=0.0, inputs=[randn(2, 2, 2, 2, 2)], modes=("train", "eval")),
    case("Dropout3d", p=1.0, inputs=[randn(2, 2, 2, 3)], modes=("train", "eval")),
    case("Dropout3d", p=0.0, inplace=True, inputs=[randn(2, 2, 2, 2, 2)], modes=("train",)),
    # convolution and normalization
    case("Conv3d", 2, 4, 2, inputs=[randn(1, 2, 3, 4, 3)]),
    case("Conv3d", 2, 4, (2, 1, 2), stride=(1, 2, 1), padding=1, dilation=(1, 1, 2), groups=2, bias=False,
         inputs=[randn(2, 2, 3, 4, 5)]),
    case("Conv3d", 2, 2, 3, padding="same", padding_mode="circular", inputs=[randn(1, 2, 3, 4, 3)]),
    case("Conv3d", 2, 3, 2, padding=1, padding_mode="reflect", inputs=[randn(1, 2, 3, 3, 3)]),
    case("Conv3d", 2, 3, 2, stride=2, padding=(0, 1, 1), padding_mode="replicate", inputs=[randn(1, 2, 4, 3, 3)]),
    case("LazyConvTranspose3d", 4, 2, lazy=True, inputs=[randn(1, 2, 2, 3, 2)]),
    case("LazyConvTranspose3d", 3, (2, 1, 2), stride=2, padding=1, output_padding=(1, 0, 1), bias=False, lazy=True,
         inputs=[randn(2, 3, 2, 3, 3)]),
    case("LazyConvTranspose3d", 4, 2, groups=2, dilation=(1, 2, 1), lazy=True, inputs=[randn(2, 2, 2, 2)]),
    case("InstanceNorm3d", 3, inputs=[randn(2, 3, 2, 3, 2)]),
    case("InstanceNorm3d", 3, affine=True, track_running_stats=True, momentum=0.3, eps=1e-3,
         inputs=[randn(2, 3, 2, 3, 2)], modes=("train", "eval")),
    case("InstanceNorm3d", 2, affine=True, inputs=[randn(2, 2, 3, 2)], modes=("train", "eval")),
    # losses (targets without grad where torch cannot differentiate them)
    case("BCELoss", inputs=[uniform(0.05, 0.95, 2, 3), uniform(0, 1, 2, 3, grad=False)]),
    case("BCELoss", weight=W3, reduction="sum", inputs=[uniform(0.05, 0.95, 2, 3), bits(2, 3)]),
    case("BCELoss", reduction="none", inputs=[uniform(0.05, 0.95, 4), uniform(0, 1, 4, grad=False)]),
    case("CosineEmbeddingLoss", inputs=[randn(4, 3), randn(4, 3), signs(4)]),
    case("CosineEmbeddingLoss", margin=0.5, reduction="sum", inputs=[randn(5, 3), randn(5, 3), signs(5)]),
    case("CosineEmbeddingLoss", margin=-0.3, reduction="none", inputs=[randn(4, 2), randn(4, 2), signs(4)]),
    case("GaussianNLLLoss", inputs=[randn(4, 3), randn(4, 3), uniform(0.5, 2, 4, 3)]),
    case("GaussianNLLLoss", full=True, eps=1e-3, reduction="sum",
         inputs=[randn(4, 3), randn(4, 3), uniform(0.5, 2, 4, 1)]),
    case("GaussianNLLLoss", reduction="none", inputs=[randn(4, 3), randn(4, 3, grad=False), uniform(0.5, 2, 4)]),
    case("HingeEmbeddingLoss", inputs=[randn(3, 4), signs(3, 4)]),
    case("HingeEmbeddingLoss", margin=0.5, reduction="sum", inputs=[randn(3, 4), signs(3, 4)]),
    case("HingeEmbeddingLoss", margin=2.0, reduction="none", inputs=[randn(5), signs(5)]),
    case("MarginRankingLoss", inputs=[randn(5), randn(5), signs(5)]),
    case("MarginRankingLoss", margin=0.5, reduction="sum", inputs=[randn(5), randn(5), signs(5)]),
    case("MarginRankingLoss", margin=-0.2, reduction="none", inputs=[randn(4), randn(4), signs(4)]),
    case("MultiLabelSoftMarginLoss", inputs=[randn(3, 4), bits(3, 4)]),
    case("MultiLabelSoftMarginLoss", weight=W4, reduction="sum", inputs=[randn(3, 4), bits(3, 4)]),
    case("MultiLabelSoftMarginLoss", reduction="none", inputs=[randn(3, 4), bits(3, 4)]),
    case("MultiMarginLoss", inputs=[randn(3, 4), labels(4, 3)]),
    case("MultiMarginLoss", p=2, margin=0.5, weight=W4, reduction="sum", inputs=[randn(5, 4), labels(4, 5)]),
    case("MultiMarginLoss", margin=2.0, reduction="none", inputs=[randn(3, 4), labels(4, 3)]),
    case("NLLLoss2d", inputs=[randn(2, 3, 2, 2), labels(3, 2, 2, 2)]),
    case("NLLLoss2d", weight=W3, ignore_index=1, inputs=[randn(2, 3, 3, 2), labels(3, 2, 3, 2)]),
    case("NLLLoss2d", reduction="sum", inputs=[randn(2, 3, 2, 2), labels(3, 2, 2, 2)]),
    case("NLLLoss2d", weight=W3, reduction="none", inputs=[randn(2, 3, 2, 2), labels(3, 2, 2, 2)]),
    case("PoissonNLLLoss", inputs=[randn(3, 4), counts(3, 4)]),
    case("PoissonNLLLoss", log_input=False, full=True, eps=1e-4, reduction="sum",
         inputs=[uniform(0.5, 3, 3, 4), counts(3, 4)]),
    case("PoissonNLLLoss", full=True, reduction="none", inputs=[randn(3, 4), counts(3, 4)]),
    case("SoftMarginLoss", inputs=[randn(3, 4), signs(3, 4)]),
    case("SoftMarginLoss", reduction="sum", inputs=[randn(3, 4), signs(3, 4)]),
    case("SoftMarginLoss", reduction="none", inputs=[randn(5), signs(5)]),
    case("TripletMarginLoss", inputs=[randn(4, 3), randn(4, 3), randn(4, 3)]),
    case("TripletMarginLoss", margin=0.5, p=1.0, swap=True, reduction="sum",
         inputs=[randn(4, 3), randn(4, 3), randn(4, 3)]),
    case("TripletMarginLoss", margin=3.0, p=3.0, eps=1e-4, reduction="none",
         inputs=[randn(4, 3), randn(4, 3), randn(4, 3)]),
]


# ---- helpers ----

def lib_value(lib, value):
    return lib.tensor(value) if isinstance(value, np.ndarray) else value


def construct(lib, spec):
    kwargs = {k: lib_value(lib, v) for k, v in spec["kwargs"].items()}
    return getattr(lib.nn, spec["name"])(*spec["args"], **kwargs)


def to_numpy(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach())


def assert_close(a, t, spec, what):
    a, t = to_numpy(a), to_numpy(t)
    assert a.shape == t.shape, "%s: shape %s, torch %s" % (what, a.shape, t.shape)
    assert a.dtype == t.dtype, "%s: dtype %s, torch %s" % (what, a.dtype, t.dtype)
    np.testing.assert_allclose(a, t, rtol=spec["rtol"], atol=spec["atol"], err_msg=what)


def copy_state(am, tm):
    state = {k: axle.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    am.load_state_dict(state)  # strict: raises on missing or unexpected keys
    assert list(am.state_dict()) == list(tm.state_dict())


def forward(lib, module, arrays, inplace):
    leaves = [lib.tensor(a, requires_grad=g) for a, g in arrays]
    fed = list(leaves)
    if inplace:
        fed[0] = leaves[0].clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = module(*fed)
    if inplace:
        first = out[0] if isinstance(out, tuple) else out
        np.testing.assert_array_equal(to_numpy(fed[0]), to_numpy(first), err_msg="in-place input not overwritten")
    return leaves, out


def run_and_compare(am, tm, arrays, spec, rng, mode):
    inplace = bool(spec["kwargs"].get("inplace"))
    a_leaves, a_out = forward(axle, am, arrays, inplace)
    t_leaves, t_out = forward(torch, tm, arrays, inplace)
    a_outs = a_out if isinstance(a_out, tuple) else (a_out,)
    t_outs = t_out if isinstance(t_out, tuple) else (t_out,)
    assert len(a_outs) == len(t_outs)
    for i, (a, t) in enumerate(zip(a_outs, t_outs)):
        assert_close(a, t, spec, "%s output %d" % (mode, i))
    a_out, t_out = a_outs[0], t_outs[0]
    assert a_out.requires_grad == t_out.requires_grad
    if not t_out.requires_grad:
        return
    g = rng.standard_normal(tuple(t_out.shape))
    a_out.backward(axle.tensor(g))
    t_out.backward(torch.tensor(g))
    for i, (a, t) in enumerate(zip(a_leaves, t_leaves)):
        if t.requires_grad:
            assert a.grad is not None, "%s: no gradient for input %d" % (mode, i)
            assert_close(a.grad, t.grad, spec, "%s gradient of input %d" % (mode, i))
    t_params = dict(tm.named_parameters())
    for name, ap in am.named_parameters():
        tp = t_params[name]
        assert (ap.grad is None) == (tp.grad is None), "%s: gradient of %s" % (mode, name)
        if tp.grad is not None:
            assert_close(ap.grad, tp.grad, spec, "%s gradient of parameter %s" % (mode, name))
        ap.grad, tp.grad = None, None


def test_table_covers_every_class():
    names = ("AdaptiveMaxPool1d AdaptiveMaxPool2d AvgPool2d BCELoss CELU ConstantPad2d ConstantPad3d Conv3d "
             "CosineEmbeddingLoss Dropout1d Dropout2d Dropout3d GLU GaussianNLLLoss Hardsigmoid Hardtanh "
             "HingeEmbeddingLoss InstanceNorm3d LazyConvTranspose3d LogSigmoid MarginRankingLoss Mish "
             "MultiLabelSoftMarginLoss MultiMarginLoss NLLLoss2d PReLU PoissonNLLLoss RNNBase RNNCellBase ReLU6 "
             "ReflectionPad3d ReplicationPad3d SELU SoftMarginLoss Softmax Softmin Softplus Softsign Tanhshrink "
             "Threshold TripletMarginLoss Unflatten UpsamplingNearest2d").split()
    missing = [n for n in names if not hasattr(axle.nn, n) or not hasattr(torch.nn, n)]
    assert not missing
    covered = {p.values[0]["name"] for p in CASES} | {"RNNBase", "RNNCellBase"}
    assert sorted(set(names) - covered) == []


@pytest.mark.parametrize("spec", CASES)
def test_module_matches_torch(spec):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    arrays = [build(rng) for build in spec["inputs"]]
    tm, am = construct(torch, spec).double(), construct(axle, spec).double()
    if spec["lazy"]:
        # the first forward materializes the weights (at random in each library); torch's are copied after it
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tm(torch.tensor(arrays[0][0])), am(axle.tensor(arrays[0][0]))
        assert type(am).__name__ == type(tm).__name__
    with torch.no_grad():
        for p in tm.parameters():
            p.copy_(torch.empty_like(p).uniform_(-1.5, 1.5))
    copy_state(am, tm)
    for mode in spec["modes"]:
        tm.train(mode == "train"), am.train(mode == "train")
        assert am.training == tm.training
        run_and_compare(am, tm, arrays, spec, rng, mode)
        for name, value in tm.state_dict().items():  # buffers such as running statistics after the forward
            assert_close(am.state_dict()[name], value, spec, "%s state %s" % (mode, name))


@pytest.mark.parametrize("spec", CASES)
def test_repr_matches_torch(spec):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(construct(axle, spec)) == repr(construct(torch, spec))


# ---- the recurrent base classes: no forward of their own ----

RNN_BASES = [
    pytest.param("RNNBase", ("LSTM", 3, 4), {}, id="RNNBase('LSTM',3,4)"),
    pytest.param("RNNBase", ("GRU", 3, 4), {"num_layers": 2, "bidirectional": True, "bias": False},
                 id="RNNBase('GRU',3,4,num_layers=2,bidirectional=True,bias=False)"),
    pytest.param("RNNBase", ("RNN_TANH", 2, 3), {"batch_first": True, "dropout": 0.5, "num_layers": 2},
                 id="RNNBase('RNN_TANH',2,3,batch_first=True,dropout=0.5,num_layers=2)"),
    pytest.param("RNNBase", ("RNN_RELU", 2, 3), {}, id="RNNBase('RNN_RELU',2,3)"),
    pytest.param("RNNBase", ("LSTM", 3, 5), {"proj_size": 2, "bidirectional": True},
                 id="RNNBase('LSTM',3,5,proj_size=2,bidirectional=True)"),
    pytest.param("RNNCellBase", (3, 4, True, 4), {}, id="RNNCellBase(3,4,True,4)"),
    pytest.param("RNNCellBase", (3, 4, False, 3), {}, id="RNNCellBase(3,4,False,3)"),
    pytest.param("RNNCellBase", (3, 4), {"bias": True, "num_chunks": 4}, id="RNNCellBase(3,4,bias=True,num_chunks=4)"),
]


def construct_rnn_base(lib, name, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns about dropout with a single layer
        return getattr(lib.nn, name)(*args, **kwargs).double()


@pytest.mark.parametrize("name,args,kwargs", RNN_BASES)
def test_rnn_base_parameters_match_torch(name, args, kwargs):
    torch.manual_seed(0)
    tm, am = construct_rnn_base(torch, name, args, kwargs), construct_rnn_base(axle, name, args, kwargs)
    assert [(n, tuple(p.shape)) for n, p in am.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    copy_state(am, tm)
    for (pname, ap), (_, tp) in zip(am.named_parameters(), tm.named_parameters()):
        assert_close(ap, tp, {"rtol": 0, "atol": 0}, pname)
    x = np.zeros((2, 1, args[1] if name == "RNNBase" else args[0]))
    with pytest.raises(NotImplementedError):
        tm(torch.tensor(x))
    with pytest.raises(NotImplementedError):
        am(axle.tensor(x))


@pytest.mark.parametrize("name,args,kwargs", RNN_BASES)
def test_rnn_base_repr_and_error_match_torch(name, args, kwargs):
    tm, am = construct_rnn_base(torch, name, args, kwargs), construct_rnn_base(axle, name, args, kwargs)
    x = np.zeros((2, 1, args[1] if name == "RNNBase" else args[0]))
    with pytest.raises(NotImplementedError) as t_err:
        tm(torch.tensor(x))
    with pytest.raises(NotImplementedError) as a_err:
        am(axle.tensor(x))
    assert (type(am).__name__, repr(am), str(a_err.value)) == (type(tm).__name__, repr(tm), str(t_err.value))


def test_rnn_base_rejects_unknown_mode_like_torch():
    with pytest.raises(ValueError, match="Unrecognized RNN mode: FOO"):
        torch.nn.RNNBase("FOO", 3, 4)
    with pytest.raises(ValueError, match="Unrecognized RNN mode: FOO"):
        axle.nn.RNNBase("FOO", 3, 4)
