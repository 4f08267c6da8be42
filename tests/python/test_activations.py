"""The activations family against PyTorch 1.13: values, shapes and dtypes over
dtypes and arguments; where torch raises, axle raises an AxleError."""
import numpy as np
import pytest

import axle
import axle.nn.functional as AF

torch = pytest.importorskip("torch")
TF = torch.nn.functional

DTYPES = ["float32", "float64", "bfloat16", "float16", "int8", "uint8", "int32", "int64", "bool"]
NAN, INF = float("nan"), float("inf")


def make(dtype, shape=(3, 5), seed=0, low=-6.0, high=6.0, special=False):
    """The same values as an axle and a torch tensor."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        a = rng.random(shape) > 0.5
    elif dtype.startswith(("int", "uint")):
        a = rng.integers(0 if dtype == "uint8" else int(low), int(high), shape).astype(dtype)
    else:
        a = rng.uniform(low, high, shape).astype("float32" if dtype in ("bfloat16", "float16") else dtype)
        if special:
            a.flat[:8] = [NAN, INF, -INF, 0.5, 1.5, 2.5, -0.5, -2.5]
    x, t = axle.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if dtype in ("bfloat16", "float16"):
        x, t = x.to(getattr(axle, dtype)), t.to(getattr(torch, dtype))
    return x, t


def check(fa, ft, xs, ts, rtol=None, atol=1e-5):
    try:
        want = ft(*ts)
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        with pytest.raises(axle.AxleError):
            fa(*xs)
        return str(e)
    got = fa(*xs)
    assert got.dtype.name == str(want.dtype).replace("torch.", ""), (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    if rtol is None:
        rtol = {"torch.bfloat16": 1.6e-2, "torch.float16": 1e-3}.get(str(want.dtype), 2e-6)
    if want.dtype == torch.bfloat16:  # torch rounds bfloat16 intermediates; axle rounds once
        atol = max(atol, 1e-2)
    np.testing.assert_allclose(np.asarray(got.to(axle.float64)), want.double().numpy(), rtol=rtol, atol=atol)
    return None


ACTIVATIONS = [
    ("relu6", {}), ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.3}), ("elu", {}),
    ("elu", {"alpha": 0.7}), ("selu", {}), ("celu", {}), ("celu", {"alpha": 0.5}), ("gelu", {}),
    ("gelu", {"approximate": "tanh"}), ("silu", {}), ("mish", {}), ("hardtanh", {}),
    ("hardtanh", {"min_val": -2.5, "max_val": 0.5}), ("hardsigmoid", {}), ("hardswish", {}), ("softplus", {}),
    ("softplus", {"beta": 2, "threshold": 1}), ("softsign", {}), ("threshold", {"threshold": 1.5, "value": -2}),
    ("glu", {}), ("glu", {"dim": 0}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,kwargs", ACTIVATIONS)
def test_activation(name, kwargs, dtype):
    x, t = make(dtype, (4, 6))
    check(lambda a: getattr(AF, name)(a, **kwargs), lambda a: getattr(TF, name)(a, **kwargs), [x], [t])


@pytest.mark.parametrize("name", ["relu", "relu6", "leaky_relu", "elu", "selu", "celu", "silu", "mish", "hardtanh",
                                  "hardsigmoid", "hardswish"])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_inplace_keyword(name, dtype):
    x, t = make(dtype)
    try:
        want = getattr(TF, name)(t, inplace=True)
    except RuntimeError:
        with pytest.raises(axle.AxleError):
            getattr(AF, name)(x, inplace=True)
        return
    got = getattr(AF, name)(x, inplace=True)
    np.testing.assert_allclose(np.asarray(x.to(axle.float64)), t.double().numpy(), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(got.to(axle.float64)), want.double().numpy(), rtol=2e-6, atol=1e-6)


def test_threshold_inplace_positional():
    x, t = make("float32")
    AF.threshold(x, 0.5, 9.0, True)
    TF.threshold(t, 0.5, 9.0, True)
    np.testing.assert_allclose(np.asarray(x), t.numpy())


def test_where_they_live():
    assert not hasattr(axle, "relu6") and hasattr(AF, "relu6")
    assert hasattr(axle, "selu") and hasattr(AF, "selu") and hasattr(axle, "prelu")
    for name in ["relu_", "selu_", "celu_", "threshold_", "leaky_relu_", "elu_", "hardtanh_"]:
        assert hasattr(AF, name)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_prelu(dtype):
    x, t = make(dtype, (2, 3, 4))
    for shape in [(3,), (1,), ()]:
        w, tw = make(dtype, shape, seed=1, low=0, high=1)
        check(AF.prelu, TF.prelu, [x, w], [t, tw])
    for xs, ws in [((2, 3), (2,)), ((), (2,)), ((2, 3), (1, 3))]:
        (x2, t2), (w2, tw2) = make(dtype, xs), make(dtype, ws, seed=2)
        assert check(AF.prelu, TF.prelu, [x2, w2], [t2, tw2]) is not None
    w64, tw64 = make("float64" if dtype != "float64" else "float32", (3,))
    err = check(AF.prelu, TF.prelu, [x, w64], [t, tw64])  # bfloat16 inputs take float64 slopes
    assert (err is None) == (dtype == "bfloat16")


def test_activation_errors():
    x, t = make("float32", (2, 3))
    for fa, ft in [(lambda a: AF.gelu(a, approximate="exact"), lambda a: TF.gelu(a, approximate="exact")),
                   (lambda a: AF.celu(a, 0.0), lambda a: TF.celu(a, 0.0)),
                   (lambda a: AF.glu(a, 1), lambda a: TF.glu(a, 1)),
                   (lambda a: AF.glu(a, 2), lambda a: TF.glu(a, 2))]:
        assert check(fa, ft, [x], [t]) is not None
    u, tu = make("uint8")
    assert check(AF.hardtanh, TF.hardtanh, [u], [tu]) is not None
    i, ti = make("int8")
    assert check(lambda a: AF.threshold(a, 300, 1), lambda a: TF.threshold(a, 300, 1), [i], [ti]) is not None
    # uint8: a negative double threshold overflows; hardtanh's double limits promote instead
    assert check(lambda a: AF.threshold(a, -0.5, 3), lambda a: TF.threshold(a, -0.5, 3), [u], [tu]) is not None
    assert check(lambda a: AF.hardtanh(a, -0.5, 2.5), lambda a: TF.hardtanh(a, -0.5, 2.5), [u], [tu]) is None
    assert check(lambda a: AF.threshold(a, 2.5, -2), lambda a: TF.threshold(a, 2.5, -2), [i], [ti]) is None


CLAMP_ARGS = [(0, 1), (-1.5, 2.5), (None, 2), (1, None), (3, 1), (-2, 3)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_clamp(dtype):
    x, t = make(dtype)
    for lo, hi in CLAMP_ARGS:
        check(lambda a: axle.clamp(a, lo, hi), lambda a: torch.clamp(a, lo, hi), [x], [t])
    lo, tlo = make(dtype, (5,), seed=1, low=-6, high=0 if dtype != "uint8" else 2)
    hi, thi = make(dtype, (3, 1), seed=2, low=0, high=6)
    check(lambda a, b, c: axle.clamp(a, b, c), lambda a, b, c: torch.clamp(a, b, c), [x, lo, hi], [t, tlo, thi])
    check(lambda a, b: axle.clamp(a, max=b), lambda a, b: torch.clamp(a, max=b), [x, hi], [t, thi])
    i32, ti32 = make("int32", (5,), seed=3)
    check(lambda a, b: axle.clamp(a, b), lambda a, b: torch.clamp(a, b), [x, i32], [t, ti32])
    assert check(lambda a: axle.clamp(a), lambda a: torch.clamp(a), [x], [t]) is not None


def test_clamp_nan_and_inplace():
    x, t = make("float32", special=True)
    lo, tlo = make("float32", (5,), seed=1, special=True)
    check(lambda a, b: axle.clamp(a, b), lambda a, b: torch.clamp(a, b), [x, lo], [t, tlo])
    check(lambda a: axle.clamp(a, -1, 1), lambda a: torch.clamp(a, -1, 1), [x], [t])
    x.clamp_(-1, 1)
    t.clamp_(-1, 1)
    np.testing.assert_allclose(np.asarray(x), t.numpy())
    i, ti = make("int64")
    assert check(lambda a: a.clamp_(0.5), lambda a: a.clamp_(0.5), [i], [ti]) is not None
    i8, ti8 = make("int8")
    assert check(lambda a: axle.clamp(a, 300), lambda a: torch.clamp(a, 300), [i8], [ti8]) is not None


@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_extras(dtype):
    x, t = make(dtype, special=True)
    for name in ["isnan", "isinf", "isfinite", "logical_not", "bitwise_not", "round", "nan_to_num"]:
        check(getattr(axle, name), getattr(torch, name), [x], [t])
    check(lambda a: axle.nan_to_num(a, 2.0, 100.0, -7.0), lambda a: torch.nan_to_num(a, 2.0, 100.0, -7.0), [x], [t])
    check(lambda a: axle.nan_to_num(a, neginf=-1.5), lambda a: torch.nan_to_num(a, neginf=-1.5), [x], [t])
    w, tw = make(dtype, low=-500, high=500, seed=4)
    for d in [0, 1, 2, -1, -2]:
        check(lambda a: axle.round(a, decimals=d), lambda a: torch.round(a, decimals=d), [w], [tw])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
def test_div_rounding_mode(dtype, mode):
    x, t = make(dtype, (3, 4), low=-9, high=9)
    y, ty = make(dtype, (4,), seed=1, low=1, high=6)
    n, tn = make("int64" if dtype == "uint8" else dtype, (4,), seed=2, low=-6, high=-1)
    for b, tb in [(y, ty), (n, tn)]:
        check(lambda p, q: axle.div(p, q, rounding_mode=mode), lambda p, q: torch.div(p, q, rounding_mode=mode),
              [x, b], [t, tb])
    check(lambda p: axle.div(p, 3, rounding_mode=mode), lambda p: torch.div(p, 3, rounding_mode=mode), [x], [t])


def test_div_errors():
    a, b = axle.tensor([1, 2]), axle.tensor([0, 1])
    with pytest.raises(axle.AxleError, match="ZeroDivisionError"):
        axle.div(a, b, rounding_mode="floor")
    with pytest.raises(axle.AxleError, match="rounding_mode"):
        axle.div(a, b, rounding_mode="round")


@pytest.mark.parametrize("dtype", DTYPES)
def test_pow_scalar(dtype):
    x, t = make(dtype, low=-4, high=4)
    for e in [2, 3, 0, 0.5, -1.5, -2, True]:
        check(lambda a: axle.pow(a, e), lambda a: torch.pow(a, e), [x], [t], rtol=None if e != -1.5 else 2e-2)
    for base in [2, 2.5, -1.5, 1, True]:
        check(lambda a: axle.pow(base, a), lambda a: torch.pow(base, a), [x], [t])
    y, ty = make(dtype, low=-4, high=4)
    check(lambda a: a.pow_(2), lambda a: a.pow_(2), [y], [ty])


def test_negative_integer_powers_raise():
    with pytest.raises(axle.AxleError, match="negative integer powers"):
        axle.pow(axle.tensor([1, 2]), -1)
    np.testing.assert_array_equal(np.asarray(axle.pow(2, axle.tensor([-1, 2]))), [0, 4])
