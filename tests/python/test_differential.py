"""A first differential test against PyTorch 1.13 for the ops that exist."""
import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int32", "int64"]


def pair(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 4).astype(dtype)
    return axle.from_numpy(a), torch.from_numpy(a.copy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_broadcast(op, dtype):
    xa, xt = pair((3, 1, 4), dtype, 1)
    ya, yt = pair((5, 4), dtype, 2)
    if op == "div":
        yt = yt + (yt == 0).to(yt.dtype)
        ya = axle.from_numpy(yt.numpy())
    got = np.asarray(getattr(axle, op)(xa, ya))
    want = getattr(torch, op)(xt, yt).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_reduction_matmul(dtype):
    xa, xt = pair((4, 5), dtype, 3)
    np.testing.assert_allclose(np.asarray(axle.neg(xa)), torch.neg(xt).numpy())
    np.testing.assert_allclose(np.asarray(axle.relu(xa)), torch.relu(xt).numpy())
    np.testing.assert_allclose(np.asarray(axle.exp(xa)), torch.exp(xt).numpy(), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(axle.sum(xa, 1)), torch.sum(xt, 1).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(axle.matmul(xa, xa.t())), torch.matmul(xt, xt.t()).numpy(), rtol=1e-5)
    if dtype.startswith("float"):
        np.testing.assert_allclose(np.asarray(axle.mean(xa, 0)), torch.mean(xt, 0).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparisons(op):
    xa, xt = pair((3, 4), "float32", 5)
    ya, yt = pair((4,), "int64", 6)
    np.testing.assert_array_equal(np.asarray(getattr(axle, op)(xa, ya)), getattr(torch, op)(xt, yt).numpy())


UNARY = ["abs", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
         "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "erfc", "floor",
         "ceil", "trunc", "frac", "square", "neg", "relu"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
@pytest.mark.parametrize("op", UNARY)
def test_pointwise_unary_math(op, dtype):
    rng = np.random.default_rng(7)
    if dtype == "bool":
        a = rng.random((3, 5)) > 0.5
    elif dtype.startswith("int"):
        a = rng.integers(-9, 10, (3, 5)).astype(dtype)
    else:
        a = (rng.random((3, 5)) * 1.8 - 0.9).astype(dtype)
    x, t = axle.from_numpy(a), torch.from_numpy(a.copy())
    try:
        want = getattr(torch, op)(t)
    except RuntimeError:
        with pytest.raises(axle.AxleError):
            getattr(axle, op)(x)
        return
    got = getattr(axle, op)(x)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    np.testing.assert_allclose(np.asarray(got.to(axle.float64)), want.double().numpy(), rtol=2e-6, atol=1e-6)


BINARY = ["maximum", "minimum", "atan2", "remainder", "fmod", "pow", "logical_and", "logical_or", "logical_xor",
          "bitwise_and", "bitwise_or", "bitwise_xor", "eq", "lt"]


def sample(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith("int"):
        return rng.integers(-5, 6, shape).astype(dtype)
    return (rng.standard_normal(shape) * 3).astype(dtype)


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "int32"), ("int64", "int64"),
                                    ("int32", "bool"), ("bool", "bool")])
@pytest.mark.parametrize("op", BINARY)
def test_pointwise_binary_math(op, dtypes):
    a, b = sample(dtypes[0], (3, 4), 11), sample(dtypes[1], (4,), 12)
    if op in ("remainder", "fmod") and dtypes[1] != "bool" and not dtypes[1].startswith("float"):
        b = np.where(b == 0, 1, b).astype(b.dtype)  # integer division by zero raises; tested below
    if op == "pow" and dtypes[1].startswith("int"):
        b = np.abs(b).astype(b.dtype)
    x, y = axle.from_numpy(a), axle.from_numpy(b)
    try:
        want = getattr(torch, op)(torch.from_numpy(a.copy()), torch.from_numpy(b.copy()))
    except RuntimeError:
        with pytest.raises(axle.AxleError):
            getattr(axle, op)(x, y)
        return
    got = getattr(axle, op)(x, y)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    np.testing.assert_allclose(np.asarray(got.to(axle.float64)), want.double().numpy(), rtol=2e-6, atol=1e-6)


def test_integer_division_by_zero_raises():
    with pytest.raises(axle.AxleError, match="ZeroDivisionError"):
        axle.remainder(axle.tensor([1, 2]), axle.tensor([0, 1]))
    with pytest.raises(axle.AxleError, match="ZeroDivisionError"):
        axle.fmod(axle.tensor([1]), axle.tensor([0]))
