"""mm, bmm, addmm, baddbmm, dot, outer, linear against PyTorch 1.13: values, shapes,
dtypes, and errors (torch raising => axle raises an AxleError)."""
import numpy as np
import pytest

import axle
import axle.nn.functional as AF

torch = pytest.importorskip("torch")
TF = torch.nn.functional


class P:
    """One operand made twice from the same numpy data: an axle and a torch tensor."""

    def __init__(self, shape, dtype="float32", layout=None, seed=0):
        rng = np.random.default_rng(seed + 17 * len(shape) + sum(shape))
        base = dtype if dtype not in ("bfloat16", "float16") else "float32"
        if base.startswith("int"):
            a = rng.integers(-5, 5, shape).astype(base)
        elif base == "bool":
            a = rng.random(shape) > 0.5
        else:
            a = rng.uniform(-3, 3, shape).astype(base)
        if layout == "T":  # a transposed view of the swapped data
            a = np.ascontiguousarray(np.swapaxes(a, -1, -2))
        self.t, self.a = torch.from_numpy(a.copy()), axle.from_numpy(a)
        if layout == "T":
            self.t, self.a = self.t.transpose(-1, -2), self.a.transpose(-1, -2)
        if dtype in ("bfloat16", "float16"):
            self.t, self.a = self.t.to(getattr(torch, dtype)), self.a.to(getattr(axle, dtype))


def pick(args, side):
    return [getattr(x, side) if isinstance(x, P) else x for x in args]


def check(fa, ft, *args, rtol=1e-5, atol=1e-5, **kwargs):
    try:
        want = ft(*pick(args, "t"), **kwargs)
    except (RuntimeError, IndexError, ValueError):
        with pytest.raises(axle.AxleError):
            fa(*pick(args, "a"), **kwargs)
        return None
    got = fa(*pick(args, "a"), **kwargs)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert tuple(g.shape) == tuple(w.shape)
        assert g.dtype.name == str(w.dtype).replace("torch.", "")
        want_np = w.double().numpy()
        if w.dtype == torch.bfloat16:  # torch rounds intermediate results to bfloat16
            scale = float(np.abs(want_np).max()) if want_np.size else 0.0
            rtol, atol = 2e-2, 2e-2 * scale
        np.testing.assert_allclose(np.asarray(g.to(axle.float64)), want_np, rtol=rtol, atol=atol)
    return got


