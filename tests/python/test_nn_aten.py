"""The nn-flavoured torch.* functions axle composes in its nn package (nn/_aten.py, _rnn_functional.py,
_native_norms.py; F.multi_head_attention_forward is in test_nn_more.py) against torch 1.13: values (float64 to 1e-10),
gradients, shapes, dtypes, in-place identity and torch's errors; the random ones by their invariants;
the SyncBatchNorm kernels (CUDA-only in torch) by composing them into torch's training batch norm
and its gradients."""
import numpy as np
import pytest

import axle
import axle.nn.functional as AF

torch = pytest.importorskip("torch")
TF = torch.nn.functional
TOL = dict(rtol=1e-10, atol=1e-12)


def A(t, requires_grad=False):
    if t is None:
        return None
    a = axle.from_numpy(t.detach().numpy().copy())
    return a.requires_grad_(True) if requires_grad else a


def N(a):
    return np.array(a.detach().numpy())


def randn(*shape, seed=0):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def close(a, t, **tol):
    assert tuple(a.shape) == tuple(t.shape), (tuple(a.shape), tuple(t.shape))
    np.testing.assert_allclose(N(a), t.detach().numpy(), **(tol or TOL))


def grads_match(ts, as_, out_t, out_a, seed=7):
    """Gradients of sum(out * w) w.r.t. matching torch / axle leaves."""
    outs_t = out_t if isinstance(out_t, (tuple, list)) else [out_t]
    outs_a = out_a if isinstance(out_a, (tuple, list)) else [out_a]
    loss_t, loss_a = 0, 0
    for i, (ot, oa) in enumerate(zip(outs_t, outs_a)):
        if ot is None or not ot.requires_grad:
            continue
        w = randn(*ot.shape, seed=seed + i)
        loss_t = loss_t + (ot * w).sum()
        loss_a = loss_a + (oa * A(w)).sum()
    gt = torch.autograd.grad(loss_t, ts, allow_unused=True)
    ga = axle.autograd.grad(loss_a, as_, allow_unused=True)
    for x, y in zip(ga, gt):
        if y is None:
            assert x is None or not N(x).any()
        else:
            close(x, y)


# ---------------------------------------------------------------- flat-weight RNN functions and cells
RNNS = [("LSTM", dict(num_layers=2, bidirectional=True, proj_size=2)), ("LSTM", dict(bias=False)),
        ("LSTM", dict(batch_first=True, num_layers=2)), ("GRU", dict(num_layers=2, bidirectional=True)),
        ("GRU", dict(bias=False, batch_first=True)), ("RNN", dict(nonlinearity="tanh", num_layers=2)),
        ("RNN", dict(nonlinearity="relu", bidirectional=True))]


@pytest.mark.parametrize("kind,kw", RNNS)
def test_flat_weight_rnns(kind, kw):
    m = getattr(torch.nn, kind)(3, 4, **kw).double()
    layers, dirs = kw.get("num_layers", 1), 2 if kw.get("bidirectional") else 1
    hsize = kw.get("proj_size", 0) or 4
    x = randn(2, 5, 3, seed=1) if kw.get("batch_first") else randn(5, 2, 3, seed=1)
    h0 = randn(layers * dirs, 2, hsize, seed=2)
    params = [p.detach().requires_grad_() for p in m._flat_weights]
    pa = [A(p, True) for p in params]
    xt, xa = x.requires_grad_(), A(x, True)
    args = (kw.get("bias", True), layers, 0.0, True, dirs == 2, kw.get("batch_first", False))
    if kind == "LSTM":
        c0 = randn(layers * dirs, 2, 4, seed=3)
        rt = torch.lstm(xt, (h0, c0), params, *args)
        ra = axle.lstm(xa, (A(h0), A(c0)), pa, *args)
    else:
        name = "gru" if kind == "GRU" else "rnn_" + kw["nonlinearity"]
        rt = getattr(torch, name)(xt, h0, params, *args)
        ra = getattr(axle, name)(xa, A(h0), pa, *args)
    assert len(ra) == len(rt)
    for a, t in zip(ra, rt):
        close(a, t)
    grads_match([xt] + params, [xa] + pa, rt, ra)


