"""Convolution and 2-d pooling against PyTorch 1.13: values, shapes, dtypes, memory
format of conv outputs, and errors (torch raising => axle raises an AxleError)."""
import numpy as np
import pytest

import axle
import axle.nn.functional as AF

torch = pytest.importorskip("torch")
TF = torch.nn.functional


class P:
    """One operand made twice from the same numpy data: an axle and a torch tensor,
    laid out as `layout`: None (contiguous), "CL" (channels_last), "T" (last two dims
    transposed) or "S" (every other element of the last dim)."""

    def __init__(self, shape, dtype="float32", layout=None, seed=0):
        rng = np.random.default_rng(seed + 31 * len(shape) + sum(shape))
        base = dtype if dtype not in ("bfloat16", "float16") else "float32"
        shape = tuple(shape)
        if base.startswith("int"):
            a = rng.integers(-4, 4, shape).astype(base)
        elif base == "bool":
            a = rng.random(shape) > 0.5
        else:
            a = rng.uniform(-3, 3, shape).astype(base)
        if layout == "CL":
            store = np.ascontiguousarray(a.transpose(0, 2, 3, 1))
            self.t = torch.from_numpy(store.copy()).permute(0, 3, 1, 2)
            self.a = axle.from_numpy(store).permute(0, 3, 1, 2)
        elif layout == "T":
            store = np.ascontiguousarray(np.swapaxes(a, -1, -2))
            self.t = torch.from_numpy(store.copy()).transpose(-1, -2)
            self.a = axle.from_numpy(store).transpose(-1, -2)
        elif layout == "S":
            store = np.repeat(a, 2, axis=-1)
            self.t = torch.from_numpy(store.copy())[..., ::2]
            self.a = axle.from_numpy(store)[..., ::2]
        else:
            self.t, self.a = torch.from_numpy(a.copy()), axle.from_numpy(a)
        if dtype in ("bfloat16", "float16"):
            self.t, self.a = self.t.to(getattr(torch, dtype)), self.a.to(getattr(axle, dtype))


def pick(args, side):
    return [getattr(x, side) if isinstance(x, P) else x for x in args]


def matrix(cases, first_bad, dtypes):
    """(dtype, case) pairs: valid cases (those before first_bad) with every dtype, bad ones with float32."""
    return [pytest.param(d, c, id=f"{i}-{d}") for i, c in enumerate(cases)
            for d in (dtypes if i < first_bad else ["float32"])]


def check(fa, ft, *args, **kwargs):
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
        rtol, atol = 1e-5, 1e-4
        if w.dtype in (torch.bfloat16, torch.float16):  # torch may round intermediate results
            scale = float(np.abs(want_np).max()) if want_np.size else 0.0
            rtol = 2e-2 if w.dtype == torch.bfloat16 else 2e-3
            atol = rtol * scale
        np.testing.assert_allclose(np.asarray(g.to(axle.float64)), want_np, rtol=rtol, atol=atol)
    return got


# ---------------------------------------------------------------- convolution
CONV2D = [  # input shape, layout, weight shape, bias, kwargs
    ((2, 4, 7, 7), None, (6, 4, 3, 3), True, {}),
    ((4, 7, 6), None, (6, 4, 3, 3), True, {}),
    ((1, 4, 9, 7), None, (6, 2, 3, 2), True, dict(stride=(2, 1), padding=(1, 2), groups=2)),
    ((2, 3, 6, 5), "CL", (4, 3, 3, 3), True, dict(padding=1)),
    ((2, 3, 6, 5), "T", (4, 3, 1, 1), False, dict(stride=2)),
    ((2, 4, 9, 9), "S", (2, 4, 3, 2), False, dict(dilation=(2, 3))),
    ((0, 4, 5, 5), None, (6, 4, 3, 3), True, {}),
    ((2, 4, 7, 6), None, (6, 4, 3, 5), True, dict(padding="same")),
    ((2, 4, 7, 6), "CL", (6, 4, 2, 3), True, dict(padding="same")),
    ((4, 7, 6), None, (6, 4, 4, 4), False, dict(padding="same")),
    ((1, 4, 7, 6), None, (6, 4, 2, 3), False, dict(padding="same", dilation=(2, 3))),
    ((2, 4, 7, 6), None, (6, 2, 3, 3), False, dict(padding="valid", stride=(2, 1), groups=2)),
    # bad inputs
    ((7, 7), None, (6, 4, 3, 3), False, {}),
    ((1, 2, 4, 7, 7), None, (6, 4, 3, 3), False, {}),
    ((2, 4, 7, 7), None, (6, 4, 3, 3), False, dict(groups=3)),
    ((2, 4, 7, 7), None, (6, 4, 3, 3), False, dict(groups=0)),
    ((2, 4, 7, 7), None, (6, 3, 3, 3), False, {}),
    ((2, 4, 7, 7), None, (6, 4, 8, 8), False, {}),
    ((2, 4, 7, 7), None, (6, 4, 3, 3), False, dict(stride=-1)),
    ((2, 4, 7, 7), None, (6, 4, 3, 3), False, dict(padding=-1)),
    ((2, 4, 7, 7), None, (6, 4, 3, 3), False, dict(dilation=0)),
    ((2, 4, 7, 7), None, (6, 4, 3, 3), False, dict(stride=2, padding="same")),
    ((2, 4, 7, 7), None, (6, 4, 3, 3), False, dict(padding="full")),
    ((2, 4, 7, 7), None, (6, 4, 3), False, {}),
]


