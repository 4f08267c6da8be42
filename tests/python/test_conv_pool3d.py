"""3-d pooling, max_unpool3d, transposed 3-d convolution, grid sampling and affine
grids against PyTorch 1.13: values, shapes, dtypes, indices, gradients, errors
(torch raising => axle raises an AxleError, of the builtin class where torch's
is one), warnings, and the modules' reprs, state_dicts and outputs."""
import warnings

import numpy as np
import pytest

import axle
import axle.nn as nn
import axle.nn.functional as AF

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def pair(shape, dtype="float64", seed=0, low=-3.0, high=3.0, layout=None):
    """The same values as an axle and a torch tensor; layout "T" swaps the last two dims'
    storage, "S" takes every other element of the last dim."""
    rng = np.random.default_rng(seed + 7 * len(shape) + sum(shape))
    if dtype.startswith("int"):
        a = rng.integers(-4, 5, shape).astype(dtype)
    else:
        a = rng.uniform(low, high, shape).astype(dtype)
    if layout == "T":
        store = np.ascontiguousarray(np.swapaxes(a, -1, -2))
        return axle.from_numpy(store).transpose(-1, -2), torch.from_numpy(store.copy()).transpose(-1, -2)
    if layout == "S":
        store = np.repeat(a, 2, axis=-1)
        return axle.from_numpy(store)[..., ::2], torch.from_numpy(store.copy())[..., ::2]
    return axle.from_numpy(a.copy()), torch.from_numpy(a.copy())


def close(got, want, tol=1e-6):
    got_l = got if isinstance(got, (tuple, list)) else (got,)
    want_l = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got_l) == len(want_l)
    for g, w in zip(got_l, want_l):
        assert tuple(g.shape) == tuple(w.shape)
        assert g.dtype.name == str(w.dtype).replace("torch.", "")
        np.testing.assert_allclose(np.asarray(g.detach().to(axle.float64)), w.detach().double().numpy(), rtol=tol,
                                   atol=tol)


def same_error(fa, ft):
    try:
        ft()
    except Exception as e:  # noqa: BLE001 - torch raises RuntimeError and builtins
        want = e
    else:
        pytest.fail("torch did not raise")
    with pytest.raises(axle.AxleError) as got:
        fa()
    for builtin in (IndexError, ValueError, TypeError, NotImplementedError):
        if isinstance(want, builtin):
            assert isinstance(got.value, builtin), (got.value, want)


def grads_match(fa, ft, *shapes, tol=1e-6, seed=0):
    """fa(*axle leaves) and ft(*torch leaves): outputs and gradients of sum(out * v) agree."""
    leaves = [pair(s, seed=seed + i) for i, s in enumerate(shapes)]
    al = [a.requires_grad_() for a, _ in leaves]
    tl = [t.requires_grad_() for _, t in leaves]
    ya, yt = fa(*al), ft(*tl)
    close(ya, yt, tol)
    v = np.random.default_rng(seed).uniform(-1, 1, tuple(yt.shape))
    (ya * axle.from_numpy(v)).sum().backward()
    (yt * torch.from_numpy(v)).sum().backward()
    for a, t in zip(al, tl):
        close(a.grad, t.grad, tol)