def test_flat_weight_rnn_errors():
    w = [randn(12, 3), randn(12, 4)]
    x, h = randn(5, 2, 3), torch.zeros(1, 2, 4, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="got an incorrect number of RNN parameters"):
        torch.gru(x, h, w[:1], False, 1, 0.0, False, False, False)
    with pytest.raises(ValueError, match="got an incorrect number of RNN parameters"):
        axle.gru(A(x), A(h), [A(w[0])], False, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="Expected more hidden states in stacked_rnn"):
        torch.gru(x, h, w * 2, False, 2, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="Expected more hidden states in stacked_rnn"):
        axle.gru(A(x), A(h), [A(t) for t in w * 2], False, 2, 0.0, False, False, False)
    with pytest.raises(axle.ShapeError, match="packed data must be 2-D"):
        axle.lstm(A(x), A(h), [A(h), A(h)], [A(t) for t in w], False, 1, 0.0, False, False)
    with pytest.raises(ValueError, match="batch_sizes \\[3, 4\\] must be positive, non-increasing"):
        axle.gru(A(randn(7, 3)), axle.tensor([3, 4]), A(randn(1, 4, 4)), [A(t) for t in w], False, 1, 0.0, False,
                 False)


@pytest.mark.parametrize("kind,kw", RNNS)
def test_packed_flat_weight_rnns(kind, kw):
    from torch.nn.utils.rnn import pack_padded_sequence
    m = getattr(torch.nn, kind)(3, 4, **kw).double()
    layers, dirs = kw.get("num_layers", 1), 2 if kw.get("bidirectional") else 1
    hsize = kw.get("proj_size", 0) or 4
    packed = pack_padded_sequence(randn(5, 3, 3, seed=1), [5, 3, 2])
    data, sizes = packed.data.detach().requires_grad_(), packed.batch_sizes
    h0 = randn(layers * dirs, 3, hsize, seed=2)
    params = [p.detach().requires_grad_() for p in m._flat_weights]
    pa = [A(p, True) for p in params]
    da = A(data, True)
    args = (kw.get("bias", True), layers, 0.0, True, dirs == 2)
    if kind == "LSTM":
        c0 = randn(layers * dirs, 3, 4, seed=3)
        rt = torch.lstm(data, sizes, (h0, c0), params, *args)
        ra = axle.lstm(da, A(sizes), (A(h0), A(c0)), pa, *args)
    else:
        name = "gru" if kind == "GRU" else "rnn_" + kw["nonlinearity"]
        rt = getattr(torch, name)(data, sizes, h0, params, *args)
        ra = getattr(axle, name)(da, A(sizes), A(h0), pa, *args)
    assert len(ra) == len(rt)
    for a, t in zip(ra, rt):
        close(a, t)
    grads_match([data] + params, [da] + pa, rt, ra)