@pytest.mark.parametrize("dtype,case", matrix(CONV2D, 12, ["float32", "float64", "bfloat16", "int32", "int64",
                                                             "float16", "bool"]))
def test_conv2d(dtype, case):
    shape, layout, wshape, bias, kw = case
    b = P((wshape[0],), dtype, seed=2) if bias else None
    check(AF.conv2d, TF.conv2d, P(shape, dtype, layout), P(wshape, dtype, seed=1), b, **kw)


def test_conv2d_bad_bias_and_dtypes():
    x, w = P((2, 4, 7, 7)), P((6, 4, 3, 3))
    check(AF.conv2d, TF.conv2d, x, w, P((5,)))
    check(AF.conv2d, TF.conv2d, x, w, P((6, 1)))
    check(AF.conv2d, TF.conv2d, x, P((6, 4, 3, 3), "float64"))
    check(AF.conv2d, TF.conv2d, x, w, P((6,), "float64"))


CONV1D = [
    ((2, 4, 9), None, (6, 4, 3), True, {}),
    ((4, 9), None, (6, 4, 3), True, {}),
    ((1, 4, 10), "S", (6, 2, 4), False, dict(stride=2, padding=1, groups=2)),
    ((2, 3, 11), None, (2, 3, 3), True, dict(padding=2, dilation=3)),
    ((2, 4, 9), None, (6, 4, 4), True, dict(padding="same")),
    ((2, 4, 9), None, (6, 4, 2), False, dict(padding="same", dilation=3)),
    ((0, 4, 9), None, (6, 4, 3), False, {}),
    ((2, 4, 7, 7), None, (6, 4, 3), False, {}),
    ((3, 9), None, (6, 4, 3), False, {}),
    ((2, 4, 9), None, (6, 4, 3), False, dict(stride=2, padding="same")),
]


@pytest.mark.parametrize("dtype,case", matrix(CONV1D, 7, ["float32", "float64", "int32", "int64"]))
def test_conv1d(dtype, case):
    shape, layout, wshape, bias, kw = case
    b = P((wshape[0],), dtype, seed=2) if bias else None
    check(AF.conv1d, TF.conv1d, P(shape, dtype, layout), P(wshape, dtype, seed=1), b, **kw)


CONVT = [
    ((2, 4, 5, 5), None, (4, 3, 3, 3), True, {}),
    ((4, 5, 4), None, (4, 3, 3, 3), True, {}),
    ((1, 4, 5, 4), "CL", (4, 3, 3, 2), False, dict(stride=2, padding=1, output_padding=1)),
    ((2, 4, 3, 5), "T", (4, 2, 2, 3), True, dict(stride=(1, 2), padding=(0, 1), output_padding=(0, 1), groups=2,
                                                  dilation=(2, 1))),
    ((0, 4, 5, 5), None, (4, 3, 3, 3), False, {}),
    ((2, 4, 5, 5), None, (4, 3, 3, 3), False, dict(output_padding=1)),
    ((2, 3, 5, 5), None, (4, 3, 3, 3), False, {}),
    ((2, 4, 2, 2), None, (4, 3, 2, 2), False, dict(padding=3)),
    ((2, 4, 5, 5), None, (4, 3, 3, 3), False, dict(groups=3)),
]


