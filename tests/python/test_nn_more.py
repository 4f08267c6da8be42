"""AdaptiveLogSoftmaxWithLoss, CrossMapLRN2d, Container, SyncBatchNorm, DataParallel,
fractional max pooling (2-d and 3-d) and F.multi_head_attention_forward against torch 1.13:
values (float64 to 1e-10, float32 to 1e-5), gradients, shapes, dtypes, reprs, state dicts and
torch's errors."""
import warnings

import numpy as np
import pytest

import axle
import axle.nn.functional as AF
from axle import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional
TOL = dict(rtol=1e-10, atol=1e-12)


def A(t, requires_grad=False):
    a = axle.from_numpy(t.detach().numpy().copy())
    return a.requires_grad_(True) if requires_grad else a


def N(a):
    return np.array(a.detach().numpy())


def randn(*shape, seed=0, dtype=torch.float64):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).to(dtype)


def copy_state(a, t):
    a.load_state_dict({k: A(v) for k, v in t.state_dict().items()})


# ---------------------------------------------------------------- AdaptiveLogSoftmaxWithLoss
@pytest.mark.parametrize("cutoffs,div,head_bias", [([3, 6], 4.0, False), ([2], 2.0, True), ([1, 4, 7, 8], 1.5, True)])
def test_adaptive_log_softmax(cutoffs, div, head_bias):
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(16, 10, cutoffs, div_value=div, head_bias=head_bias).double()
    a = nn.AdaptiveLogSoftmaxWithLoss(16, 10, cutoffs, div_value=div, head_bias=head_bias).double()
    assert repr(a) == repr(t)
    assert list(a.state_dict()) == list(t.state_dict())
    assert (a.shortlist_size, a.n_clusters, a.head_size, a.cutoffs) == (t.shortlist_size, t.n_clusters, t.head_size,
                                                                         t.cutoffs)
    copy_state(a, t)
    x = randn(12, 16, seed=1)
    target = torch.tensor([0, 9, 3, 5, 7, 1, 2, 8, 6, 4, 9, 0])
    rt = t(x, target)
    ra = a(A(x), A(target))
    assert type(ra).__name__ == "_ASMoutput" and ra._fields == ("output", "loss")
    np.testing.assert_allclose(N(ra.output), rt.output.detach().numpy(), **TOL)
    np.testing.assert_allclose(N(ra.loss), rt.loss.detach().numpy(), **TOL)
    rt.loss.backward()
    ra.loss.backward()
    for (k, pa), (_, pt) in zip(a.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(N(pa.grad), pt.grad.numpy(), err_msg=k, **TOL)
    np.testing.assert_allclose(N(a.log_prob(A(x))), t.log_prob(x).detach().numpy(), **TOL)
    np.testing.assert_array_equal(N(a.predict(A(x))), t.predict(x).numpy())
    # unbatched: 1-D input and 0-D target
    r1t, r1a = t(x[3], target[3]), a(A(x[3]), A(target[3]))
    assert tuple(r1a.output.shape) == tuple(r1t.output.shape) == ()
    np.testing.assert_allclose(N(r1a.output), r1t.output.detach().numpy(), **TOL)


def test_adaptive_log_softmax_predict_paths():
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2], head_bias=True).double()
    a = nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2], head_bias=True).double()
    for bias in ([5.0, 5.0, -5.0], [-5.0, -5.0, 5.0], [0.0, 0.0, 0.0]):  # all shortlist / all tail / mixed
        with torch.no_grad():
            t.head.bias.copy_(torch.tensor(bias, dtype=torch.float64))
        copy_state(a, t)
        x = randn(20, 4, seed=2) * 3
        np.testing.assert_array_equal(N(a.predict(A(x))), t.predict(x).numpy())


@pytest.mark.parametrize("cutoffs", [[], [0, 2], [3, 2], [2, 2], [2, 10], [2.5]])
def test_adaptive_log_softmax_bad_cutoffs(cutoffs):
    with pytest.raises(ValueError) as et:
        torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs)
    with pytest.raises(ValueError) as ea:
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs)
    assert str(ea.value) == str(et.value)