CELLS = [("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1), ("rnn_relu_cell", 1)]


@pytest.mark.parametrize("name,gates", CELLS)
@pytest.mark.parametrize("bias", [True, False])
def test_cells(name, gates, bias):
    x, h, c = randn(3, 5, seed=1), randn(3, 4, seed=2), randn(3, 4, seed=3)
    w = [randn(gates * 4, 5, seed=4), randn(gates * 4, 4, seed=5)]
    b = [randn(gates * 4, seed=6), randn(gates * 4, seed=7)] if bias else [None, None]
    leaves_t = [t.requires_grad_() for t in [x, h, c] + w + [t for t in b if t is not None]]
    leaves_a = [A(t, True) for t in leaves_t]
    xa, ha, ca = leaves_a[:3]
    wa = leaves_a[3:5]
    ba = leaves_a[5:] if bias else [None, None]
    hx_t = [h, c] if name == "lstm_cell" else h
    hx_a = [ha, ca] if name == "lstm_cell" else ha
    rt = getattr(torch, name)(x, hx_t, *w, *b)
    ra = getattr(axle, name)(xa, hx_a, *wa, *ba)
    for a, t in zip(ra if isinstance(ra, tuple) else [ra], rt if isinstance(rt, tuple) else [rt]):
        close(a, t)
    grads_match(leaves_t, leaves_a, rt, ra)


@pytest.mark.parametrize("case,msg", [
    ("input", "input has inconsistent input_size: got 6 expected 5"),
    ("batch", "Input batch size 3 doesn't match hidden0 batch size 2"),
    ("hidden", "hidden0 has inconsistent hidden_size: got 5, expected 4"),
    ("cell", "hidden0 has inconsistent hidden_size: got 5, expected 4")])
def test_cell_errors(case, msg):
    x, h, c = randn(3, 5), randn(3, 4), randn(3, 4)
    w = [randn(16, 5), randn(16, 4)]
    if case == "input":
        x = randn(3, 6)
    elif case == "batch":
        h = randn(2, 4)
    elif case == "hidden":
        h = randn(3, 5)
    else:
        c = randn(3, 5)
    with pytest.raises(RuntimeError, match=msg):
        torch.lstm_cell(x, [h, c], *w)
    with pytest.raises(axle.ShapeError, match=msg):
        axle.lstm_cell(A(x), [A(h), A(c)], *[A(t) for t in w])
    with pytest.raises(IndexError):
        torch.gru_cell(randn(5), randn(4), randn(12, 5), randn(12, 4))
    with pytest.raises(IndexError):
        axle.gru_cell(A(randn(5)), A(randn(4)), A(randn(12, 5)), A(randn(12, 4)))


# ---------------------------------------------------------------- losses with aten's int reduction
@pytest.mark.parametrize("args", [(), (None, None, 0), (None, None, 1), (None, None, 2), (None, None, 3), ("w", "p", 1),
                                  ("w", None, 2), (None, "p", 0)])
def test_binary_cross_entropy_with_logits(args):
    x, t = randn(4, 3, seed=1).requires_grad_(), torch.rand(4, 3, dtype=torch.float64)
    extra_t = [randn(4, 3, seed=2).abs() if a == "w" else randn(3, seed=3).abs() if a == "p" else a for a in args]
    xa = A(x, True)
    rt = torch.binary_cross_entropy_with_logits(x, t, *extra_t)
    ra = axle.binary_cross_entropy_with_logits(xa, A(t), *[A(e) if isinstance(e, torch.Tensor) else e
                                                           for e in extra_t])
    close(ra, rt)
    grads_match([x], [xa], rt, ra)


@pytest.mark.parametrize("log_input,full,reduction", [(True, False, 0), (True, True, 1), (False, True, 2),
                                                      (False, False, 7)])
def test_poisson_nll_loss(log_input, full, reduction):
    x = randn(5, 3, seed=1).abs().requires_grad_() if not log_input else randn(5, 3, seed=1).requires_grad_()
    t = torch.poisson(torch.full((5, 3), 2.0, dtype=torch.float64), generator=torch.Generator().manual_seed(1))
    xa = A(x, True)
    rt = torch.poisson_nll_loss(x, t, log_input, full, 1e-8, reduction)
    ra = axle.poisson_nll_loss(xa, A(t), log_input, full, 1e-8, reduction)
    close(ra, rt)
    grads_match([x], [xa], rt, ra)


# ---------------------------------------------------------------- embedding_bag's 4-tuple
BAGS = [(0, None, False), (0, 4, False), (0, None, True), (0, 4, True), (1, None, False), (1, 4, False),
        (2, None, False), (2, 4, False)]


@pytest.mark.parametrize("mode,padding_idx,weighted", BAGS)
def test_embedding_bag_tuple(mode, padding_idx, weighted):
    w = randn(10, 3, seed=1).requires_grad_()
    wa = A(w, True)
    idx, off = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 2, 2, 5])
    psw = torch.rand(8, dtype=torch.float64, generator=torch.Generator().manual_seed(2)) if weighted else None
    rt = torch.embedding_bag(w, idx, off, False, mode, False, psw, False, padding_idx)
    ra = axle.embedding_bag(wa, A(idx), A(off), False, mode, False, A(psw), False, padding_idx)
    assert len(ra) == 4
    close(ra[0], rt[0])
    for a, t in zip(ra[1:], rt[1:]):
        assert a.dtype == axle.int64
        np.testing.assert_array_equal(N(a), t.numpy())
        assert tuple(a.shape) == tuple(t.shape)
    grads_match([w], [wa], rt[0], ra[0])


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("wdtype,idtype", [(torch.float32, torch.int64), (torch.float64, torch.int32),
                                           (torch.float32, torch.int32)])
