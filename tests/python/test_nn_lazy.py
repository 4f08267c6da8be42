"""Lazy modules (UninitializedParameter / UninitializedBuffer, LazyModuleMixin, LazyLinear,
LazyConv*, LazyConvTranspose1d/2d, LazyBatchNorm*, LazyInstanceNorm*) against torch 1.13: the same
module built both ways gives the same shapes, dtypes, class change, reprs, state dict keys and
placeholders, and the same errors; initialization distributions by their bounds; a lazy model
trains and its state dict loads into the eager module; with copied weights the outputs equal
torch's."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import axle
from axle import nn
from axle.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore:Lazy modules are a new feature")


def A(t):
    return axle.from_numpy(t.detach().numpy().copy())


def N(a):
    return np.array(a.detach().numpy())


# (name, constructor args, input shape)
CASES = [
    ("LazyLinear", (3,), (2, 5)),
    ("LazyLinear", (4, False), (2, 3, 6)),
    ("LazyConv1d", (4, 3), (2, 6, 9)),
    ("LazyConv1d", (4, 3, 1, 1, 1, 2), (6, 9)),
    ("LazyConv2d", (4, 3), (2, 3, 7, 7)),
    ("LazyConv2d", (6, (2, 3), 2, 1, 1, 3, False), (1, 6, 8, 7)),
    ("LazyConv3d", (2, 2), (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), (2, 6, 5)),
    ("LazyConvTranspose1d", (4, 3, 2, 1, 1, 2), (2, 6, 5)),
    ("LazyConvTranspose2d", (3, 2), (2, 4, 3, 3)),
    ("LazyBatchNorm1d", (), (4, 3)),
    ("LazyBatchNorm1d", (1e-3, 0.2, False), (4, 3, 5)),
    ("LazyBatchNorm2d", (), (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (1e-5, None, True, False), (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), (2, 3, 5)),
    ("LazyInstanceNorm2d", (1e-5, 0.1, False, False), (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), (2, 3, 2, 3, 2)),
]


def _both(name, args, dtype=None):
    with warnings.catch_warnings(record=True) as wa:
        warnings.simplefilter("always")
        a = getattr(nn, name)(*args, dtype=dtype and getattr(axle, dtype))
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        t = getattr(torch.nn, name)(*args, dtype=dtype and getattr(torch, dtype))
    assert [str(w.message) for w in wa] == [str(w.message) for w in wt]
    return a, t


def _sd_repr(sd):
    return [(k, repr(v) if is_lazy(v) or isinstance(v, torch.nn.parameter.UninitializedTensorMixin)
             else (tuple(v.shape), str(v.dtype).split(".")[1])) for k, v in sd.items()]


@pytest.mark.parametrize("name,args,shape", CASES)
def test_lazy_module_matches_torch(name, args, shape):
    a, t = _both(name, args)
    assert repr(a) == repr(t)
    assert a.has_uninitialized_params() == t.has_uninitialized_params()
    assert _sd_repr(a.state_dict()) == _sd_repr(t.state_dict())
    assert type(a).__name__ == name
    become = type(t).cls_to_become.__name__
    x = torch.randn(shape, dtype=torch.float32)
    ya = a(A(x))
    yt = t(x)
    assert type(a).__name__ == type(t).__name__ == become
    assert repr(a) == repr(t)
    assert not any(is_lazy(v) for v in a.state_dict().values())
    assert not hasattr(a, "_initialize_hook") and not hasattr(a, "_load_hook")
    assert _sd_repr(a.state_dict()) == _sd_repr(t.state_dict())
    assert tuple(ya.shape) == tuple(yt.shape) and ya.dtype == axle.float32
    for (ka, pa), (kt, pt) in zip(a.named_parameters(), t.named_parameters()):
        assert ka == kt and type(pa) is nn.Parameter and pa.requires_grad
    for k, b in a.named_buffers():
        assert type(b) is axle.Tensor, k
    # With torch's materialized values copied in, the eager forward gives torch's output.
    a.load_state_dict({k: A(v) for k, v in t.state_dict().items()})
    a.eval(), t.eval()
    np.testing.assert_allclose(N(a(A(x))), t(x).detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,args,shape", [c for c in CASES if "Norm" not in c[0]])
def test_lazy_initialization_bounds(name, args, shape):
    # kaiming_uniform_(a=sqrt(5)) weights and U(-1/sqrt(fan_in), 1/sqrt(fan_in)) biases, as the eager module.
    axle.manual_seed(0)
    a, _ = _both(name, args)
    a(axle.randn(*shape))
    fan_in = a.weight.shape[1] * int(np.prod(a.weight.shape[2:]))
    bound = 1 / np.sqrt(fan_in)
    w = N(a.weight)
    assert np.all(np.abs(w) <= bound + 1e-7) and w.std() > 0
    if a.bias is not None:
        assert np.all(np.abs(N(a.bias)) <= bound + 1e-7)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lazy_dtype_and_to(dtype):
    a, t = _both("LazyLinear", (3,), dtype)
    assert a.weight.dtype == getattr(axle, dtype)
    a(axle.randn(2, 4, dtype=getattr(axle, dtype)))
    assert a.weight.dtype == getattr(axle, dtype) and a.bias.dtype == getattr(axle, dtype)
    # .double() before the first forward changes the placeholder's dtype; it stays lazy
    a, t = _both("LazyBatchNorm1d", ())
    a.double(), t.double()
    assert is_lazy(a.weight) and is_lazy(a.running_mean) and a.running_mean.dtype == axle.float64
    assert t.running_mean.dtype == torch.float64
    a(axle.randn(3, 2, dtype=axle.float64))
    assert a.running_mean.dtype == axle.float64 and tuple(a.running_mean.shape) == (2,)


def test_uninitialized_parameter_api():
    p, tp = UninitializedParameter(), torch.nn.parameter.UninitializedParameter()
    assert repr(p) == repr(tp) and isinstance(p, nn.Parameter) and p.requires_grad and is_lazy(p)
    assert tuple(p.size()) == tuple(tp.size()) and p.dtype == axle.float32
    b, tb = UninitializedBuffer(), torch.nn.parameter.UninitializedBuffer()
    assert repr(b) == repr(tb) and isinstance(b, axle.Tensor) and not b.requires_grad
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        p.shape
    with pytest.raises(RuntimeError, match="Can't access the shape"):
        tp.shape
    with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized parameter"):
        p.share_memory_()
    for use in (lambda q: q + 1, lambda q: q.sum(), lambda q: q.dim(), lambda q: q.mul_(2), lambda q: q[0],
                lambda q: len(q), lambda q: q.requires_grad_(False)):
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            use(tp)
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in .*UninitializedParameter"):
            use(p)
    # the allowed ones
    assert not p.is_floating_point() is False
    with axle.no_grad():
        p.copy_(axle.empty(0))
    q = UninitializedParameter(dtype=axle.float64)
    assert q.dtype == axle.float64
    assert repr(copy.deepcopy(q)) == "<UninitializedParameter>" and copy.deepcopy(q).dtype == axle.float64
    r = pickle.loads(pickle.dumps(UninitializedParameter(requires_grad=False)))
    assert is_lazy(r) and not r.requires_grad
    q.materialize((2, 3))
    tq = torch.nn.parameter.UninitializedParameter(dtype=torch.float64)
    tq.materialize((2, 3))
    assert type(q) is nn.Parameter and type(tq) is torch.nn.Parameter
    assert tuple(q.shape) == tuple(tq.shape) and q.dtype == axle.float64 and q.requires_grad
    assert not hasattr(q, "materialize") and not hasattr(tq, "materialize")
    b.materialize((4,), dtype=axle.float64)
    assert tuple(b.shape) == (4,) and b.dtype == axle.float64 and not is_lazy(b) and isinstance(b, axle.Tensor)


def test_lazy_state_dict_round_trips():
    # lazy -> lazy (placeholders copied), materialized -> lazy (materializes), lazy -> eager (torch's error)
    a, t = _both("LazyLinear", (3,))
    a2, t2 = _both("LazyLinear", (3,))
    a2.load_state_dict(a.state_dict())
    t2.load_state_dict(t.state_dict())
    assert a2.has_uninitialized_params() and t2.has_uninitialized_params()
    eager = nn.Linear(4, 3)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        eager.load_state_dict(a.state_dict())
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        torch.nn.Linear(4, 3).load_state_dict(t.state_dict())
    a.load_state_dict(eager.state_dict())
    t.load_state_dict({k: torch.from_numpy(N(v)) for k, v in eager.state_dict().items()})
    assert type(a).__name__ == type(t).__name__ == "LazyLinear"  # loading does not change the class
    assert not a.has_uninitialized_params() and not t.has_uninitialized_params()
    assert tuple(a.weight.shape) == tuple(t.weight.shape) == (3, 4)
    np.testing.assert_array_equal(N(a.weight), N(eager.weight))
    x = axle.randn(2, 4)
    np.testing.assert_array_equal(N(a(x)), N(eager(x)))
    assert type(a) is nn.Linear
    bn = nn.LazyBatchNorm2d()
    ref = nn.BatchNorm2d(5)
    ref.running_mean.fill_(0.5)
    bn.load_state_dict(ref.state_dict())
    assert tuple(bn.running_mean.shape) == (5,) and type(bn.running_mean) is axle.Tensor
    np.testing.assert_array_equal(N(bn.running_mean), N(ref.running_mean))


def test_lazy_trains_and_loads_into_eager():
    axle.manual_seed(1)
    model = nn.Sequential(nn.LazyConv2d(4, 3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(), nn.Flatten(),
                          nn.LazyLinear(2))
    x, y = axle.randn(8, 3, 5, 5), axle.randn(8, 2)
    model(x)
    assert [type(m).__name__ for m in model] == ["Conv2d", "BatchNorm2d", "ReLU", "Flatten", "Linear"]
    opt = axle.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for _ in range(15):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] * 0.7
    eager = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                          nn.Linear(100, 2))
    eager.load_state_dict(model.state_dict())
    model.eval(), eager.eval()
    np.testing.assert_array_equal(N(model(x)), N(eager(x)))


def test_lazy_errors_match_torch():
    a, t = _both("LazyConv2d", (4, 3))
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d"):
        t(torch.randn(3, 5))
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d"):
        a(axle.randn(3, 5))
    a, t = _both("LazyConv2d", (4, 3, 1, 0, 1, 2))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        t(torch.randn(1, 3, 5, 5))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        a(axle.randn(1, 3, 5, 5))

    class Partial(nn.modules.lazy.LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.w = UninitializedParameter()

        def initialize_parameters(self, x):
            pass

        def forward(self, x):
            return x

    with pytest.raises(RuntimeError, match="module Partial has not been fully initialized"):
        Partial()(axle.randn(2))

    class NoInit(nn.modules.lazy.LazyModuleMixin, nn.Module):
        def forward(self, x):
            return x

    with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented for NoInit"):
        NoInit()(axle.randn(2))
    # an unbatched input to LazyInstanceNorm1d: num_features is dim 1 (torch's), then the forward fails
    a, t = _both("LazyInstanceNorm1d", ())
    with pytest.raises(RuntimeError):
        t(torch.randn(3, 5))
    with pytest.raises(RuntimeError):
        a(axle.randn(3, 5))
    assert tuple(a.weight.shape) == tuple(t.weight.shape) == (5,)
    with pytest.raises(RuntimeError, match="can't be used with `DataParallel`"):
        nn.LazyLinear(2)._replicate_for_data_parallel()


@pytest.mark.parametrize("name,args,shape", [("Conv1d", (2, 3, 3), (2, 7)), ("Conv2d", (2, 3, 3, 1, 1, 1, 1, True,
                                                                                        "reflect"), (2, 5, 5)),
                                             ("ConvTranspose1d", (2, 3, 3, 2), (2, 4)),
                                             ("ConvTranspose2d", (2, 3, 2), (2, 3, 3))])
def test_unbatched_convolutions(name, args, shape):
    t = getattr(torch.nn, name)(*args).double()
    a = getattr(nn, name)(*args).double()
    a.load_state_dict({k: A(v) for k, v in t.state_dict().items()})
    x = torch.randn(shape, dtype=torch.float64)
    np.testing.assert_allclose(N(a(A(x))), t(x).detach().numpy(), rtol=1e-10, atol=1e-12)


def test_lazy_copy_and_pickle():
    import pickle
    for m in (nn.Sequential(nn.LazyLinear(3), nn.LazyBatchNorm1d()), nn.LazyConv2d(3, 2)):
        for clone in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
            assert clone.state_dict().keys() == m.state_dict().keys()
            assert all(is_lazy(v) for k, v in clone.state_dict().items() if "num_batches" not in k)
            clone(axle.randn(2, 2, 5, 5) if isinstance(m, nn.LazyConv2d) else axle.randn(4, 5))
            assert not any(is_lazy(v) for v in clone.state_dict().values())
        assert any(is_lazy(v) for v in m.state_dict().values())  # the original stays lazy
    assert nn.UninitializedParameter is UninitializedParameter and nn.UninitializedBuffer is UninitializedBuffer
    assert torch.nn.UninitializedParameter is torch.nn.parameter.UninitializedParameter


def test_optimizer_made_before_the_first_forward():
    # the parameters keep their identity when they materialize, so an optimizer built on the lazy ones works
    axle.manual_seed(3)
    model = nn.Sequential(nn.LazyLinear(8), nn.Tanh(), nn.LazyLinear(1))
    opt = axle.optim.Adam(model.parameters(), lr=0.05)
    x = axle.randn(32, 3)
    y = x.sum(1, keepdim=True)
    losses = []
    for _ in range(40):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.2 * losses[0]