# No bfloat16: torch 1.13's CPU conv_transpose2d computes a plain convolution for it (axle does not).
@pytest.mark.parametrize("dtype,case", matrix(CONVT, 5, ["float32", "float64", "int64", "int32", "float16"]))
def test_conv_transpose2d(dtype, case):
    shape, layout, wshape, bias, kw = case
    b = P((wshape[1] * kw.get("groups", 1),), dtype, seed=2) if bias else None
    check(AF.conv_transpose2d, TF.conv_transpose2d, P(shape, dtype, layout), P(wshape, dtype, seed=1), b, **kw)


def test_convolution_nd_and_out():
    x3, w3 = P((1, 2, 4, 5, 3)), P((3, 2, 2, 3, 1))
    check(axle.convolution, torch.convolution, x3, w3, None, [1], [0, 1, 0], [1], False, [0], 1)
    x1, w1 = P((2, 3, 6)), P((3, 2, 4))
    check(axle.convolution, torch.convolution, x1, w1, None, [3], [1], [1], True, [2], 1)
    x, w = P((2, 4, 7, 7)), P((6, 4, 3, 3))
    out = axle.empty(2, 6, 5, 5)
    r = axle.convolution(x.a, w.a, None, [1], [0], [1], False, [0], 1, out=out)
    assert r._same_storage(out)
    np.testing.assert_allclose(np.asarray(out), torch.convolution(x.t, w.t, None, [1], [0], [1], False, [0], 1),
                               rtol=1e-5, atol=1e-4)
    with pytest.raises(axle.ShapeError):  # axle does not resize out tensors
        axle.convolution(x.a, w.a, None, [1], [0], [1], False, [0], 1, out=axle.empty(2, 6, 4, 4))


def test_conv_output_memory_format_follows_torch():
    for xl, wl in [("CL", None), (None, "CL"), (None, None)]:
        x, w = P((2, 3, 6, 5), layout=xl), P((4, 3, 3, 3), layout=wl, seed=1)
        got, want = AF.conv2d(x.a, w.a, padding=1), TF.conv2d(x.t, w.t, padding=1)
        assert tuple(got.stride()) == want.stride()
    x, w = P((2, 4, 7, 6), layout="CL"), P((6, 4, 2, 3), seed=1)  # asymmetric 'same' pads a channels_last copy
    assert tuple(AF.conv2d(x.a, w.a, padding="same").stride()) == TF.conv2d(x.t, w.t, padding="same").stride()


def test_integer_convolution_paths():
    x, w = P((1, 2, 6, 6), "int8"), P((3, 2, 3, 3), "int8", seed=1)
    check(AF.conv2d, TF.conv2d, x, w)  # int8 wraps as torch
    check(AF.conv2d, TF.conv2d, x, w, dilation=2)  # torch: slow_conv_dilated has no int8
    check(AF.conv_transpose2d, TF.conv_transpose2d, x, P((2, 3, 3, 3), "int8"))