def test_embedding_bag_tuple_dtypes_and_last_offset(mode, wdtype, idtype):
    w = randn(10, 3, seed=1).to(wdtype)
    idx, off = torch.tensor([1, 2, 3, 4, 4, 9], dtype=idtype), torch.tensor([0, 2, 2, 6], dtype=idtype)
    cases = [(off[:3], False)] + ([(off, True)] if mode != 2 else [])  # torch's max kernel corrupts memory with
    for o, last in cases:                                                # include_last_offset
        rt = torch.embedding_bag(w, idx, o, False, mode, False, None, last)
        ra = axle.embedding_bag(A(w), A(idx), A(o), False, mode, False, None, last)
        close(ra[0], rt[0], rtol=1e-6)
        for a, t in zip(ra[1:], rt[1:]):
            assert str(a.dtype).split(".")[1] == str(t.dtype).split(".")[1]
            np.testing.assert_array_equal(N(a), t.numpy())
    with pytest.raises(axle.ShapeError, match="indices must be 1-D"):
        axle.embedding_bag(A(w), axle.tensor([[1, 2], [3, 4]]), axle.tensor([0, 1]), False, mode)


# ---------------------------------------------------------------- instance_norm's aten form
@pytest.mark.parametrize("use_input_stats,affine,running", [(True, True, True), (True, False, False),
                                                            (False, True, True)])
def test_instance_norm(use_input_stats, affine, running):
    x = randn(2, 3, 5, seed=1).requires_grad_()
    xa = A(x, True)
    w, b = (randn(3, seed=2), randn(3, seed=3)) if affine else (None, None)
    rm_t, rv_t = (randn(3, seed=4), randn(3, seed=5).abs()) if running else (None, None)
    rm_a, rv_a = A(rm_t), A(rv_t)
    rt = torch.instance_norm(x, w, b, rm_t, rv_t, use_input_stats, 0.2, 1e-5, False)
    ra = axle.instance_norm(xa, A(w), A(b), rm_a, rv_a, use_input_stats, 0.2, 1e-5, False)
    close(ra, rt)
    if running:
        close(rm_a, rm_t)
        close(rv_a, rv_t)
    grads_match([x], [xa], rt, ra)
    with pytest.raises(RuntimeError, match="Expected running_mean and running_var to be defined when use_input_stats "
                                           "is false"):
        torch.instance_norm(x, None, None, None, None, False, 0.1, 1e-5, False)
    with pytest.raises(ValueError, match="Expected running_mean and running_var to be defined when use_input_stats "
                                         "is false"):
        axle.instance_norm(xa, None, None, None, None, False, 0.1, 1e-5, False)


# ---------------------------------------------------------------- dropout variants
DROPS = ["dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout",
         "feature_alpha_dropout_"]


@pytest.mark.parametrize("name", DROPS)
def test_dropout_variants(name):
    inplace = name.endswith("_")
    x = axle.randn(6, 5, 4, dtype=axle.float64)
    # not training, or p = 0: the input itself, as torch
    for p, train in ((0.5, False), (0.0, True)):
        y = getattr(axle, name)(x, p, train)
        assert y is x and getattr(torch, name)(torch.ones(2, 2), p, train) is not None
    xc = x.clone()
    y = getattr(axle, name)(xc, 0.4, True)
    assert (y is xc) == inplace
    out, ref = N(y), N(x)
    if "alpha" not in name:
        ratio = out / ref
        kept = np.isclose(ratio, 1 / 0.6)
        assert np.all(kept | (out == 0))
        if name.startswith("feature"):  # one decision per (sample, channel)
            assert np.all(kept.all(2) | (~kept).all(2))
        assert 0.3 < kept.mean() < 0.9
    else:
        if name.startswith("feature"):
            diff = out - ref * (out / np.where(ref == 0, 1, ref))
            assert diff.shape == ref.shape
        assert np.isfinite(out).all() and not np.allclose(out, ref)
    for bad in (-0.1, 1.5):
        with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got"):
            getattr(torch, name)(torch.ones(3, 2), bad, True)
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got"):
            getattr(axle, name)(axle.ones(3, 2), bad, True)
    if name.startswith("feature"):
        with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
            getattr(torch, name)(torch.ones(5), 0.5, True)
        with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
            getattr(axle, name)(axle.ones(5), 0.5, True)


def test_feature_dropout_p_one_and_2d():
    for name in ("feature_dropout", "dropout_"):
        y = getattr(axle, name)(axle.ones(3, 4, 2), 1.0, True)
        np.testing.assert_array_equal(N(y), getattr(torch, name)(torch.ones(3, 4, 2), 1.0, True).numpy())
    y = N(axle.feature_dropout(axle.ones(200, 6), 0.5, True))  # 2-d: one decision per element, as torch
    assert set(np.unique(y)) <= {0.0, 2.0} and not (y.all(1) | (~y.astype(bool)).all(1)).all()