DTYPES = ["float32", "float64", "bfloat16", "int8", "int32", "int64", "bool", "float16"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_mm_bmm(dtype):
    check(axle.mm, torch.mm, P((3, 4), dtype), P((4, 5), dtype, seed=1))
    check(axle.mm, torch.mm, P((3, 4), dtype, "T"), P((4, 0), dtype))
    check(axle.mm, torch.mm, P((3, 0), dtype), P((0, 2), dtype))
    check(axle.bmm, torch.bmm, P((2, 3, 4), dtype), P((2, 4, 5), dtype, "T"))
    check(axle.bmm, torch.bmm, P((0, 3, 4), dtype), P((0, 4, 5), dtype))
    check(axle.dot, torch.dot, P((5,), dtype), P((5,), dtype, seed=2))
    check(axle.dot, torch.dot, P((0,), dtype), P((0,), dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "int32", "int64"])
@pytest.mark.parametrize("self_shape", [(3, 5), (5,), (3, 1), ()])
def test_addmm(dtype, self_shape):
    check(axle.addmm, torch.addmm, P(self_shape, dtype), P((3, 4), dtype), P((4, 5), dtype, seed=3))
    check(axle.addmm, torch.addmm, P(self_shape, dtype), P((3, 4), dtype), P((4, 5), dtype, seed=3), beta=2, alpha=3)
    check(axle.addmm, torch.addmm, P(self_shape, dtype), P((3, 4), dtype), P((4, 5), dtype), beta=0.5, alpha=-1.5)
    check(axle.baddbmm, torch.baddbmm, P(self_shape, dtype), P((2, 3, 4), dtype), P((2, 4, 5), dtype), beta=2)


def test_beta_zero_ignores_nan_self():
    nan = np.full((3, 5), np.nan, dtype="float32")
    a, b = P((3, 4)), P((4, 5))
    got = axle.addmm(axle.from_numpy(nan), a.a, b.a, beta=0)
    np.testing.assert_allclose(np.asarray(got), torch.mm(a.t, b.t).numpy(), rtol=1e-5, atol=1e-5)
    got = axle.baddbmm(axle.from_numpy(nan[None]), a.a.unsqueeze(0), b.a.unsqueeze(0), beta=0)
    assert not np.isnan(np.asarray(got)).any()


def test_baddbmm_self_dtype_is_converted():
    check(axle.baddbmm, torch.baddbmm, P((2, 3, 5), "float64"), P((2, 3, 4)), P((2, 4, 5)))
    check(axle.baddbmm, torch.baddbmm, P((2, 3, 5), "int64"), P((2, 3, 4)), P((2, 4, 5)))


BAD = [
    (axle.mm, torch.mm, (P((3, 4)), P((5, 2)))),
    (axle.mm, torch.mm, (P((4,)), P((4, 2)))),
    (axle.mm, torch.mm, (P((3, 4)), P((4, 2), "float64"))),
    (axle.bmm, torch.bmm, (P((2, 3, 4)), P((3, 4, 5)))),
    (axle.bmm, torch.bmm, (P((3, 4)), P((4, 5)))),
    (axle.addmm, torch.addmm, (P((4,)), P((3, 4)), P((4, 5)))),
    (axle.addmm, torch.addmm, (P((1, 3, 5)), P((3, 4)), P((4, 5)))),
    (axle.addmm, torch.addmm, (P((3, 5), "float64"), P((3, 4)), P((4, 5)))),
    (axle.baddbmm, torch.baddbmm, (P((3, 3, 5)), P((2, 3, 4)), P((2, 4, 5)))),
    (axle.baddbmm, torch.baddbmm, (P((3, 5)), P((3, 4)), P((4, 5)))),
    (axle.dot, torch.dot, (P((2, 3)), P((2, 3)))),
    (axle.dot, torch.dot, (P((4,)), P((5,)))),
    (axle.dot, torch.dot, (P((4,)), P((4,), "float64"))),
    (axle.outer, torch.outer, (P((2, 3)), P((3,)))),
    (axle.outer, torch.outer, (P((3,)), P(()))),
]


@pytest.mark.parametrize("fa,ft,args", BAD)
def test_bad_inputs_raise(fa, ft, args):
    with pytest.raises((RuntimeError, IndexError)):
        ft(*pick(args, "t"))
    with pytest.raises(axle.AxleError):
        fa(*pick(args, "a"))


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float32", "int64"), ("int32", "bool"),
                                    ("bool", "bool"), ("float16", "float16")])
def test_outer(dtypes):
    check(axle.outer, torch.outer, P((4,), dtypes[0]), P((5,), dtypes[1]))
    check(axle.outer, torch.outer, P((0,), dtypes[0]), P((3,), dtypes[1]))


LINEAR = [
    ((3, 4), (5, 4), (5,), None),
    ((3, 4), (5, 4), None, None),
    ((4,), (5, 4), (5,), None),
    ((3, 4), (4,), None, None),
    ((4,), (4,), (), None),
    ((3, 4), (4,), (), None),  # addmm path: a 1-d weight fails in torch too
    ((2, 3, 4), (5, 4), (5,), None),
    ((2, 3, 4), (5, 4), (3, 5), None),  # contiguous 3-d: addmm on [6, 4], bias [3, 5] fails
    ((2, 3, 4), (5, 4), (3, 5), "T"),  # non-contiguous: matmul + add_, bias broadcasts
    ((2, 3, 2, 4), (5, 4), (2, 5), None),
    ((3, 4), (4, 5), None, None),
    ((3, 4), (2, 5, 4), None, None),
    ((3, 4), (5, 4), (4,), None),
    ((), (4,), None, None),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("case", LINEAR)
def test_linear(dtype, case):
    ishape, wshape, bshape, layout = case
    bias = None if bshape is None else P(bshape, dtype, seed=5)
    check(AF.linear, TF.linear, P(ishape, dtype, layout), P(wshape, dtype, seed=4), bias)
    assert not hasattr(axle, "linear")  # torch.linear does not exist either


def test_half_is_rejected_on_cpu():
    h = P((2, 2), "float16")
    for fn in (axle.mm, axle.bmm, axle.dot):
        with pytest.raises(axle.DTypeError, match="Half"):
            fn(*(h.a if fn is axle.mm else h.a.unsqueeze(0) if fn is axle.bmm else h.a[0],) * 2)


def test_cpp_like_keywords_and_methods():
    a, b = P((3, 4)), P((4, 5))
    np.testing.assert_allclose(np.asarray(a.a.mm(b.a)), a.t.mm(b.t).numpy(), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(axle.addmm(axle.zeros(5), a.a, mat2=b.a, alpha=2)),
                               torch.addmm(torch.zeros(5), a.t, b.t, alpha=2).numpy(), rtol=1e-5)