# ---------------------------------------------------------------- max_pool3d
MAX_CASES = [  # shape, kwargs
    ((2, 3, 5, 6, 7), dict(kernel_size=2)),
    ((1, 2, 7, 6, 5), dict(kernel_size=(3, 3, 2), stride=(2, 2, 1), padding=(1, 1, 0))),
    ((1, 2, 9, 6, 7), dict(kernel_size=(3, 2, 2), stride=(2, 3, 2), padding=(1, 1, 0), dilation=(2, 1, 2),
                           ceil_mode=True)),
    ((2, 2, 7, 7, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((3, 6, 5, 4), dict(kernel_size=2, stride=1)),
    ((1, 3, 5, 6, 5), dict(kernel_size=3, stride=1, dilation=2)),
    ((0, 3, 4, 4, 4), dict(kernel_size=2)),
]


@pytest.mark.parametrize("shape,kw", MAX_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool3d(shape, kw, dtype):
    a, t = pair(shape, dtype)
    close(AF.max_pool3d(a, **kw), TF.max_pool3d(t, **kw))
    close(AF.max_pool3d(a, return_indices=True, **kw), TF.max_pool3d(t, return_indices=True, **kw))
    close(axle.max_pool3d(a, **kw), torch.max_pool3d(t, **kw))
    close(AF.max_pool3d_with_indices(a, **kw), TF.max_pool3d_with_indices(t, **kw))


@pytest.mark.parametrize("layout", ["T", "S"])
def test_max_pool3d_strided_input(layout):
    a, t = pair((2, 3, 4, 6, 5), layout=layout)
    close(AF.max_pool3d(a, 2, return_indices=True), TF.max_pool3d(t, 2, return_indices=True))


@pytest.mark.parametrize("shape,kw", MAX_CASES[:6])
def test_max_pool3d_gradient(shape, kw):
    grads_match(lambda x: AF.max_pool3d(x, **kw), lambda x: TF.max_pool3d(x, **kw), shape)


MAX_ERRORS = [  # shape, args, kwargs
    ((6, 5, 4), (2,), {}),
    ((2, 3, 0, 5, 4), (2,), {}),
    ((0, 3, 4, 4), (2,), {}),
    ((2, 3, 6, 5, 4), (2, 2, 2), {}),
    ((2, 3, 6, 5, 4), (2, 0), {}),
    ((2, 3, 6, 5, 4), ((2, 2),), {}),
    ((2, 3, 6, 5, 4), (2,), dict(dilation=0)),
    ((1, 1, 3, 3, 3), (4,), {}),
    ((1, 1, 3, 3, 3), (0,), {}),
]


@pytest.mark.parametrize("shape,args,kw", MAX_ERRORS)
def test_max_pool3d_errors(shape, args, kw):
    a, t = pair(shape)
    same_error(lambda: AF.max_pool3d(a, *args, **kw), lambda: TF.max_pool3d(t, *args, **kw))


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_max_pool3d_integer_input_fails(dtype):
    a, t = pair((1, 2, 4, 4, 4), dtype)
    same_error(lambda: AF.max_pool3d(a, 2), lambda: TF.max_pool3d(t, 2))


def test_max_pool3d_bfloat16_fails_as_torch_cpu():
    a, t = pair((1, 2, 4, 4, 4))
    same_error(lambda: AF.max_pool3d(a.to(axle.bfloat16), 2), lambda: TF.max_pool3d(t.bfloat16(), 2))


# ---------------------------------------------------------------- avg_pool3d
AVG_CASES = [
    ((2, 3, 5, 6, 7), dict(kernel_size=2)),
    ((1, 2, 7, 6, 5), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    ((1, 2, 7, 6, 5), dict(kernel_size=3, stride=2, padding=1)),
    ((1, 2, 9, 6, 7), dict(kernel_size=(3, 2, 2), stride=(2, 3, 2), padding=(1, 1, 0), ceil_mode=True)),
    ((2, 2, 7, 7, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ((2, 2, 6, 6, 4), dict(kernel_size=2, divisor_override=3)),
    ((1, 2, 7, 7, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, divisor_override=2)),
    ((3, 6, 5, 4), dict(kernel_size=2, stride=1)),
    ((0, 3, 4, 4, 4), dict(kernel_size=2)),
]


@pytest.mark.parametrize("shape,kw", AVG_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_avg_pool3d(shape, kw, dtype):
    a, t = pair(shape, dtype)
    close(AF.avg_pool3d(a, **kw), TF.avg_pool3d(t, **kw))


@pytest.mark.parametrize("shape,kw", AVG_CASES[:8])
def test_avg_pool3d_gradient(shape, kw):
    grads_match(lambda x: AF.avg_pool3d(x, **kw), lambda x: TF.avg_pool3d(x, **kw), shape)


AVG_ERRORS = [
    ((6, 5, 4), (2,), {}),
    ((2, 0, 6, 5, 4), (2,), {}),
    ((2, 3, 6, 5, 4), (2, 2, 2), {}),
    ((2, 3, 6, 5, 4), (2,), dict(divisor_override=0)),
    ((1, 1, 3, 3, 3), (4,), {}),
    ((1, 1, 3, 3, 3), ((2, 2),), {}),
    ((1, 1, 3, 3, 3), (2, (1, 1)), {}),
]


@pytest.mark.parametrize("shape,args,kw", AVG_ERRORS)
def test_avg_pool3d_errors(shape, args, kw):
    a, t = pair(shape)
    same_error(lambda: AF.avg_pool3d(a, *args, **kw), lambda: TF.avg_pool3d(t, *args, **kw))


def test_avg_pool3d_int32_fails():
    a, t = pair((1, 2, 4, 4, 4), "int32")
    same_error(lambda: AF.avg_pool3d(a, 2), lambda: TF.avg_pool3d(t, 2))


# ---------------------------------------------------------------- adaptive pools
ADAPTIVE_CASES = [
    ((2, 3, 7, 9, 5), (3, 4, 2)),
    ((1, 2, 4, 5, 3), (4, 5, 3)),
    ((1, 2, 3, 5, 4), (5, 8, 7)),
    ((3, 6, 5, 4), (4, 2, 3)),
    ((2, 3, 4, 6, 5), 2),
    ((2, 3, 4, 6, 5), (None, 3, None)),
    ((2, 3, 4, 6, 5), (1, 1, 1)),
    ((0, 3, 4, 6, 5), (2, 2, 2)),
]


@pytest.mark.parametrize("shape,size", ADAPTIVE_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adaptive_pools3d(shape, size, dtype):
    a, t = pair(shape, dtype)
    close(AF.adaptive_avg_pool3d(a, size), TF.adaptive_avg_pool3d(t, size))
    close(AF.adaptive_max_pool3d(a, size), TF.adaptive_max_pool3d(t, size))
    close(AF.adaptive_max_pool3d(a, size, True), TF.adaptive_max_pool3d(t, size, True))
    close(AF.adaptive_max_pool3d_with_indices(a, size), TF.adaptive_max_pool3d_with_indices(t, size))


@pytest.mark.parametrize("shape,size", ADAPTIVE_CASES[:7])
def test_adaptive_pools3d_gradient(shape, size):
    grads_match(lambda x: AF.adaptive_avg_pool3d(x, size), lambda x: TF.adaptive_avg_pool3d(x, size), shape)
    grads_match(lambda x: AF.adaptive_max_pool3d(x, size), lambda x: TF.adaptive_max_pool3d(x, size), shape)


ADAPTIVE_ERRORS = [
    ((6, 5, 4), (2, 2, 2)),
    ((2, 3, 0, 5, 4), (2, 2, 2)),
    ((2, 0, 4, 5, 4), (2, 2, 2)),
    ((2, 3, 6, 5, 4), (2, 2)),
    ((2, 3, 6, 5, 4), (-1, 2, 2)),
]


@pytest.mark.parametrize("shape,size", ADAPTIVE_ERRORS)
def test_adaptive_pools3d_errors(shape, size):
    a, t = pair(shape)
    same_error(lambda: AF.adaptive_avg_pool3d(a, size), lambda: TF.adaptive_avg_pool3d(t, size))
    same_error(lambda: AF.adaptive_max_pool3d(a, size), lambda: TF.adaptive_max_pool3d(t, size))


def test_adaptive_pools3d_integer_input_fails():
    a, t = pair((1, 2, 4, 4, 4), "int64")
    same_error(lambda: AF.adaptive_avg_pool3d(a, 2), lambda: TF.adaptive_avg_pool3d(t, 2))
    same_error(lambda: AF.adaptive_max_pool3d(a, 2), lambda: TF.adaptive_max_pool3d(t, 2))


# ---------------------------------------------------------------- max_unpool3d
@pytest.mark.parametrize("shape,kw,out", [
    ((2, 3, 4, 6, 4), dict(kernel_size=2), None),
    ((1, 2, 7, 7, 7), dict(kernel_size=3, stride=2, padding=1), None),
    ((3, 6, 4, 4), dict(kernel_size=2), None),
    ((2, 3, 4, 6, 4), dict(kernel_size=2), (5, 7, 5)),
    ((2, 3, 4, 6, 4), dict(kernel_size=2), (2, 3, 5, 7, 5)),
])
def test_max_unpool3d_of_max_pool3d(shape, kw, out):
    a, t = pair(shape)
    ya, ia = AF.max_pool3d(a, return_indices=True, **kw)
    yt, it = TF.max_pool3d(t, return_indices=True, **kw)
    close(AF.max_unpool3d(ya, ia, output_size=out, **kw), TF.max_unpool3d(yt, it, output_size=out, **kw))
    if kw.get("stride", kw["kernel_size"]) != kw["kernel_size"]:
        return  # overlapping windows repeat indices: other values than the pool's would race
    grads_match(lambda y: AF.max_unpool3d(y, ia, output_size=out, **kw),
                lambda y: TF.max_unpool3d(y, it, output_size=out, **kw), tuple(yt.shape))


def test_max_unpool3d_errors():
    a, t = pair((1, 2, 2, 2, 2))
    ia = axle.zeros((1, 2, 2, 2, 2), dtype=axle.int64)
    it = torch.zeros((1, 2, 2, 2, 2), dtype=torch.int64)
    same_error(lambda: AF.max_unpool3d(a, ia.to(axle.int32), 2), lambda: TF.max_unpool3d(t, it.int(), 2))
    same_error(lambda: AF.max_unpool3d(a, ia + 64, 2), lambda: TF.max_unpool3d(t, it + 64, 2))
    same_error(lambda: AF.max_unpool3d(a, ia - 1, 2), lambda: TF.max_unpool3d(t, it - 1, 2))
    same_error(lambda: AF.max_unpool3d(a, ia[:, :1], 2), lambda: TF.max_unpool3d(t, it[:, :1], 2))
    same_error(lambda: AF.max_unpool3d(a[0, 0], ia[0, 0], 2), lambda: TF.max_unpool3d(t[0, 0], it[0, 0], 2))
    same_error(lambda: AF.max_unpool3d(a, ia, 2, output_size=(9, 9, 9)),
               lambda: TF.max_unpool3d(t, it, 2, output_size=(9, 9, 9)))
    same_error(lambda: AF.max_unpool3d(a.to(axle.int64), ia, 2), lambda: TF.max_unpool3d(t.long(), it, 2))


def test_max_unpool3d_module():
    a, t = pair((1, 2, 4, 4, 6))
    ya, ia = nn.MaxPool3d(2, return_indices=True)(a)
    yt, it = torch.nn.MaxPool3d(2, return_indices=True)(t)
    am, tm = nn.MaxUnpool3d(2), torch.nn.MaxUnpool3d(2)
    assert repr(am) == repr(tm)
    close(am(ya, ia), tm(yt, it))
    close(am(ya, ia, output_size=(1, 2, 5, 5, 7)), tm(yt, it, output_size=(1, 2, 5, 5, 7)))
    assert repr(nn.MaxUnpool3d((2, 3, 1), 2, 1)) == repr(torch.nn.MaxUnpool3d((2, 3, 1), 2, 1))


# ---------------------------------------------------------------- conv_transpose3d
CT3_CASES = [  # input, weight, bias, kwargs
    ((2, 4, 3, 4, 3), (4, 3, 3, 2, 3), True, {}),
    ((4, 3, 3, 2), (4, 3, 2, 2, 2), True, {}),
    ((1, 4, 3, 3, 2), (4, 2, 2, 3, 2), False, dict(stride=2, padding=1, output_padding=1)),
    ((1, 4, 2, 3, 3), (4, 1, 2, 2, 3), True, dict(stride=(1, 2, 1), padding=(0, 1, 0), output_padding=(0, 1, 0),
                                                  groups=2, dilation=(2, 1, 1))),
    ((1, 2, 2, 2, 2), (2, 2, 2, 2, 2), False, dict(stride=3, dilation=2, output_padding=2)),
    ((0, 4, 3, 3, 3), (4, 3, 2, 2, 2), False, {}),
]


@pytest.mark.parametrize("xs,ws,bias,kw", CT3_CASES)
def test_conv_transpose3d(xs, ws, bias, kw):
    (xa, xt), (wa, wt) = pair(xs), pair(ws, seed=1)
    ba, bt = pair((ws[1] * kw.get("groups", 1),), seed=2) if bias else (None, None)
    close(AF.conv_transpose3d(xa, wa, ba, **kw), TF.conv_transpose3d(xt, wt, bt, **kw))
    close(axle.conv_transpose3d(xa, wa, ba, **kw), torch.conv_transpose3d(xt, wt, bt, **kw))
    if xs[0]:
        shapes = [xs, ws] + ([(ws[1] * kw.get("groups", 1),)] if bias else [])
        grads_match(lambda *v: AF.conv_transpose3d(*v, **kw), lambda *v: TF.conv_transpose3d(*v, **kw), *shapes)


def test_conv_transpose3d_float32_and_int64():
    (xa, xt), (wa, wt) = pair((1, 2, 3, 3, 3), "float32"), pair((2, 3, 2, 2, 2), "float32", seed=1)
    close(AF.conv_transpose3d(xa, wa, stride=2), TF.conv_transpose3d(xt, wt, stride=2), 1e-4)
    (xa, xt), (wa, wt) = pair((1, 2, 3, 3, 3), "int64"), pair((2, 3, 2, 2, 2), "int64", seed=1)
    close(AF.conv_transpose3d(xa, wa, stride=2), TF.conv_transpose3d(xt, wt, stride=2))


CT3_ERRORS = [
    ((2, 4, 3, 3, 3), (4, 3, 2, 2, 2), dict(output_padding=1)),
    ((2, 3, 3, 3, 3), (4, 3, 2, 2, 2), {}),
    ((2, 4, 3, 3), (4, 3, 2, 2, 2), {}),
    ((1, 2, 4, 3, 3, 3), (4, 3, 2, 2, 2), {}),
    ((2, 4, 2, 2, 2), (4, 3, 2, 2, 2), dict(padding=3)),
    ((2, 4, 3, 3, 3), (4, 3, 2, 2, 2), dict(groups=3)),
    ((2, 4, 3, 3, 3), (4, 3, 2, 2, 2), dict(stride=0)),
    ((2, 4, 3, 3, 3), (4, 3, 2, 2, 2), dict(stride=(1, 1))),
    ((2, 4, 3, 3, 3), (4, 3, 2, 2, 2), dict(dilation=0)),
]


@pytest.mark.parametrize("xs,ws,kw", CT3_ERRORS)
def test_conv_transpose3d_errors(xs, ws, kw):
    (xa, xt), (wa, wt) = pair(xs), pair(ws, seed=1)
    same_error(lambda: AF.conv_transpose3d(xa, wa, **kw), lambda: TF.conv_transpose3d(xt, wt, **kw))


def test_conv_transpose3d_module():
    torch.manual_seed(0)
    for args, kw in [((4, 6, 3), {}), ((4, 6, (3, 2, 2)), dict(stride=2, padding=1, output_padding=1, groups=2,
                                                              bias=False)),
                     ((2, 2, 2), dict(dilation=(1, 2, 1)))]:
        tm = torch.nn.ConvTranspose3d(*args, **kw).double()
        am = nn.ConvTranspose3d(*args, **kw).double()
        assert repr(am) == repr(tm)
        assert list(am.state_dict()) == list(tm.state_dict())
        assert all(tuple(am.state_dict()[k].shape) == tuple(v.shape) for k, v in tm.state_dict().items())
        am.load_state_dict({k: axle.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
        xa, xt = pair((2, args[0], 3, 4, 3))
        close(am(xa), tm(xt))
    tm, am = torch.nn.ConvTranspose3d(2, 2, 3, stride=2).double(), nn.ConvTranspose3d(2, 2, 3, stride=2).double()
    am.load_state_dict({k: axle.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    xa, xt = pair((1, 2, 3, 3, 3))
    close(am(xa, output_size=(8, 7, 8)), tm(xt, output_size=(8, 7, 8)))
    with pytest.raises(ValueError):
        am(xa, output_size=(10, 7, 8))
    with pytest.raises(ValueError):
        nn.ConvTranspose3d(2, 2, 3, padding_mode="reflect")


# ---------------------------------------------------------------- pooling modules
@pytest.mark.parametrize("name,args,kw", [
    ("MaxPool3d", (2,), {}),
    ("MaxPool3d", ((3, 2, 2),), dict(stride=(2, 1, 1), padding=1, dilation=(1, 2, 1), ceil_mode=True)),
    ("MaxPool3d", (3,), dict(stride=2, return_indices=True)),
    ("AvgPool3d", (2,), {}),
    ("AvgPool3d", (3,), dict(stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ("AvgPool3d", ((2, 2, 3),), dict(divisor_override=5)),
    ("AdaptiveAvgPool3d", ((2, 3, None),), {}),
    ("AdaptiveAvgPool3d", (1,), {}),
    ("AdaptiveMaxPool3d", ((2, 3, 2),), {}),
    ("AdaptiveMaxPool3d", (2,), dict(return_indices=True)),
])
def test_pooling_modules(name, args, kw):
    am, tm = getattr(nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(am) == repr(tm)
    assert list(am.state_dict()) == list(tm.state_dict()) == []
    for shape in [(2, 3, 6, 7, 5), (3, 5, 6, 7)]:
        a, t = pair(shape)
        close(am(a), tm(t))


def test_pooling_modules_backward():
    a, t = pair((2, 3, 6, 7, 5))
    a.requires_grad_(), t.requires_grad_()
    ya = (nn.AvgPool3d(2)(nn.MaxPool3d(2, stride=1)(a)) + nn.AdaptiveMaxPool3d((2, 3, 2))(a) +
          nn.AdaptiveAvgPool3d((2, 3, 2))(a))
    yt = (torch.nn.AvgPool3d(2)(torch.nn.MaxPool3d(2, stride=1)(t)) + torch.nn.AdaptiveMaxPool3d((2, 3, 2))(t) +
          torch.nn.AdaptiveAvgPool3d((2, 3, 2))(t))
    ya.sum().backward()
    yt.sum().backward()
    close(a.grad, t.grad)


# ---------------------------------------------------------------- grid_sample
MODES = [(m, p, al) for m in ("bilinear", "nearest", "bicubic") for p in ("zeros", "border", "reflection")
         for al in (False, True)]


@pytest.mark.parametrize("mode,padding,align", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_grid_sample_2d(mode, padding, align, dtype):
    (xa, xt), (ga, gt) = pair((2, 3, 5, 6), dtype), pair((2, 4, 3, 2), dtype, seed=1, low=-1.3, high=1.3)
    close(AF.grid_sample(xa, ga, mode, padding, align), TF.grid_sample(xt, gt, mode, padding, align), 1e-5)
    m, p = ("bilinear", "nearest", "bicubic").index(mode), ("zeros", "border", "reflection").index(padding)
    close(axle.grid_sampler(xa, ga, m, p, align), torch.grid_sampler(xt, gt, m, p, align), 1e-5)


@pytest.mark.parametrize("mode,padding,align", MODES)
def test_grid_sample_2d_gradient(mode, padding, align):
    grads_match(lambda x, g: AF.grid_sample(x, g * 1.3, mode, padding, align),
                lambda x, g: TF.grid_sample(x, g * 1.3, mode, padding, align), (2, 3, 5, 6), (2, 4, 3, 2))


@pytest.mark.parametrize("mode,padding,align", [m for m in MODES if m[0] != "bicubic"])
def test_grid_sample_3d(mode, padding, align):
    (xa, xt), (ga, gt) = pair((2, 2, 3, 4, 5)), pair((2, 2, 3, 2, 3), seed=1, low=-1.3, high=1.3)
    close(AF.grid_sample(xa, ga, mode, padding, align), TF.grid_sample(xt, gt, mode, padding, align))
    grads_match(lambda x, g: AF.grid_sample(x, g * 1.3, mode, padding, align),
                lambda x, g: TF.grid_sample(x, g * 1.3, mode, padding, align), (2, 2, 3, 4, 5), (2, 2, 3, 2, 3))


def test_grid_sample_strided_and_edge_cases():
    (xa, xt), (ga, gt) = pair((1, 2, 5, 4), layout="T"), pair((1, 3, 2, 2), seed=1, layout="S")
    close(AF.grid_sample(xa, ga, align_corners=False), TF.grid_sample(xt, gt, align_corners=False))
    (xa, xt), (ga, gt) = pair((1, 3, 1, 1)), pair((1, 2, 2, 2), seed=1)
    for p in ("zeros", "border", "reflection"):
        close(AF.grid_sample(xa, ga, padding_mode=p, align_corners=True),
              TF.grid_sample(xt, gt, padding_mode=p, align_corners=True))
    (xa, xt), (ga, gt) = pair((2, 0, 4, 5)), pair((2, 3, 4, 2), seed=1)
    close(AF.grid_sample(xa, ga, align_corners=False), TF.grid_sample(xt, gt, align_corners=False))
    (xa, xt), (ga, gt) = pair((0, 3, 4, 5)), pair((0, 3, 4, 2), seed=1)
    close(AF.grid_sample(xa, ga, align_corners=False), TF.grid_sample(xt, gt, align_corners=False))
    # Exactly on pixel centres: nearest and bilinear reproduce the input.
    xa, xt = pair((1, 1, 3, 3))
    ga = axle.tensor([[[[-1.0, -1.0], [0.0, 1.0], [1.0, 0.0]]]], dtype=axle.float64)
    gt = torch.tensor([[[[-1.0, -1.0], [0.0, 1.0], [1.0, 0.0]]]], dtype=torch.float64)
    for m in ("bilinear", "nearest", "bicubic"):
        close(AF.grid_sample(xa, ga, m, align_corners=True), TF.grid_sample(xt, gt, m, align_corners=True))


def test_grid_sample_warns_without_align_corners():
    (xa, xt), (ga, gt) = pair((1, 2, 4, 4)), pair((1, 2, 2, 2), seed=1, low=-1, high=1)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        ya = AF.grid_sample(xa, ga)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(ya, TF.grid_sample(xt, gt))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AF.grid_sample(xa, ga, align_corners=False)


@pytest.mark.parametrize("xs,gs,kw", [
    ((2, 3, 4, 5), (1, 3, 4, 2), {}),
    ((2, 3, 4, 5), (2, 3, 4, 3), {}),
    ((2, 3, 0, 5), (2, 3, 4, 2), {}),
    ((2, 3, 5), (2, 3, 1), {}),
    ((2, 3, 4, 5), (2, 3, 4, 2), dict(mode="linear")),
    ((2, 3, 4, 5), (2, 3, 4, 2), dict(padding_mode="circular")),
    ((2, 2, 3, 4, 5), (2, 2, 3, 2, 3), dict(mode="bicubic")),
    ((2, 2, 3, 4, 5), (2, 2, 3, 2, 2), {}),
])
def test_grid_sample_errors(xs, gs, kw):
    (xa, xt), (ga, gt) = pair(xs), pair(gs, seed=1)
    same_error(lambda: AF.grid_sample(xa, ga, align_corners=False, **kw),
               lambda: TF.grid_sample(xt, gt, align_corners=False, **kw))


def test_grid_sample_dtypes():
    (xa, xt), (ga, gt) = pair((1, 2, 3, 3)), pair((1, 2, 2, 2), seed=1)
    same_error(lambda: AF.grid_sample(xa, ga.to(axle.float32), align_corners=False),
               lambda: TF.grid_sample(xt, gt.float(), align_corners=False))
    same_error(lambda: AF.grid_sample(xa.to(axle.int64), ga.to(axle.int64), align_corners=False),
               lambda: TF.grid_sample(xt.long(), gt.long(), align_corners=False))
    same_error(lambda: AF.grid_sample(xa.to(axle.bfloat16), ga.to(axle.bfloat16), align_corners=False),
               lambda: TF.grid_sample(xt.bfloat16(), gt.bfloat16(), align_corners=False))


def test_grid_sampler_aten_forms():
    (xa, xt), (ga, gt) = pair((2, 3, 5, 6)), pair((2, 4, 3, 2), seed=1, low=-1.2, high=1.2)
    close(axle.grid_sampler_2d(xa, ga, 2, 1, True), torch.grid_sampler_2d(xt, gt, 2, 1, True))
    (xa, xt), (ga, gt) = pair((2, 2, 3, 4, 5)), pair((2, 2, 3, 2, 3), seed=1, low=-1.2, high=1.2)
    close(axle.grid_sampler_3d(xa, ga, 0, 2, False), torch.grid_sampler_3d(xt, gt, 0, 2, False))
    close(axle.grid_sampler(xa, ga, 1, 0, True), torch.grid_sampler(xt, gt, 1, 0, True))


# ---------------------------------------------------------------- affine_grid
@pytest.mark.parametrize("ts,size", [
    ((2, 2, 3), (2, 3, 4, 5)),
    ((1, 2, 3), (1, 1, 1, 6)),
    ((2, 3, 4), (2, 3, 2, 4, 3)),
    ((1, 3, 4), (1, 1, 3, 1, 2)),
])
@pytest.mark.parametrize("align", [False, True])
def test_affine_grid(ts, size, align):
    a, t = pair(ts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unit sizes with align_corners warn, in both
        close(AF.affine_grid(a, size, align), TF.affine_grid(t, size, align))
    close(axle.affine_grid_generator(a, list(size), align), torch.affine_grid_generator(t, list(size), align))
    grads_match(lambda th: AF.affine_grid(th, size, align), lambda th: TF.affine_grid(th, size, align), ts)


def test_affine_grid_float32_and_warnings():
    a, t = pair((2, 2, 3), "float32")
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        ya = AF.affine_grid(a, (2, 1, 3, 4))
    close(ya, TF.affine_grid(t, (2, 1, 3, 4), False))
    with pytest.warns(UserWarning, match="unit-size grids"):
        AF.affine_grid(a, (2, 1, 1, 4), True)


@pytest.mark.parametrize("ts,size,dtype", [
    ((2, 3, 3), (2, 3, 4, 5), "float64"),
    ((2, 2, 3), (2, 3, 4, 5, 6), "float64"),
    ((2, 2, 3), (2, 3, 4), "float64"),
    ((2, 2, 3), (2, 3, 0, 5), "float64"),
    ((2, 2, 3), (2, 3, 4, 5), "int64"),
])
def test_affine_grid_errors(ts, size, dtype):
    a, t = pair(ts, dtype)
    same_error(lambda: AF.affine_grid(a, size, False), lambda: TF.affine_grid(t, size, False))


def test_affine_grid_then_grid_sample_identity():
    theta_a = axle.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=axle.float64)
    xa, xt = pair((1, 2, 4, 5))
    grid = AF.affine_grid(theta_a, (1, 2, 4, 5), align_corners=False)
    close(AF.grid_sample(xa, grid, align_corners=False), xt)


# ---------------------------------------------------------------- the cpu plugin (oneDNN)
@pytest.mark.skipif(not any(p["name"] == "cpu" and p["status"] != "rejected" for p in axle.plugins()),
                    reason="the cpu plugin is not built")
@pytest.mark.parametrize("layout", [None, "T"])
def test_cpu_plugin_serves_float32_pool3d(layout):
    a, t = pair((2, 3, 6, 7, 5), "float32", layout=layout)
    cases = [(lambda x: AF.max_pool3d(x, 3, 2, 1), lambda x: TF.max_pool3d(x, 3, 2, 1), "max_pool3d"),
             (lambda x: AF.avg_pool3d(x, 3, 2, 1), lambda x: TF.avg_pool3d(x, 3, 2, 1), "avg_pool3d"),
             (lambda x: AF.avg_pool3d(x, (2, 3, 2), 1, count_include_pad=False),
              lambda x: TF.avg_pool3d(x, (2, 3, 2), 1, count_include_pad=False), "avg_pool3d")]
    for fa, ft, op in cases:
        with axle.trace() as tr:
            got = fa(a)
        if layout is None:  # oneDNN may decline other strides (the reference kernel serves them)
            assert any(e["op"] == op and e["plugin"] == "cpu" for e in tr.events), op
        close(got, ft(t), 1e-5)
    # ceil_mode and divisor_override go to the reference kernels, still right.
    close(AF.max_pool3d(a, 2, ceil_mode=True), TF.max_pool3d(t, 2, ceil_mode=True), 1e-6)
    close(AF.avg_pool3d(a, 2, divisor_override=3), TF.avg_pool3d(t, 2, divisor_override=3), 1e-5)


@pytest.mark.parametrize("dtype", ["bool", "float16", "int32"])
def test_conv_transpose3d_dtypes_torch_cpu_lacks(dtype):
    x, w = np.ones((1, 2, 3, 3, 3), dtype), np.ones((2, 2, 2, 2, 2), dtype)
    xa, wa = axle.from_numpy(x), axle.from_numpy(w)
    xt, wt = torch.from_numpy(x), torch.from_numpy(w)
    with pytest.raises(RuntimeError) as want:
        torch.conv_transpose3d(xt, wt)
    with pytest.raises(axle.DTypeError) as got:
        axle.conv_transpose3d(xa, wa)
    assert str(want.value) in str(got.value)


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("k,s,p", [(0, 2, 0), (2, 0, 0), (2, 2, 3), (3, 1, -1)])
def test_avg_pool_backward_checks_its_window_as_torch(nd, k, s, p):
    # The backward ops called directly: torch refuses these windows; axle says which.
    x = np.random.default_rng(0).standard_normal((1, 1) + (4,) * nd)
    g = np.ones((1, 1) + (2,) * nd)
    args = ([k] * nd, [s] * nd, [p] * nd, False, False, None)
    op = "avg_pool%dd_backward" % nd
    with pytest.raises(axle.ValueError, match=op):
        getattr(axle, op)(axle.tensor(g), axle.tensor(x), *args)
    with pytest.raises(RuntimeError):
        getattr(torch.ops.aten, op)(torch.tensor(g), torch.tensor(x), *args)