def test_native_dropout():
    x = axle.randn(50, 40, dtype=axle.float64)
    for train in (True, None):
        out, mask = axle.native_dropout(x, 0.3, train)
        assert mask.dtype == axle.bool and tuple(mask.shape) == (50, 40)
        np.testing.assert_allclose(N(out), N(x) * N(mask) / 0.7, **TOL)
        assert 0.6 < N(mask).mean() < 0.8
    for p, train in ((1.0, True), (0.5, False), (0.0, True)):
        ot, mt = torch.native_dropout(torch.ones(3), p, train)
        oa, ma = axle.native_dropout(axle.ones(3), p, train)
        np.testing.assert_array_equal(N(oa), ot.numpy())
        np.testing.assert_array_equal(N(ma), mt.numpy())
    with pytest.raises(RuntimeError, match="bernoulli_ expects p to be in \\[0, 1\\], but got p=-0.5"):
        torch.native_dropout(torch.ones(3), 1.5, True)
    with pytest.raises(ValueError, match="bernoulli_ expects p to be in \\[0, 1\\], but got p=-0.5"):
        axle.native_dropout(axle.ones(3), 1.5, True)
    xg = axle.randn(4, 5, dtype=axle.float64).requires_grad_()
    out, mask = axle.native_dropout(xg, 0.5, True)
    g, = axle.autograd.grad(out.sum(), xg)
    np.testing.assert_allclose(N(g), N(mask) * 2.0, **TOL)


# ---------------------------------------------------------------- shapes: constant_pad_nd, channel shuffle, conv_tbc
@pytest.mark.parametrize("pad,value", [([1, 2], 0), ([1, -1], 3.5), ([-1, -2], 0), ([0, 1, -1, 2], -1), ([2, -2], 0),
                                       ([0, 0], 0), ([1, 0, 0, 2, 1, 1], 2), ([-3, 0], 0)])
def test_constant_pad_nd(pad, value):
    x = randn(2, 3, 4, seed=1).requires_grad_()
    xa = A(x, True)
    rt, ra = torch.constant_pad_nd(x, pad, value), axle.constant_pad_nd(xa, pad, value)
    close(ra, rt)
    if rt.numel():
        grads_match([x], [xa], rt, ra)


@pytest.mark.parametrize("pad,msg", [([1, 2, 3], "Length of pad must be even but instead it equals 3"),
                                     ([1] * 8, "Length of pad should be no more than twice the number of dimensions"),
                                     ([1, 0, -2, 0, -2, 0], "The input size 2, plus negative padding -2 and 0 resulted "
                                                            "in a negative output size")])
def test_constant_pad_nd_errors(pad, msg):
    with pytest.raises(RuntimeError, match=msg):
        torch.constant_pad_nd(torch.ones(2, 3, 4), pad)
    with pytest.raises(ValueError, match=msg):
        axle.constant_pad_nd(axle.ones(2, 3, 4), pad)


@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 2), ((2, 6, 3, 2), 3), ((3, 6), 2), ((1, 4, 5), 1)])
def test_native_channel_shuffle(shape, groups):
    x = randn(*shape, seed=1)
    close(axle.native_channel_shuffle(A(x), groups), torch.native_channel_shuffle(x, groups))


def test_native_channel_shuffle_errors():
    # torch's kernel divides by zero (SIGFPE) for groups=0 and reshapes wrongly when C % groups != 0
    with pytest.raises(ValueError, match="Number of groups to divide channels in must be positive"):
        axle.native_channel_shuffle(axle.ones(2, 6, 3), 0)
    with pytest.raises(ValueError, match="Number of channels must be divisible by groups. Got 5 channels and 2"):
        axle.native_channel_shuffle(axle.ones(2, 5, 3), 2)
    with pytest.raises(IndexError):
        torch.native_channel_shuffle(torch.ones(5), 1)
    with pytest.raises(IndexError):
        axle.native_channel_shuffle(axle.ones(5), 1)