def test_adaptive_log_softmax_bad_inputs():
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])
    a = nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])
    cases = [((3, 4), [0, 1], "Input and target should have the same size in the batch dimension"),
             ((3, 2, 4), [0, 1, 2], "1D target tensor expects 2D input tensors"),
             ((2, 4), 1, "0D target tensor expects 1D input tensors"),
             ((2, 4), [[0, 1]], "0D or 1D target tensor expected, multi-target not supported"),
             ((3, 4), [0, 6, 1], r"Target values should be in \[0, 5\], but values in range \[0, 6\] were found")]
    for shape, target, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            t(torch.randn(shape), torch.tensor(target))
        with pytest.raises((RuntimeError, IndexError), match=msg):
            a(axle.randn(*shape), axle.tensor(target))


# ---------------------------------------------------------------- CrossMapLRN2d
@pytest.mark.parametrize("size", [2, 3, 4, 5, 7])
@pytest.mark.parametrize("channels", [1, 3, 6])
def test_cross_map_lrn2d(size, channels):
    t, a = torch.nn.CrossMapLRN2d(size, 0.3, 0.75, 1.5), nn.CrossMapLRN2d(size, 0.3, 0.75, 1.5)
    assert repr(a) == repr(t)
    x = randn(2, channels, 3, 4, seed=size).requires_grad_()
    xa = A(x, True)
    yt, ya = t(x), a(xa)
    np.testing.assert_allclose(N(ya), yt.detach().numpy(), **TOL)
    w = randn(*yt.shape, seed=9)
    gt, = torch.autograd.grad((yt * w).sum(), x)
    ga, = axle.autograd.grad((ya * A(w)).sum(), xa)
    np.testing.assert_allclose(N(ga), gt.numpy(), **TOL)
    y32 = a(A(x.float()))
    assert y32.dtype == axle.float32
    np.testing.assert_allclose(N(y32), t(x.float()).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_cross_map_lrn2d_needs_4d():
    with pytest.raises(AssertionError):
        torch.nn.CrossMapLRN2d(3)(torch.randn(2, 3, 4))
    with pytest.raises(axle.ShapeError, match="CrossMapLRN2d: expected a 4-D input"):
        nn.CrossMapLRN2d(3)(axle.randn(2, 3, 4))


# ---------------------------------------------------------------- Container
def test_container():
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        t = torch.nn.Container(a=torch.nn.Linear(2, 3), b=torch.nn.ReLU())
    with warnings.catch_warnings(record=True) as wa:
        warnings.simplefilter("always")
        a = nn.Container(a=nn.Linear(2, 3), b=nn.ReLU())
    assert [(w.category, str(w.message)) for w in wa] == [(w.category, str(w.message)) for w in wt]
    assert repr(a) == repr(t) and list(a.state_dict()) == list(t.state_dict())
    assert isinstance(a, nn.Module) and [n for n, _ in a.named_children()] == ["a", "b"]


# ---------------------------------------------------------------- SyncBatchNorm
def test_sync_batch_norm_without_process_group():
    for kw in [{}, dict(eps=1e-3, momentum=None, affine=False, track_running_stats=False)]:
        t, a = torch.nn.SyncBatchNorm(3, **kw), nn.SyncBatchNorm(3, **kw)
        assert repr(a) == repr(t) and list(a.state_dict()) == list(t.state_dict())
        assert a.process_group is None
        for mode in ("train", "eval"):
            getattr(t, mode)(), getattr(a, mode)()
            with pytest.raises(ValueError, match="SyncBatchNorm expected input tensor to be on GPU"):
                t(torch.randn(4, 3))
            with pytest.raises(ValueError, match="SyncBatchNorm expected input tensor to be on GPU"):
                a(axle.randn(4, 3))
    with pytest.raises(ValueError, match="SyncBatchNorm expected input tensor to be on GPU"):
        a(axle.randn(4))  # the device check comes first, as torch's


def test_convert_sync_batchnorm():
    def build(m):
        return m.Sequential(m.Conv2d(2, 4, 1), m.BatchNorm2d(4), m.Sequential(m.BatchNorm1d(3, affine=False)),
                            m.ReLU())
    t, a = build(torch.nn), build(nn)
    a[1].running_mean.fill_(0.25)
    bn = a[1]
    ct = torch.nn.SyncBatchNorm.convert_sync_batchnorm(t, process_group="pg")
    ca = nn.SyncBatchNorm.convert_sync_batchnorm(a, process_group="pg")
    assert repr(ca) == repr(ct) and list(ca.state_dict()) == list(ct.state_dict())
    assert (ca is a) == (ct is t) is True
    assert ca[1].weight is bn.weight and ca[1].running_mean is bn.running_mean and ca[1].process_group == "pg"
    assert type(ca[1]) is nn.SyncBatchNorm and type(ca[2][0]) is nn.SyncBatchNorm
    np.testing.assert_array_equal(N(ca[1].running_mean), np.full(4, 0.25, np.float32))
    single = nn.BatchNorm3d(5)
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(single)
    assert converted is not single and converted.weight is single.weight
    assert converted.running_var is single.running_var


# ---------------------------------------------------------------- DataParallel (no CUDA device here)
@pytest.mark.skipif(axle.cuda.is_available(), reason="torch 1.13's CPU-only behaviour")
def test_data_parallel_without_cuda():
    lin_t, lin_a = torch.nn.Linear(3, 2), nn.Linear(3, 2)
    for kw in [{}, dict(device_ids=[0, 1], output_device=1, dim=1)]:
        t, a = torch.nn.DataParallel(lin_t, **kw), nn.DataParallel(lin_a, **kw)
        assert repr(a) == repr(t) and list(a.state_dict()) == list(t.state_dict()) == ["module.weight", "module.bias"]
        assert a.module is lin_a and a.device_ids == t.device_ids == []
        assert hasattr(a, "dim") == hasattr(t, "dim") == hasattr(a, "output_device") == False  # noqa: E712
        x = axle.randn(4, 3)
        np.testing.assert_array_equal(N(a(x)), N(lin_a(x)))
        assert [p is q for p, q in zip(a.parameters(), lin_a.parameters())] == [True, True]
    assert nn.parallel.DataParallel is nn.DataParallel
    # a DataParallel state dict loads into a DataParallel-wrapped module, and with module. stripped, into the module
    other = nn.DataParallel(nn.Linear(3, 2))
    other.load_state_dict(nn.DataParallel(lin_a).state_dict())
    np.testing.assert_array_equal(N(other.module.weight), N(lin_a.weight))


# ---------------------------------------------------------------- fractional max pooling
FRAC2 = [((2, 3, 7, 8), (2, 3), dict(output_size=(3, 4))), ((2, 3, 9, 9), 3, dict(output_size=(5, 7))),
         ((1, 2, 6, 6), 2, dict(output_size=1)), ((3, 5, 6), 2, dict(output_size=(4, 3))),
         ((2, 2, 10, 7), (3, 2), dict(output_ratio=0.5)), ((2, 2, 10, 7), 2, dict(output_ratio=(0.3, 0.8))),
         ((1, 1, 5, 5), 2, dict(output_size=(0, 2)))]


@pytest.mark.parametrize("shape,kernel,kw", FRAC2)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_fractional_max_pool2d(shape, kernel, kw, dtype):
    x = randn(*shape, seed=len(shape), dtype=dtype).requires_grad_()
    s = torch.rand(shape[0] if len(shape) == 4 else 1, shape[-3], 2, dtype=dtype,
                   generator=torch.Generator().manual_seed(5))
    yt, it = TF.fractional_max_pool2d(x, kernel, return_indices=True, _random_samples=s, **kw)
    xa = A(x, True)
    ya, ia = AF.fractional_max_pool2d(xa, kernel, return_indices=True, _random_samples=A(s), **kw)
    np.testing.assert_array_equal(N(ya), yt.detach().numpy())
    np.testing.assert_array_equal(N(ia), it.numpy())
    assert ia.dtype == axle.int64 and ya.dtype == A(x).dtype
    if yt.numel():
        w = randn(*yt.shape, seed=3, dtype=dtype)
        gt, = torch.autograd.grad((yt * w).sum(), x)
        ga, = axle.autograd.grad((ya * A(w)).sum(), xa)
        np.testing.assert_allclose(N(ga), gt.numpy(), **TOL)
    # the module, with the samples as its buffer
    mt = torch.nn.FractionalMaxPool2d(kernel, _random_samples=s, **kw)
    ma = nn.FractionalMaxPool2d(kernel, _random_samples=A(s), **kw)
    assert repr(ma) == repr(mt) and list(ma.state_dict()) == list(mt.state_dict())
    np.testing.assert_array_equal(N(ma(A(x))), mt(x).detach().numpy())


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("shape,kernel,out", [((2, 3, 7, 8, 9), (2, 3, 2), (4, 5, 3)), ((2, 5, 6, 7), 2, (3, 4, 5)),
                                              ((1, 1, 4, 4, 4), 1, (3, 3, 3))])
def test_fractional_max_pool3d(dtype, shape, kernel, out):
    x = randn(*shape, seed=1, dtype=dtype).requires_grad_()
    s = torch.rand(shape[0] if len(shape) == 5 else 1, shape[-4], 3, dtype=dtype,
                   generator=torch.Generator().manual_seed(6))
    yt, it = TF.fractional_max_pool3d(x, kernel, out, return_indices=True, _random_samples=s)
    xa = A(x, True)
    ya, ia = AF.fractional_max_pool3d(xa, kernel, out, return_indices=True, _random_samples=A(s))
    np.testing.assert_array_equal(N(ya), yt.detach().numpy())
    np.testing.assert_array_equal(N(ia), it.numpy())
    w = randn(*yt.shape, seed=3, dtype=dtype)
    gt, = torch.autograd.grad((yt * w).sum(), x)
    ga, = axle.autograd.grad((ya * A(w)).sum(), xa)
    np.testing.assert_allclose(N(ga), gt.numpy(), **TOL)
    mt = torch.nn.FractionalMaxPool3d(kernel, out, _random_samples=s)
    ma = nn.FractionalMaxPool3d(kernel, out, _random_samples=A(s))
    np.testing.assert_array_equal(N(ma(A(x))), mt(x).detach().numpy())


def test_fractional_ties_and_nan():
    x = torch.zeros(1, 1, 6, 6, dtype=torch.float64)
    x[0, 0, 1, 1] = x[0, 0, 4, 4] = float("nan")
    x[0, 0, 2, 3] = 1.0
    x[0, 0, 3, 2] = 1.0
    s = torch.tensor([[[0.3, 0.7]]], dtype=torch.float64)
    for k, o in [(2, 3), (3, 2), (4, 3)]:
        yt, it = TF.fractional_max_pool2d(x, k, o, return_indices=True, _random_samples=s)
        ya, ia = AF.fractional_max_pool2d(A(x), k, o, return_indices=True, _random_samples=A(s))
        np.testing.assert_array_equal(N(ya), yt.numpy())
        np.testing.assert_array_equal(N(ia), it.numpy())


def test_fractional_random_samples_default():
    axle.manual_seed(0)
    x = axle.randn(2, 3, 9, 9)
    y = AF.fractional_max_pool2d(x, 2, output_ratio=0.5)
    assert tuple(y.shape) == (2, 3, 4, 4)
    # every output is one of the inputs of its plane, and a window's maximum is at least its first element
    y, i = AF.fractional_max_pool2d(x, 2, (4, 4), return_indices=True)
    np.testing.assert_array_equal(N(y), np.take_along_axis(N(x).reshape(2, 3, -1), N(i).reshape(2, 3, -1),
                                                           2).reshape(2, 3, 4, 4))


FRAC_ERRORS = [
    (dict(kernel=3, output_size=(6, 6)), RuntimeError, axle.ShapeError,
     "fractional_max_pool2d\\(\\): pool height 3 too large relative to input height 7"),
    (dict(kernel=(2, 3, 1), output_size=(3, 4)), RuntimeError, axle.ValueError,
     "fractional_max_pool2d: kernel_size must either be a single Int or tuple of Ints"),
    (dict(kernel=2, output_size=(3, 4, 4)), RuntimeError, axle.ValueError,
     "fractional_max_pool2d: output_size must either be a single Int or tuple of Ints"),
    (dict(kernel=2), ValueError, axle.ValueError,
     "fractional_max_pool2d requires specifying either an output_size or an output_ratio"),
    (dict(kernel=2, output_size=(2, 2), samples="double"), RuntimeError, axle.DTypeError,
     "expected scalar type"),
]


@pytest.mark.parametrize("kw,texc,aexc,msg", FRAC_ERRORS)
def test_fractional_errors(kw, texc, aexc, msg):
    x = randn(2, 3, 7, 8, dtype=torch.float32)
    kw = dict(kw)
    kernel = kw.pop("kernel")
    s = kw.pop("samples", None)
    st = torch.rand(2, 3, 2, dtype=torch.float64) if s == "double" else None
    with pytest.raises(texc, match=msg):
        TF.fractional_max_pool2d(x, kernel, _random_samples=st, **kw)
    with pytest.raises(aexc, match=msg):
        AF.fractional_max_pool2d(A(x), kernel, _random_samples=None if st is None else A(st), **kw)


def test_fractional_module_errors_and_axle_checks():
    for kw, msg in [(dict(output_ratio=1.5), "output_ratio must be between 0 and 1 \\(got 1.5\\)"),
                    ({}, "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio"),
                    (dict(output_size=3, output_ratio=0.5),
                     "only one of output_size and output_ratio may be specified")]:
        with pytest.raises(ValueError, match=msg):
            torch.nn.FractionalMaxPool2d(2, **kw)
        with pytest.raises(ValueError, match=msg):
            nn.FractionalMaxPool2d(2, **kw)
    with pytest.raises(RuntimeError, match="fractional_max_pool3d_out\\(\\): pool time 2 too large relative to input "
                                           "time 5"):
        TF.fractional_max_pool3d(torch.randn(2, 3, 5, 6, 7), 2, (5, 5, 6))
    with pytest.raises(axle.ShapeError, match="fractional_max_pool3d_out\\(\\): pool time 2 too large relative to "
                                              "input time 5"):
        AF.fractional_max_pool3d(axle.randn(2, 3, 5, 6, 7), 2, (5, 5, 6))
    for out, msg in [((4, 3, 3), "time"), ((3, 5, 3), "height"), ((3, 3, 6), "width")]:  # 3-d: strictly inside
        with pytest.raises(RuntimeError, match="pool {} 2 too large".format(msg)):
            TF.fractional_max_pool3d(torch.randn(1, 1, 5, 6, 7), 2, out)
        with pytest.raises(axle.ShapeError, match="pool {} 2 too large".format(msg)):
            AF.fractional_max_pool3d(axle.randn(1, 1, 5, 6, 7), 2, out)
    # where torch reads out of bounds (wrong sample shapes or values), axle refuses
    x = axle.randn(2, 3, 7, 8)
    with pytest.raises(axle.ShapeError, match="_random_samples must have shape \\[2, 3, 2\\]"):
        AF.fractional_max_pool2d(x, 2, (3, 3), _random_samples=axle.rand(1, 3, 2))
    with pytest.raises(axle.ValueError, match="_random_samples must lie in \\[0, 1\\)"):
        AF.fractional_max_pool2d(x, 2, (3, 3), _random_samples=axle.full((2, 3, 2), 1.5))
    with pytest.raises(axle.DTypeError):
        AF.fractional_max_pool2d(x.to(axle.int64), 2, (3, 3))

def close(a, t, **tol):
    assert tuple(a.shape) == tuple(t.shape), (tuple(a.shape), tuple(t.shape))
    np.testing.assert_allclose(N(a), t.detach().numpy(), **(tol or TOL))


# ---------------------------------------------------------------- F.multi_head_attention_forward
def _mha_args(seed, e=8, heads=2, kdim=None, bias=True, bias_kv=False):
    g = torch.Generator().manual_seed(seed)
    r = (lambda *s: torch.randn(s, generator=g, dtype=torch.float64))
    kdim = kdim or e
    d = dict(embed_dim_to_check=e, num_heads=heads, in_proj_weight=r(3 * e, e) if kdim == e else None,
             in_proj_bias=r(3 * e) if bias else None, bias_k=r(1, 1, e) if bias_kv else None,
             bias_v=r(1, 1, e) if bias_kv else None, add_zero_attn=False, dropout_p=0.0,
             out_proj_weight=r(e, e), out_proj_bias=r(e) if bias else None)
    if kdim != e:
        d.update(use_separate_proj_weight=True, q_proj_weight=r(e, e), k_proj_weight=r(e, kdim),
                 v_proj_weight=r(e, kdim))
    return d


MHA = [dict(), dict(bias=False), dict(bias_kv=True), dict(kdim=5), dict(extra=dict(add_zero_attn=True)),
       dict(extra=dict(need_weights=False)), dict(extra=dict(average_attn_weights=False)), dict(mask="bool2d"),
       dict(mask="float3d"), dict(mask="kpm"), dict(mask="both", bias_kv=True), dict(static=True),
       dict(unbatched=True), dict(unbatched=True, mask="kpm"), dict(self_attn=True), dict(train_no_dropout=True)]


@pytest.mark.parametrize("case", MHA)
def test_multi_head_attention_forward(case):
    kw = _mha_args(1, kdim=case.get("kdim"), bias=case.get("bias", True), bias_kv=case.get("bias_kv", False))
    kw.update(case.get("extra", {}))
    L, S, B, e, heads = 3, 4, 2, 8, 2
    kdim = case.get("kdim") or e
    q = randn(L, B, e, seed=2)
    k, v = (q, q) if case.get("self_attn") else (randn(S, B, kdim, seed=3), randn(S, B, kdim, seed=4))
    if case.get("self_attn"):
        S = L
    mask = case.get("mask")
    if mask in ("bool2d", "both"):
        kw["attn_mask"] = torch.rand(L, S, generator=torch.Generator().manual_seed(5)) > 0.7
        kw["attn_mask"][:, 0] = False
    if mask == "float3d":
        kw["attn_mask"] = randn(B * heads, L, S, seed=6)
    if mask in ("kpm", "both"):
        kw["key_padding_mask"] = torch.tensor([[False, False, True, True], [False, True, False, False]])
    if case.get("static"):
        kw["static_k"] = randn(B * heads, 5, e // heads, seed=7)
        kw["static_v"] = randn(B * heads, 5, e // heads, seed=8)
    if case.get("unbatched"):
        q, k, v = q[:, 0], k[:, 0], v[:, 0]
        if "key_padding_mask" in kw:
            kw["key_padding_mask"] = kw["key_padding_mask"][0]
    if not case.get("train_no_dropout"):
        kw["training"] = False
    q.requires_grad_()
    conv = {n: (A(t) if isinstance(t, torch.Tensor) else t) for n, t in kw.items()}
    qa = A(q, True)
    ka, va = (qa, qa) if case.get("self_attn") else (A(k), A(v))
    rt = TF.multi_head_attention_forward(q, k if not case.get("self_attn") else q,
                                         v if not case.get("self_attn") else q, **kw)
    ra = AF.multi_head_attention_forward(qa, ka, va, **conv)
    close(ra[0], rt[0])
    if rt[1] is None:
        assert ra[1] is None
    else:
        close(ra[1], rt[1])
    w = randn(*rt[0].shape, seed=9)
    gt, = torch.autograd.grad((rt[0] * w).sum(), q)
    ga, = axle.autograd.grad((ra[0] * A(w)).sum(), qa)
    close(ga, gt)


def test_multi_head_attention_forward_errors():
    kw = _mha_args(1)
    q = randn(3, 2, 8)
    cases = [(dict(q=randn(2, 3, 2, 8)), "query should be unbatched 2D or batched 3D tensor but received 4-D"),
             (dict(k=randn(4, 8)), "For batched \\(3-D\\) `query`, expected `key` and `value` to be 3-D"),
             (dict(kw=dict(embed_dim_to_check=6)), "was expecting embedding dimension of 6, but got 8"),
             (dict(kw=dict(key_padding_mask=torch.zeros(2, 4, 1, dtype=torch.bool))),
              "expected `key_padding_mask` to be `None` or 2-D"),
             (dict(kw=dict(in_proj_weight=None)), "use_separate_proj_weight is False but in_proj_weight is None")]
    for case, msg in cases:
        args = dict(kw, **case.get("kw", {}))
        qq, kk = case.get("q", q), case.get("k", randn(4, 2, 8))
        with pytest.raises(AssertionError, match=msg):
            TF.multi_head_attention_forward(qq, kk, kk, **args)
        with pytest.raises(AssertionError, match=msg):
            AF.multi_head_attention_forward(A(qq), A(kk), A(kk), **{n: A(t) if isinstance(t, torch.Tensor) else t
                                                                    for n, t in args.items()})
    bad = dict(kw, attn_mask=torch.zeros(3, 5, dtype=torch.bool))
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
        TF.multi_head_attention_forward(q, randn(4, 2, 8), randn(4, 2, 8), **bad)
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
        AF.multi_head_attention_forward(A(q), A(randn(4, 2, 8)), A(randn(4, 2, 8)),
                                        **{n: A(t) if isinstance(t, torch.Tensor) else t for n, t in bad.items()})