# ---------------------------------------------------------------- pooling
MAXPOOL = [
    ((2, 3, 7, 7), None, dict(kernel_size=2)),
    ((2, 3, 7, 7), None, dict(kernel_size=3, stride=2, padding=1)),
    ((1, 2, 9, 6), None, dict(kernel_size=(3, 2), stride=(2, 3), padding=1, dilation=(2, 1), ceil_mode=True)),
    ((2, 3, 7, 7), None, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((3, 6, 5), None, dict(kernel_size=2, stride=1)),
    ((2, 3, 6, 5), "CL", dict(kernel_size=(2, 3), padding=1)),
    ((2, 3, 6, 5), "T", dict(kernel_size=2)),
    ((2, 3, 6, 5), "S", dict(kernel_size=3, stride=1, dilation=2)),
    ((0, 3, 6, 5), None, dict(kernel_size=2)),
    ((6, 5), None, dict(kernel_size=2)),
    ((2, 3, 0, 5), None, dict(kernel_size=2)),
    ((2, 0, 6, 5), None, dict(kernel_size=2)),
    ((2, 3, 6, 5), None, dict(kernel_size=2, padding=2)),
    ((2, 3, 6, 5), None, dict(kernel_size=2, stride=0)),
    ((2, 3, 6, 5), None, dict(kernel_size=2, padding=-1)),
    ((2, 3, 6, 5), None, dict(kernel_size=2, dilation=0)),
    ((1, 1, 3, 3), None, dict(kernel_size=4)),
]


@pytest.mark.parametrize("dtype,case", matrix(MAXPOOL, 9, ["float32", "float64", "bfloat16", "int64", "float16"]))
def test_max_pool2d(dtype, case):
    shape, layout, kw = case
    x = P(shape, dtype, layout)
    check(AF.max_pool2d, TF.max_pool2d, x, **kw)
    check(AF.max_pool2d, TF.max_pool2d, x, return_indices=True, **kw)
    check(axle.max_pool2d, torch.max_pool2d, x, kw["kernel_size"], kw.get("stride", ()), kw.get("padding", 0),
          kw.get("dilation", 1), kw.get("ceil_mode", False))


def test_max_pool_nan_and_ties():
    a = np.zeros((1, 1, 4, 4), dtype="float32")
    a[0, 0, 0, 1] = np.nan
    a[0, 0, 2, 2] = -np.inf
    a[0, 0, 2:, 2:] = -np.inf
    for fa, ft, arg in [(AF.max_pool2d, TF.max_pool2d, 2), (AF.adaptive_max_pool2d, TF.adaptive_max_pool2d, 3)]:
        got = fa(axle.from_numpy(a), arg, return_indices=True)
        want = ft(torch.from_numpy(a.copy()), arg, return_indices=True)
        np.testing.assert_array_equal(np.asarray(got[0]), want[0].numpy())
        np.testing.assert_array_equal(np.asarray(got[1]), want[1].numpy())


AVGPOOL = [
    ((2, 3, 7, 7), None, dict(kernel_size=2)),
    ((2, 3, 7, 6), None, dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    ((1, 2, 9, 6), None, dict(kernel_size=(3, 2), stride=(2, 3), padding=1, ceil_mode=True)),
    ((2, 3, 7, 7), None, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ((2, 3, 7, 7), None, dict(kernel_size=2, divisor_override=3)),
    ((2, 3, 7, 7), None, dict(kernel_size=3, padding=1, divisor_override=-2)),
    ((3, 6, 5), None, dict(kernel_size=2, stride=1)),
    ((2, 3, 6, 5), "CL", dict(kernel_size=(2, 3), padding=1)),
    ((2, 3, 6, 5), "T", dict(kernel_size=2)),
    ((0, 3, 6, 5), None, dict(kernel_size=2)),
    ((6, 5), None, dict(kernel_size=2)),
    ((2, 0, 6, 5), None, dict(kernel_size=2)),
    ((2, 3, 6, 5), None, dict(kernel_size=2, padding=2)),
    ((2, 3, 6, 5), None, dict(kernel_size=2, divisor_override=0)),
    ((1, 1, 3, 3), None, dict(kernel_size=4)),
]


@pytest.mark.parametrize("dtype,case", matrix(AVGPOOL, 10, ["float32", "float64", "bfloat16", "int64", "int32",
                                                              "float16"]))
def test_avg_pool2d(dtype, case):
    shape, layout, kw = case
    check(AF.avg_pool2d, TF.avg_pool2d, P(shape, dtype, layout), **kw)


ADAPTIVE = [
    ((2, 3, 7, 9), None, (3, 4)),
    ((2, 3, 7, 9), None, (7, 9)),
    ((1, 2, 5, 4), None, (8, 11)),
    ((3, 6, 5), None, (4, 2)),
    ((2, 3, 6, 5), "CL", (4, 3)),
    ((2, 3, 6, 5), "T", (2, None)),
    ((2, 3, 6, 5), None, 1),
    ((6, 5), None, 1),
    ((2, 3, 6, 5), None, 0),
    ((0, 3, 6, 5), None, 2),
    ((2, 0, 6, 5), None, 2),
    ((6, 5), None, 2),
    ((2, 3, 0, 5), None, 2),
    ((2, 3, 6, 5), None, (-1, 2)),
]


@pytest.mark.parametrize("dtype,case", matrix(ADAPTIVE, 11, ["float32", "float64", "bfloat16", "int64",
                                                               "float16"]))
def test_adaptive_pools(dtype, case):
    shape, layout, size = case
    x = P(shape, dtype, layout)
    check(AF.adaptive_avg_pool2d, TF.adaptive_avg_pool2d, x, size)
    check(AF.adaptive_max_pool2d, TF.adaptive_max_pool2d, x, size)
    check(AF.adaptive_max_pool2d, TF.adaptive_max_pool2d, x, size, return_indices=True)


def test_namespaces_follow_torch():
    for name in ("conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "convolution"):
        assert hasattr(axle, name) == hasattr(torch, name)
    for name in ("avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "max_pool2d_with_indices"):
        assert not hasattr(axle, name) and hasattr(AF, name)