@pytest.mark.parametrize("pad", [0, 1, 2])
def test_conv_tbc(pad):
    x, w, b = (randn(7, 2, 3, seed=1).requires_grad_(), randn(3, 3, 4, seed=2).requires_grad_(),
               randn(4, seed=3).requires_grad_())
    xa, wa, ba = A(x, True), A(w, True), A(b, True)
    rt, ra = torch.conv_tbc(x, w, b, pad), axle.conv_tbc(xa, wa, ba, pad)
    close(ra, rt)
    grads_match([x, w, b], [xa, wa, ba], rt, ra)
    close(AF.conv_tbc(xa, wa, ba, pad), TF.conv_tbc(x, w, b, pad))
    close(AF.conv_tbc(xa, wa, ba), TF.conv_tbc(x, w, b))


@pytest.mark.parametrize("shapes,msg", [
    (((7, 2, 3), (3, 5, 4), (4,)), "Input dim 2 \\(input channels\\) is not == dim 1 in the weight tensor"),
    (((7, 2, 3), (3, 3, 4), (5,)), "Bias size must equal dim 2 in the weight tensor \\(output channels\\)."),
    (((7, 3), (3, 3, 4), (4,)), "Input must have 3 dims: time, batch, in_channel"),
    (((2, 2, 3), (5, 3, 4), (4,)), "Trying to create tensor with negative dimension -2")])
def test_conv_tbc_errors(shapes, msg):
    with pytest.raises(RuntimeError, match=msg):
        torch.conv_tbc(*(torch.ones(s) for s in shapes))
    with pytest.raises(axle.ShapeError, match=msg):
        axle.conv_tbc(*(axle.ones(*s) for s in shapes))


# ---------------------------------------------------------------- embedding_renorm_, norm_except_dim
@pytest.mark.parametrize("indices,max_norm,norm_type", [([1, 1, 3], 0.5, 2), ([[1, 1], [3, 4]], 0.5, 1),
                                                        ([0, 2, 4], 10.0, 2), ([2], 0.1, 3.0)])
def test_embedding_renorm_(indices, max_norm, norm_type):
    wt = randn(5, 3, seed=1)
    wa = A(wt)
    rt = torch.embedding_renorm_(wt, torch.tensor(indices), max_norm, norm_type)
    ra = axle.embedding_renorm_(wa, axle.tensor(indices), max_norm, norm_type)
    assert rt is wt and ra is wa
    close(wa, wt)


def test_embedding_renorm_errors():
    with pytest.raises(IndexError, match="index 7 out of range for tensor of size \\[5, 3\\] at dimension 0"):
        torch.embedding_renorm_(torch.ones(5, 3), torch.tensor([1, 7]), 0.5, 1)
    with pytest.raises(IndexError, match="index 7 out of range for tensor of size \\[5, 3\\] at dimension 0"):
        axle.embedding_renorm_(axle.ones(5, 3), axle.tensor([1, 7]), 0.5, 1)
    with pytest.raises(RuntimeError, match="Expected tensor for argument #2 'indices' to have one of the following"):
        torch.embedding_renorm_(torch.ones(5, 3), torch.tensor([1.0]), 0.5, 1)
    with pytest.raises(axle.DTypeError, match="Expected tensor for argument #2 'indices' to have one of the following"):
        axle.embedding_renorm_(axle.ones(5, 3), axle.tensor([1.0]), 0.5, 1)


@pytest.mark.parametrize("pow_,dim", [(2, 0), (2, 1), (2, 2), (2, -1), (3, 0), (1, -2), (4, 1)])
def test_norm_except_dim(pow_, dim):
    v = randn(3, 4, 5, seed=1).requires_grad_()
    va = A(v, True)
    rt, ra = torch.norm_except_dim(v, pow_, dim), axle.norm_except_dim(va, pow_, dim)
    close(ra, rt)
    grads_match([v], [va], rt, ra)
    close(axle.norm_except_dim(A(randn(3, seed=2))), torch.norm_except_dim(randn(3, seed=2)))
    with pytest.raises(IndexError):
        torch.norm_except_dim(v, 2, 3)
    with pytest.raises(IndexError):
        axle.norm_except_dim(va, 2, 3)
    with pytest.raises(TypeError):
        torch.norm_except_dim(v, 2.5, 1)
    with pytest.raises(TypeError):
        axle.norm_except_dim(va, 2.5, 1)


# ---------------------------------------------------------------- native_* norms
@pytest.mark.parametrize("shape,normalized,affine", [((4, 3, 5), [5], True), ((4, 3, 5), [3, 5], False),
                                                     ((2, 6), [6], True)])
def test_native_layer_norm(shape, normalized, affine):
    x = randn(*shape, seed=1).requires_grad_()
    w, b = (randn(*normalized, seed=2).requires_grad_(), randn(*normalized, seed=3).requires_grad_()) if affine \
        else (None, None)
    xa, wa, ba = A(x, True), A(w, True), A(b, True)
    rt = torch.native_layer_norm(x, normalized, w, b, 1e-5)
    ra = axle.native_layer_norm(xa, normalized, wa, ba, 1e-5)
    for a, t in zip(ra, rt):
        close(a, t)
        assert a.requires_grad == t.requires_grad
    leaves_t, leaves_a = [x] + ([w, b] if affine else []), [xa] + ([wa, ba] if affine else [])
    grads_match(leaves_t, leaves_a, rt[0], ra[0])
    with pytest.raises(RuntimeError, match="Given normalized_shape=\\[4\\], expected input with shape \\[\\*, 4\\]"):
        torch.native_layer_norm(x, [4], None, None, 1e-5)
    with pytest.raises(RuntimeError, match="Given normalized_shape=\\[4\\], expected input with shape \\[\\*, 4\\]"):
        axle.native_layer_norm(xa, [4], None, None, 1e-5)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_native_batch_norm(training, affine):
    x = randn(4, 3, 5, seed=1).requires_grad_()
    w, b = (randn(3, seed=2).requires_grad_(), randn(3, seed=3).requires_grad_()) if affine else (None, None)
    rm, rv = randn(3, seed=4), randn(3, seed=5).abs()
    xa, wa, ba, rma, rva = A(x, True), A(w, True), A(b, True), A(rm), A(rv)
    rt = torch.native_batch_norm(x, w, b, rm, rv, training, 0.3, 1e-5)
    ra = axle.native_batch_norm(xa, wa, ba, rma, rva, training, 0.3, 1e-5)
    for a, t in zip(ra, rt):
        close(a, t)
        assert a.requires_grad == t.requires_grad
    close(rma, rm)
    close(rva, rv)
    leaves_t, leaves_a = [x] + ([w, b] if affine else []), [xa] + ([wa, ba] if affine else [])
    grads_match(leaves_t, leaves_a, rt[0], ra[0])
    if training:  # without running statistics
        rt = torch.native_batch_norm(x, w, b, None, None, True, 0.3, 1e-5)
        ra = axle.native_batch_norm(xa, wa, ba, None, None, True, 0.3, 1e-5)
        for a, t in zip(ra, rt):
            close(a, t)
    else:  # torch's kernel crashes (SIGSEGV) here; axle refuses
        with pytest.raises(ValueError, match="running_mean and running_var are required when not training"):
            axle.native_batch_norm(xa, wa, ba, None, None, False, 0.3, 1e-5)


@pytest.mark.parametrize("group,affine", [(3, True), (1, False), (6, True)])
def test_native_group_norm(group, affine):
    x = randn(2, 6, 4, seed=1).requires_grad_()
    w, b = (randn(6, seed=2).requires_grad_(), randn(6, seed=3).requires_grad_()) if affine else (None, None)
    xa, wa, ba = A(x, True), A(w, True), A(b, True)
    rt = torch.native_group_norm(x, w, b, 2, 6, 4, group, 1e-5)
    ra = axle.native_group_norm(xa, wa, ba, 2, 6, 4, group, 1e-5)
    for a, t in zip(ra, rt):
        close(a, t)
    leaves_t, leaves_a = [x] + ([w, b] if affine else []), [xa] + ([wa, ba] if affine else [])
    grads_match(leaves_t, leaves_a, list(rt), list(ra))
    with pytest.raises(RuntimeError, match="Expected number of channels in input to be divisible by num_groups"):
        torch.native_group_norm(x, None, None, 2, 6, 4, 4, 1e-5)
    with pytest.raises(ValueError, match="Expected number of channels in input to be divisible by num_groups"):
        axle.native_group_norm(xa, None, None, 2, 6, 4, 4, 1e-5)
    with pytest.raises(RuntimeError):
        torch.native_group_norm(x, None, None, 2, 6, 3, 3, 1e-5)
    with pytest.raises(axle.ShapeError):
        axle.native_group_norm(xa, None, None, 2, 6, 3, 3, 1e-5)


# ---------------------------------------------------------------- SyncBatchNorm's kernels
def test_batch_norm_update_stats():
    x = randn(4, 3, 5, seed=1)
    for running in (True, False):
        rm_t, rv_t = (torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)) if running else (None,
                                                                                                                None)
        rm_a, rv_a = A(rm_t), A(rv_t)
        rt = torch.batch_norm_update_stats(x, rm_t, rv_t, 0.2)
        ra = axle.batch_norm_update_stats(A(x), rm_a, rv_a, 0.2)
        for a, t in zip(ra, rt):
            close(a, t)
        if running:
            close(rm_a, rm_t)
            close(rv_a, rv_t)


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize("affine", [True, False])
def test_sync_batch_norm_kernels_compose_to_batch_norm(workers, affine):
    # SyncBatchNorm's forward and backward over `workers` slices of the batch (the all-reduces done by hand)
    # equal torch's training batch_norm over the whole batch: output, running statistics and gradients.
    x = randn(6, 3, 4, seed=1).requires_grad_()
    w, b = (randn(3, seed=2).requires_grad_(), randn(3, seed=3).requires_grad_()) if affine else (None, None)
    rm_t, rv_t = randn(3, seed=4), randn(3, seed=5).abs()
    yt = TF.batch_norm(x, rm_t, rv_t, w, b, True, 0.1, 1e-5)
    gy = randn(6, 3, 4, seed=6)
    leaves = [x] + ([w, b] if affine else [])
    g_t = torch.autograd.grad((yt * gy).sum(), leaves)

    xs = [A(c) for c in x.detach().chunk(workers)]
    wa, ba, rm_a, rv_a = A(w), A(b), A(randn(3, seed=4)), A(randn(3, seed=5).abs())
    stats = [axle.batch_norm_stats(c, 1e-5) for c in xs]
    means, invstds = axle.stack([s[0] for s in stats]), axle.stack([s[1] for s in stats])
    counts = axle.tensor([float(c.numel() // 3) for c in xs], dtype=axle.float64)
    if len({c.shape[0] for c in xs}) == 1:
        mean, invstd = axle.batch_norm_gather_stats(xs[0], means, invstds, rm_a, rv_a, 0.1, 1e-5,
                                                    xs[0].numel() // 3)
    else:
        mean, invstd = axle.batch_norm_gather_stats_with_counts(xs[0], means, invstds, rm_a, rv_a, 0.1, 1e-5, counts)
    ya = axle.cat([axle.batch_norm_elemt(c, wa, ba, mean, invstd, 1e-5) for c in xs])
    close(ya, yt)
    close(rm_a, rm_t)
    close(rv_a, rv_t)
    gys = [A(c) for c in gy.chunk(workers)]
    reduced = [axle.batch_norm_backward_reduce(g, c, mean, invstd, wa, True, affine, affine) for g, c in zip(gys, xs)]
    sum_dy = sum(r[0] for r in reduced)
    sum_dy_xmu = sum(r[1] for r in reduced)
    count_t = counts.to(axle.int32)
    gx = axle.cat([axle.batch_norm_backward_elemt(g, c, mean, invstd, wa, sum_dy, sum_dy_xmu, count_t)
                   for g, c in zip(gys, xs)])
    close(gx, g_t[0])
    if affine:
        close(sum(r[2] for r in reduced), g_t[1])
        close(sum(r[3] for r in reduced), g_t[2])
    else:
        assert all(r[2] is None and r[3] is None for r in reduced)
    none = axle.batch_norm_backward_reduce(gys[0], xs[0], mean, invstd, wa, False, False, False)
    assert none == (None, None, None, None)


def test_sync_batch_norm_kernel_stats():
    x = randn(5, 3, 2, 2, seed=1)
    mean, invstd = axle.batch_norm_stats(A(x), 1e-3)
    close(mean, x.mean((0, 2, 3)))
    close(invstd, 1 / torch.sqrt(x.var((0, 2, 3), unbiased=False) + 1e-3))
    with pytest.raises(axle.ShapeError, match="counts for 2 workers"):
        axle.batch_norm_gather_stats_with_counts(A(x), axle.stack([mean, mean]), axle.stack([invstd, invstd]), None,
                                                 None, 0.1, 1e-3, axle.tensor([1.0, 2.0, 3.0], dtype=axle.float64))
