"""The oneDNN cpu plugin (plugins/cpu): what reaches oneDNN and what is declined,
observed through oneDNN's own verbose log (ONEDNN_VERBOSE=1) in a child process:
a repeated call never re-creates a primitive, dtypes and ranks oneDNN lacks and
conversions it would get wrong run elsewhere with PyTorch's results, and
cpu.threads reaches oneDNN's OpenMP pool. Values are checked against numpy."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import axle

pytestmark = pytest.mark.skipif(
    not any(p["name"] == "cpu" and p["status"] != "rejected" for p in axle.plugins()),
    reason="the cpu plugin is not built (-Donednn=disabled or oneDNN missing)")


def run_verbose(code, config=None, tmp_path=None):
    """Runs `code` in a child with ONEDNN_VERBOSE=2; returns (stdout lines of
    oneDNN, the child's own last line parsed as JSON)."""
    env = dict(os.environ, ONEDNN_VERBOSE="2")  # 2: primitive creation too
    if config is not None:
        path = tmp_path / "axle.json"
        path.write_text(json.dumps(config))
        env["AXLE_CONFIG"] = str(path)
    script = "import json, numpy as np, axle\n" + textwrap.dedent(code)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    verbose = [l for l in lines if l.startswith("onednn_verbose")]
    result = [l for l in lines if not l.startswith("onednn_verbose")]
    return verbose, json.loads(result[-1]) if result else None


def count(verbose, kind, primitive):
    return sum(1 for l in verbose if l.split(",")[1].startswith(kind) and l.split(",")[3] == primitive)


def test_a_repeated_call_creates_its_primitive_once():
    verbose, _ = run_verbose("""
        a = axle.ones(64, 32); b = axle.ones(32, 16)
        for _ in range(5): axle.mm(a, b)
        print(json.dumps(None))
    """)
    assert count(verbose, "exec", "matmul") == 5
    assert count(verbose, "create", "matmul") == 1


def test_float64_and_13_dims_are_declined_and_still_right():
    verbose, r = run_verbose("""
        a = axle.tensor(np.arange(12.0).reshape(3, 4))
        m = axle.mm(a, a.t())
        x = axle.rand(*([2] * 13)); y = axle.rand(*([2] * 12 + [1]))
        s = x + y  # a broadcast that only oneDNN's binary would take: 13 dims
        print(json.dumps({"mm": m.tolist(), "add_ok": bool(np.allclose(np.asarray(s), np.asarray(x) + np.asarray(y)))}))
    """)
    assert count(verbose, "exec", "matmul") == 0
    assert count(verbose, "exec", "binary") == 0
    a = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(np.array(r["mm"]), a @ a.T)
    assert r["add_ok"]


def test_float_to_int_truncates_as_torch_without_a_reorder(tmp_path):
    verbose, r = run_verbose("""
        x = axle.tensor((np.arange(8192, dtype=np.float32) - 4096.0) / 3.0)
        print(json.dumps(x.to(axle.int32).tolist()))
    """, {"plugins": {"cpu": {"options": {"dnnl_min_elements": 0}}}}, tmp_path)
    want = np.trunc((np.arange(8192, dtype=np.float32) - 4096.0) / np.float32(3.0)).astype(np.int32)
    np.testing.assert_array_equal(np.array(r, dtype=np.int32), want)
    assert count(verbose, "exec", "reorder") == 0


@pytest.mark.parametrize("threads", [1, 2])
def test_cpu_threads_reaches_onednn(threads, tmp_path):
    verbose, _ = run_verbose("""
        axle.mm(axle.ones(8, 8), axle.ones(8, 8))
        print(json.dumps(None))
    """, {"cpu": {"threads": threads}}, tmp_path)
    info = [l for l in verbose if ",info," in l and "nthr:" in l]
    assert info, verbose[:5]
    assert f"nthr:{threads}" in info[0]


@pytest.mark.parametrize("threads", [1, 2])
def test_linear_with_one_or_two_rows_runs_our_dot_products(threads, tmp_path):
    # x @ W^T with M <= 2 and K >= 64: the plugin's own kernel (blas_gemv.cpp), not
    # oneDNN; 3 rows go to oneDNN. Tails of N (not a multiple of 4), bias
    # broadcast or per row, addmm's alpha, a strided output, and the threaded split.
    verbose, r = run_verbose("""
        rng = np.random.default_rng(1)
        out = {}
        for m, k, n in ((1, 300, 70), (2, 1024, 257), (1, 64, 5), (3, 128, 16)):
            x = rng.standard_normal((m, k)).astype(np.float32)
            w = rng.standard_normal((n, k)).astype(np.float32)
            b = rng.standard_normal((n,)).astype(np.float32)
            b2 = rng.standard_normal((m, n)).astype(np.float32)
            X, W = axle.tensor(x), axle.tensor(w)
            got = {
                "linear": axle.nn.functional.linear(X, W, axle.tensor(b)),
                "mm": axle.mm(X, W.t()),
                "addmm": axle.addmm(axle.tensor(b2), X, W.t()),
                "alpha": axle.addmm(axle.tensor(b2), X, W.t(), beta=0, alpha=2.5),
            }
            strided = axle.empty(n, m).t()  # an output whose N stride is not 1
            axle.mm(X, W.t(), out=strided)
            got["strided_out"] = strided
            want = {"linear": x @ w.T + b, "mm": x @ w.T, "addmm": b2 + x @ w.T, "alpha": 2.5 * (x @ w.T),
                    "strided_out": x @ w.T}
            out[f"{m}x{k}x{n}"] = {key: float(np.max(np.abs(np.asarray(v) - want[key]))) for key, v in got.items()}
        print(json.dumps(out))
    """, {"cpu": {"threads": threads}}, tmp_path)
    for case, errs in r.items():
        for key, err in errs.items():
            assert err < 1e-3, (case, key, err)
    # Only the 3-row case reached oneDNN's matmul (the problem column reads MxK:KxN:MxN).
    shapes = [l.split(",")[-2] for l in verbose if l.split(",")[1] == "exec" and l.split(",")[3] == "matmul"]
    assert shapes and all(s.startswith("3x128:") for s in shapes), shapes


@pytest.mark.parametrize("threads", [1, 2])
def test_linear_with_a_small_k_runs_sgemm_or_our_tiles(threads, tmp_path):
    # x @ W^T with K <= 512 and at least 64Ki outputs (a language model's
    # decoder): with a bias and K <= 64 the plugin's own register tiles (rows
    # and columns past whole tiles, a row stride above K, K = 1 and 64), else
    # oneDNN's sgemm (K = 65, no bias, alpha != 1); K = 600, another layout
    # (g @ W) or fewer outputs stay with the matmul primitive.
    verbose, r = run_verbose("""
        rng = np.random.default_rng(3)
        out = {}
        for m, k, n, wide in ((700, 32, 1000, 0), (701, 64, 1000, 0), (203, 20, 7918, 5), (9, 1, 8000, 0),
                              (700, 65, 1000, 0), (300, 512, 257, 0), (100, 600, 700, 0), (64, 32, 100, 0)):
            x = rng.standard_normal((m, k + wide)).astype(np.float32)
            w = rng.standard_normal((n, k)).astype(np.float32)
            b = rng.standard_normal((n,)).astype(np.float32)
            X, W = axle.tensor(x)[:, :k], axle.tensor(w)
            x = x[:, :k]
            got = {"linear": axle.nn.functional.linear(X, W, axle.tensor(b)), "mm": axle.mm(X, W.t()),
                   "alpha": axle.addmm(axle.tensor(b), X, W.t(), beta=0, alpha=2.5),
                   "addmm": axle.addmm(axle.tensor(b), X, W.t(), alpha=0.5)}
            want = {"linear": x.astype(np.float64) @ w.T + b, "mm": x.astype(np.float64) @ w.T,
                    "alpha": 2.5 * (x.astype(np.float64) @ w.T), "addmm": 0.5 * (x.astype(np.float64) @ w.T) + b}
            out[f"{m}x{k}x{n}"] = {key: float(np.max(np.abs(np.asarray(v) - want[key]))) for key, v in got.items()}
        print(json.dumps(out))
    """, {"cpu": {"threads": threads}}, tmp_path)
    assert len(r) == 8
    for case, errs in r.items():
        for key, err in errs.items():
            assert err < 1e-3, (case, key, err)
    shapes = [l.split(",")[-2] for l in verbose if l.split(",")[1] == "exec" and l.split(",")[3] == "matmul"]
    # (oneDNN 2.6 does not report sgemm calls: the eligible shapes are absent from the matmul lines)
    assert shapes and all(s.startswith(("100x600:", "64x32:")) for s in shapes), shapes


def test_broadcast_operands_and_leading_sums_run_our_loops():
    # What backward passes produce: sum()'s gradient is one element expanded
    # (stride 0), softmax's and the norms' backward multiply by one value per
    # row, bias gradients sum over the leading dims. The plugin's loops serve
    # them (the trace names plugin 'cpu'); values as numpy's, sums in float64.
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 6, 40)).astype(np.float32)
    per_row = rng.standard_normal((4, 6, 1)).astype(np.float32)
    X, R = axle.tensor(x), axle.tensor(per_row)
    ones = axle.ones(1).expand(4, 6, 40)
    cases = {
        "mul_expanded": (lambda: X * ones, x),
        "mul_row": (lambda: X * R, x * per_row),
        "row_sub": (lambda: R - X, per_row - x),
        "add_row_alpha": (lambda: axle.add(X, R, alpha=0.5), x + 0.5 * per_row),
        "sum_leading": (lambda: X.sum((0, 1)), x.astype(np.float64).sum((0, 1))),
        "sum_leading_keepdim": (lambda: X.sum(0, keepdim=True), x.astype(np.float64).sum(0, keepdims=True)),
        "mean_leading": (lambda: X.mean((0, 1)), x.astype(np.float64).mean((0, 1))),
        "sum_expanded": (lambda: axle.full((1,), 1.5).expand(4, 6, 40).sum((0, 2)), np.full(6, 1.5 * 160)),
        "sum_of_expanded": (lambda: ones.sum((0, 1)), np.full(40, 24.0)),
        "mean_of_expanded": (lambda: ones.mean((1,)), np.ones((4, 40))),
    }
    for name, (f, want) in cases.items():
        with axle.trace() as t:
            got = f()
        top = [e for e in t.events if e["depth"] == 0]
        assert top[-1]["plugin"] == "cpu", (name, top[-1]["line"])
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-5, err_msg=name)
    # Reduced dims that are not leading (or a strided input) go elsewhere, still right.
    np.testing.assert_allclose(np.asarray(X.sum(1)), x.astype(np.float64).sum(1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(X.transpose(0, 2).sum(2)), x.transpose(2, 1, 0).sum(2), rtol=1e-5)


def test_max_pool_with_indices_and_its_backward_run_our_loops():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    x[0, 0, :3, :3] = np.nan
    x[1, 2] = -np.inf
    X = axle.tensor(x).contiguous(memory_format=axle.channels_last)
    args = ([3, 2], [2, 2], [1, 0], [2, 1], True)
    with axle.trace() as t:
        v, i = axle.nn.functional.max_pool2d_with_indices(X, *args)
        g = axle.max_pool2d_with_indices_backward(axle.ones_like(v), X, *args, i)
    assert [e["plugin"] for e in t.events if e["depth"] == 0][-1] == "cpu"
    assert any(e["op"] == "max_pool2d_with_indices" and e["plugin"] == "cpu" for e in t.events)
    tv, ti = torch.nn.functional.max_pool2d(torch.from_numpy(x), [3, 2], [2, 2], [1, 0], [2, 1], True,
                                            return_indices=True)
    np.testing.assert_array_equal(np.asarray(v), tv.numpy())
    np.testing.assert_array_equal(np.asarray(i), ti.numpy())
    tx = torch.from_numpy(x).requires_grad_()
    torch.nn.functional.max_pool2d(tx, [3, 2], [2, 2], [1, 0], [2, 1], True).backward(torch.ones_like(tv))
    np.testing.assert_array_equal(np.asarray(g), tx.grad.numpy())
    # 2 x 2 windows with stride 2 over dense planes (a classifier's pooling: a
    # loop of its own): NaNs, -inf, ties (the first wins), a leftover row and
    # column, batch of 1 (3-d) too.
    y = rng.standard_normal((3, 4, 13, 11)).astype(np.float32)
    y[0, 0, 0, 1], y[0, 0, 1, 0], y[1, 1, :2, :2] = np.nan, np.nan, -np.inf
    y[2, 3, 4:6, 4:6] = 7.0
    for arr in (y, y[0]):
        with axle.trace() as t:
            v, i = axle.nn.functional.max_pool2d_with_indices(axle.tensor(arr), 2)
        assert [e["plugin"] for e in t.events if e["op"] == "max_pool2d_with_indices"] == ["cpu"]
        tv, ti = torch.nn.functional.max_pool2d(torch.from_numpy(arr), 2, return_indices=True)
        np.testing.assert_array_equal(np.asarray(v), tv.numpy())
        np.testing.assert_array_equal(np.asarray(i), ti.numpy())
    # An index outside its plane: an error naming the op, never a write out of bounds.
    bad = i.clone()
    bad[0, 0, 0] = 13 * 11
    with pytest.raises(axle.AxleError):
        axle.max_pool2d_with_indices_backward(axle.ones_like(v), axle.tensor(y[0]), 2, 2, 0, 1, False, bad)


@pytest.mark.parametrize("mask", [[1, 1, 1], [0, 1, 1], [1, 0, 0], [1, 1, 0]])
def test_convolution_backward_runs_onednn_backward_primitives(mask):
    # Groups, stride, padding, dilation, and a 1-d case; outputs the mask leaves
    # out are None as torch's. The bias gradient alone goes to the composite.
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    for xs, ws, gs, st, pad, dil, groups in [((4, 6, 9, 9), (8, 3, 3, 3), (4, 8, 5, 3), [2, 2], [1, 0], [1, 2], 2),
                                             ((2, 5, 11), (4, 5, 3), (2, 4, 9), [1], [0], [1], 1)]:
        x, w, gy = (rng.standard_normal(s).astype(np.float32) for s in (xs, ws, gs))
        args = (axle.tensor(gy), axle.tensor(x), axle.tensor(w), [ws[0]], st, pad, dil, False, [0], groups)
        with axle.trace() as t:
            got = axle.convolution_backward(*args, mask)
        assert [e for e in t.events if e["depth"] == 0][-1]["plugin"] == "cpu"
        want = torch.ops.aten.convolution_backward(torch.from_numpy(gy), torch.from_numpy(x), torch.from_numpy(w),
                                                   [ws[0]], st, pad, dil, False, [0] * (len(xs) - 2), groups,
                                                   [bool(m) for m in mask])
        for g, t_, m in zip(got, want, mask):
            if not m:
                assert g is None
                continue
            np.testing.assert_allclose(np.asarray(g), t_.numpy(), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("threads", [1, 2])
def test_linear_backward_runs_one_plugin_call(threads, tmp_path):
    # linear's gradients in one linear_backward call: with K <= 64 and 512
    # outputs or more the weight and bias gradients from one pass over g
    # (8-column tiles, a tail of columns, 32-wide slices of K, blocks of 32
    # rows), otherwise on the matmul path; values as numpy's in float64, every
    # mask.
    _, r = run_verbose("""
        rng = np.random.default_rng(11)
        out = {}
        for lead, k, n in (((35, 20), 32, 7918), ((70,), 40, 1003), ((33,), 64, 515), ((50,), 70, 301), ((9,), 1, 300)):
            x = rng.standard_normal(lead + (k,)).astype(np.float32)
            w = rng.standard_normal((n, k)).astype(np.float32)
            g = rng.standard_normal(lead + (n,)).astype(np.float32)
            x2, g2 = x.reshape(-1, k).astype(np.float64), g.reshape(-1, n).astype(np.float64)
            want = (g.astype(np.float64) @ w, g2.T @ x2, g2.sum(0))
            for mask in ([1, 1, 1], [0, 1, 0], [1, 0, 1], [0, 0, 1]):
                with axle.trace() as t:
                    got = axle.linear_backward(axle.tensor(x), axle.tensor(g), axle.tensor(w), mask)
                plugins = [e["plugin"] for e in t.events if e["op"] == "linear_backward"]
                errs = [None if not m_ else float(np.max(np.abs(np.asarray(a) - b)) / (1 + np.max(np.abs(b))))
                        for m_, a, b in zip(mask, got, want)]
                undefined = [a is None for m_, a in zip(mask, got) if not m_]
                out["%s %d %d %s" % (lead, k, n, mask)] = [plugins, errs, undefined]
        print(json.dumps(out))
    """, {"cpu": {"threads": threads}}, tmp_path)
    assert len(r) == 20
    for case, (plugins, errs, undefined) in r.items():
        assert plugins == ["cpu"], case
        assert all(e is None or e < 1e-5 for e in errs), (case, errs)
        assert all(undefined), case


@pytest.mark.parametrize("n,k", [(0, 4), (5, 0)])
def test_linear_backward_with_an_empty_weight(n, k):
    # No outputs or no inputs: empty or zero gradients, as torch's.
    torch = pytest.importorskip("torch")
    x = axle.ones(2, 3, k, requires_grad=True)
    w = axle.ones(n, k, requires_grad=True)
    b = axle.ones(n, requires_grad=True)
    axle.nn.functional.linear(x, w, b).sum().backward()
    tx, tw, tb = (torch.ones(*t.shape, requires_grad=True) for t in (x, w, b))
    torch.nn.functional.linear(tx, tw, tb).sum().backward()
    for a, t in ((x, tx), (w, tw), (b, tb)):
        assert tuple(a.grad.shape) == tuple(t.grad.shape)
        np.testing.assert_array_equal(np.asarray(a.grad), t.grad.numpy())


def test_linear_backward_products_at_batch_one_run_our_loops():
    # g @ W with W row-major (the input gradient) and g^T @ x with K = 1 (the
    # weight gradient): our loops, values as numpy's in float64.
    rng = np.random.default_rng(5)
    for m, k, n in ((1, 1024, 784), (2, 300, 70)):
        g = rng.standard_normal((m, k)).astype(np.float32)
        w = rng.standard_normal((k, n)).astype(np.float32)
        with axle.trace() as t:
            got = axle.mm(axle.tensor(g), axle.tensor(w))
        assert t.events[-1]["plugin"] == "cpu"
        np.testing.assert_allclose(np.asarray(got), g.astype(np.float64) @ w, rtol=1e-5, atol=1e-4)
    col = rng.standard_normal((1024, 1)).astype(np.float32)
    row = rng.standard_normal((1, 784)).astype(np.float32)
    with axle.trace() as t:
        outer = axle.mm(axle.tensor(col), axle.tensor(row))
        scaled = axle.addmm(axle.zeros(1024, 784), axle.tensor(col), axle.tensor(row), beta=0, alpha=0.5)
    assert all(e["plugin"] == "cpu" for e in t.events if e["op"] in ("mm", "addmm"))
    np.testing.assert_array_equal(np.asarray(outer), col * row)
    np.testing.assert_allclose(np.asarray(scaled), 0.5 * col * row, rtol=1e-6)
    # sum()'s gradient is one row expanded (stride 0): copied dense, then oneDNN.
    w = rng.standard_normal((10, 64)).astype(np.float32)
    with axle.trace() as t:
        got = axle.mm(axle.ones(1, 10).expand(32, 10), axle.tensor(w))
    assert t.events[-1]["plugin"] == "cpu"
    np.testing.assert_allclose(np.asarray(got), np.ones((32, 10)) @ w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mask", [[1, 1, 1], [1, 0, 0], [0, 1, 1]])
def test_layer_norm_backward_runs_our_loops(mask):
    # The transformer's shapes: rows of 512, statistics recomputed (axle's layer_norm
    # returns none) or given as torch's; values as torch's autograd.
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 33, 512)).astype(np.float32)
    g = rng.standard_normal((4, 33, 512)).astype(np.float32)
    w = (1 + 0.1 * rng.standard_normal(512)).astype(np.float32)
    b = rng.standard_normal(512).astype(np.float32)
    for stats in (False, True):
        tx = torch.from_numpy(x)
        mean = tx.mean(-1, keepdim=True)
        rstd = torch.rsqrt(tx.var(-1, unbiased=False, keepdim=True) + 1e-5)
        st = (axle.tensor(mean.numpy()), axle.tensor(rstd.numpy())) if stats else (None, None)
        with axle.trace() as t:
            got = axle.native_layer_norm_backward(axle.tensor(g), axle.tensor(x), [512], *st, axle.tensor(w),
                                                  axle.tensor(b), mask)
        assert [e for e in t.events if e["depth"] == 0][-1]["plugin"] == "cpu"
        want = torch.ops.aten.native_layer_norm_backward(torch.from_numpy(g), tx, [512], mean, rstd,
                                                         torch.from_numpy(w), torch.from_numpy(b),
                                                         [bool(m) for m in mask])
        for a, t_, m in zip(got, want, mask):
            if not m:
                assert a is None
                continue
            np.testing.assert_allclose(np.asarray(a), t_.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_backward_runs_onednn(log):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    s = rng.standard_normal((4, 8, 64, 64)).astype(np.float32)
    g = rng.standard_normal(s.shape).astype(np.float32)
    ts = torch.from_numpy(s).requires_grad_()
    y = (torch.log_softmax if log else torch.softmax)(ts, -1)
    y.backward(torch.from_numpy(g))
    op = axle._log_softmax_backward_data if log else axle._softmax_backward_data
    with axle.trace() as t:
        got = op(axle.tensor(g), axle.tensor(y.detach().numpy()), -1, axle.float32)
    assert t.events[-1]["plugin"] == "cpu"
    np.testing.assert_allclose(np.asarray(got), ts.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("n", [1, 15, 1023, 1025, 300001])
def test_whole_tensor_norms_run_our_loop(n):
    # clip_grad_norm_'s per-gradient norms: the 1- and 2-norm of a whole float32
    # tensor on the plugin's loop (oneDNN has only its reference reduction for
    # norms), as precise as float64 sums; NaN and infinity propagate.
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    X = axle.tensor(x).reshape(-1, 1) if n % 2 else axle.tensor(x)
    for p, want in ((2.0, np.sqrt((x.astype(np.float64) ** 2).sum())), (1.0, np.abs(x.astype(np.float64)).sum())):
        with axle.trace() as t:
            got = axle.norm(X, p)
        served = [e for e in t.events if e["op"] == "norm.ScalarOpt_dim"]
        assert served and served[-1]["plugin"] == "cpu", served
        assert got.item() == pytest.approx(want, rel=2e-7)
    x[n // 2] = np.inf
    assert axle.norm(axle.tensor(x), 2.0).item() == np.inf
    x[n // 2] = np.nan
    assert np.isnan(axle.norm(axle.tensor(x), 1.0).item())


@pytest.mark.parametrize("shape,k,stride,pad", [((2, 8, 16, 16), 1, 2, 0), ((1, 4, 15, 17), 3, 2, 0),
                                                ((2, 3, 9, 9), 2, 3, 0), ((1, 4, 10, 11), 3, 3, 1),
                                                ((4, 64, 16, 16), 1, 2, 0), ((2, 32, 5, 5), 1, 1, 0)])
def test_convolutions_whose_stride_leaves_input_unread_run_onednn(shape, k, stride, pad):
    # A stride that does not divide the input (ResNet's 1x1 stride-2 downsampling
    # of 16 columns reads 15): the plugin describes the input without the unread
    # elements (oneDNN takes no negative right padding) and zeroes their gradient.
    # 1x1 kernels run on the tensors' own layouts in both directions.
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(k * 10 + stride)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((5, shape[1], k, k)).astype(np.float32)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    ty = torch.nn.functional.conv2d(tx, tw, stride=stride, padding=pad)
    g = rng.standard_normal(tuple(ty.shape)).astype(np.float32)
    (ty * torch.tensor(g)).sum().backward()
    ax, aw = axle.tensor(x, requires_grad=True), axle.tensor(w, requires_grad=True)
    with axle.trace() as t:
        ay = axle.nn.functional.conv2d(ax, aw, stride=stride, padding=pad)
        ay.backward(axle.tensor(g))
    served = {e["op"]: e["plugin"] for e in t.events if e["op"] in ("convolution.out", "convolution_backward")}
    assert served == {"convolution.out": "cpu", "convolution_backward": "cpu"}, served
    np.testing.assert_allclose(np.asarray(ay.detach()), ty.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(ax.grad), tx.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(aw.grad), tw.grad.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("exponent", [2, 0.5, -1, 3, 2.5, -2.0])
def test_pow_by_one_number_runs_onednn(exponent):
    # `x ** 2` reaches pow.Tensor_Tensor with a 0-d exponent: the plugin serves it
    # (x * x, sqrt, 1 / x exactly; oneDNN's pow otherwise), NaN where torch's is.
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(70000) * 3).astype(np.float32)
    x[:4] = [0.0, -0.0, np.nan, np.inf]
    with axle.trace() as t:
        got = axle.tensor(x) ** exponent
    assert [e["plugin"] for e in t.events if e["op"] == "pow.Tensor_Tensor"] == ["cpu"]
    want = torch.tensor(x) ** exponent
    np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=2e-6, atol=0, equal_nan=True)


def test_relu_in_place_runs_our_loop_and_keeps_nan():
    x = np.random.default_rng(4).standard_normal(50000).astype(np.float32)
    x[7] = np.nan
    t = axle.tensor(x)
    with axle.trace() as tr:
        t.relu_()
    assert [e["plugin"] for e in tr.events if e["op"] == "relu_"] == ["cpu"]
    np.testing.assert_array_equal(np.asarray(t), np.where(x < 0, 0, x))


@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "strided"])
def test_relu_out_of_place_keeps_nan_in_any_layout(layout):
    # Dense float32 runs our one-pass loop (split across threads above 2^20
    # elements) in the input's layout; a strided input goes to the reference.
    x = np.random.default_rng(5).standard_normal((4, 8, 200, 180)).astype(np.float32)
    x.reshape(-1)[[3, 70001, 1000003]] = np.nan
    t = axle.tensor(x)
    if layout == "channels_last":
        t = t.contiguous(memory_format=axle.channels_last)
    elif layout == "strided":
        t, x = t[:, ::2], x[:, ::2]
    with axle.trace() as tr:
        got = axle.relu(t)
    if layout != "strided":
        assert [e["plugin"] for e in tr.events if e["op"] == "relu"] == ["cpu"]
        assert got.stride() == t.stride()
    assert np.isnan(np.asarray(got)).sum() == np.isnan(x).sum() > 0
    np.testing.assert_array_equal(np.asarray(got), np.where(x < 0, 0, x))


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape", [(4, 6, 5, 7), (8, 3), (2, 5, 9)])
def test_batch_norm_training_runs_the_plugin_with_batch_statistics(affine, shape):
    # F.batch_norm in training with running statistics (what nn.BatchNorm runs)
    # is one _native_batch_norm_legit call, whose cpu kernel also updates them;
    # _native_batch_norm_legit.no_stats is the form without: the cpu plugin's
    # loops compute the batch's mean and 1 / sqrt(var + eps) into the statistics
    # outputs, any rank; aten batch_norm with training=True runs oneDNN's
    # forward_training primitive with the statistics in scratch. The outputs,
    # the statistics and the running statistics as torch's.
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 2 + 1).astype(np.float32)
    w = rng.standard_normal(shape[1]).astype(np.float32) if affine else None
    b = rng.standard_normal(shape[1]).astype(np.float32) if affine else None
    A = (lambda a: None if a is None else axle.tensor(a))
    T = (lambda a: None if a is None else torch.tensor(a))
    arm, arv = axle.zeros(shape[1]), axle.ones(shape[1])
    trm, trv = torch.zeros(shape[1]), torch.ones(shape[1])
    with axle.trace() as t:
        got = axle.nn.functional.batch_norm(axle.tensor(x), arm, arv, A(w), A(b), True, 0.1, 1e-5)
        direct = axle.batch_norm(axle.tensor(x), A(w), A(b), None, None, True, 0.1, 1e-5, False)
        _, mean, invstd = axle._native_batch_norm_legit(axle.tensor(x), A(w), A(b), True, 0.1, 1e-5)
    # 3-d inputs (N, C, L) are not described to oneDNN: the reference plugin serves aten batch_norm.
    assert [e["plugin"] for e in t.events if e["op"] == "_native_batch_norm_legit"] == ["cpu"]
    assert [e["plugin"] for e in t.events if e["op"] == "_native_batch_norm_legit.no_stats"] == ["cpu"]
    assert [e["plugin"] for e in t.events if e["op"] == "batch_norm"] == ["cpu" if len(shape) != 3 else "reference"]
    want = torch.nn.functional.batch_norm(torch.tensor(x), trm, trv, T(w), T(b), True, 0.1, 1e-5)
    np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-5, atol=2e-5)
    np.testing.assert_allclose(np.asarray(direct), want.numpy(), rtol=1e-5, atol=2e-5)
    np.testing.assert_allclose(arm.numpy(), trm.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(arv.numpy(), trv.numpy(), rtol=1e-5, atol=1e-6)
    dims = tuple(d for d in range(len(shape)) if d != 1)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(mean.numpy(), x64.mean(dims), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(invstd.numpy(), 1 / np.sqrt(x64.var(dims) + 1e-5), rtol=1e-5)


@pytest.mark.parametrize("shape", [(4, 6, 5, 7), (8, 3), (3, 4, 9)])
@pytest.mark.parametrize("stats", [False, True])
def test_batch_norm_backward_in_training_runs_our_loop(shape, stats):
    # native_batch_norm_backward with the batch's statistics (given, or computed
    # by the plugin in double when None) on the cpu plugin's loops, any rank.
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape) + 10 * stats)
    x = (rng.standard_normal(shape) * 2 + 1).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(shape[1]).astype(np.float32)
    dims = tuple(d for d in range(len(shape)) if d != 1)
    mean = x.astype(np.float64).mean(dims)
    invstd = 1 / np.sqrt(x.astype(np.float64).var(dims) + 1e-5)
    args = [axle.tensor(a) for a in (g, x, w)] + [None, None]
    args += [axle.tensor(mean.astype(np.float32)), axle.tensor(invstd.astype(np.float32))] if stats else [None, None]
    with axle.trace() as t:
        gx, gw, gb = axle.native_batch_norm_backward(*args, True, 1e-5, [1, 1, 1])
    served = [e["plugin"] for e in t.events if e["op"] == "native_batch_norm_backward"]
    assert served == ["cpu"], served
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    tb = torch.zeros(shape[1], requires_grad=True)
    torch.nn.functional.batch_norm(tx, None, None, tw, tb, True, 0.1, 1e-5).backward(torch.tensor(g))
    for got, want in ((gx, tx.grad), (gw, tw.grad), (gb, tb.grad)):
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("shape", [(4, 6, 5, 7), (2, 3, 1000), (3, 2, 4, 5, 6)])
@pytest.mark.parametrize("mean", [False, True])
def test_per_channel_sums_run_our_loop(shape, mean):
    # Batch norm's statistics: the sum / mean over every dim but the channels of
    # a contiguous (N, C, ...) tensor, in double over each channel's planes.
    x = (np.random.default_rng(len(shape)).standard_normal(shape) * 3 + 1).astype(np.float32)
    dims = tuple(d for d in range(len(shape)) if d != 1)
    with axle.trace() as t:
        got = axle.tensor(x).mean(dims) if mean else axle.tensor(x).sum(dims)
    assert [e["plugin"] for e in t.events if e["depth"] == 0][-1] == "cpu"
    want = x.astype(np.float64).mean(dims) if mean else x.astype(np.float64).sum(dims)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-5)


def test_addmm_with_a_stepped_bias_is_not_read_as_dense():
    # oneDNN's matmul reads its bias as dense: a stepped slice is left to the
    # next plugin (it once gave x @ W^T + b[:40] for b[::2]).
    rng = np.random.default_rng(9)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    w = rng.standard_normal((40, 16)).astype(np.float32)
    b = rng.standard_normal(80).astype(np.float32)
    got = axle.addmm(axle.tensor(b)[::2], axle.tensor(x), axle.tensor(w).t())
    np.testing.assert_allclose(np.asarray(got), x.astype(np.float64) @ w.T + b[::2], rtol=1e-5, atol=1e-5)


def test_embedding_rows_run_our_index_select_and_index_put():
    # embedding's rows (index_select on dim 0) and its gradient (an accumulating
    # index_put_ with repeated and negative indices): whole rows on the cpu
    # plugin, the values of torch; an index out of range is the reference's error.
    import torch
    rng = np.random.default_rng(7)
    w = rng.standard_normal((50, 24)).astype(np.float32)
    idx = rng.integers(0, 50, (7, 9))
    idx[0, :3] = 4  # repeated rows add up in order
    W = axle.tensor(w, requires_grad=True)
    with axle.trace() as t:
        out = axle.nn.functional.embedding(axle.tensor(idx), W)
        out.backward(axle.tensor(np.arange(out.numel(), dtype=np.float32).reshape(out.shape)))
    served = {e["op"] for e in t.events if e["plugin"] == "cpu"}
    assert {"index_select", "index_put_"} <= served, served
    tw = torch.tensor(w, requires_grad=True)
    tout = torch.nn.functional.embedding(torch.tensor(idx), tw)
    tout.backward(torch.arange(tout.numel(), dtype=torch.float32).reshape(tout.shape))
    np.testing.assert_array_equal(np.asarray(out.detach()), tout.detach().numpy())
    np.testing.assert_array_equal(np.asarray(W.grad), tw.grad.numpy())
    for dtype, acc in ((axle.float64, True), (axle.int32, False)):
        base = axle.zeros(6, 3, dtype=dtype)
        vals = axle.arange(12, dtype=dtype).reshape(4, 3)
        with axle.trace() as t:
            base.index_put_((axle.tensor([1, -1, 1, 0]),), vals, accumulate=acc)
        assert [e["plugin"] for e in t.events if e["op"] == "index_put_"] == ["cpu"]
        tb = torch.zeros(6, 3, dtype=getattr(torch, dtype.name))
        tb.index_put_((torch.tensor([1, -1, 1, 0]),), torch.arange(12).reshape(4, 3).to(tb.dtype), accumulate=acc)
        np.testing.assert_array_equal(np.asarray(base), tb.numpy())
    with pytest.raises(IndexError, match=r"index_select\(\): index 50 is out of bounds for dimension 0 with size 50"):
        axle.index_select(axle.tensor(w), 0, axle.tensor([1, 50]))
    with pytest.raises(IndexError, match=r"index_put_: index -7 is out of bounds for dimension 0 with size 6"):
        axle.zeros(6, 3).index_put_((axle.tensor([0, -7]),), axle.ones(2, 3), accumulate=True)


@pytest.mark.parametrize("threads", [1, 2])
def test_convolutions_with_few_output_positions_run_our_gemms(threads, tmp_path):
    # Up to 16 output positions (N * OH * OW) the forward and the input gradient,
    # up to 64 the weight and bias gradients, are sgemm calls on the plain
    # tensors (im2col / col2im): stride, padding, dilation, rectangular kernels,
    # channels_last input, a transposed-layout grad_output, every mask; values
    # as torch's in float64.
    _, r = run_verbose("""
        import torch
        rng = np.random.default_rng(5)
        out = {}
        cases = [((4, 16, 2, 2), (24, 16, 3, 3), 1, 1, 1, True), ((4, 8, 4, 4), (12, 8, 3, 3), 2, 1, 1, False),
                 ((2, 5, 5, 7), (6, 5, 3, 2), 2, (1, 0), (2, 1), True), ((1, 3, 3, 3), (4, 3, 1, 1), 1, 0, 1, True),
                 ((4, 8, 4, 4), (8, 8, 3, 3), 1, 1, 1, True), ((2, 6, 9, 9), (5, 6, 3, 3), 2, 0, 1, False)]
        for k, (xs, ws, stride, pad, dil, bias) in enumerate(cases):
            x = rng.standard_normal(xs); w = rng.standard_normal(ws); b = rng.standard_normal(ws[0])
            X = axle.tensor(x, dtype=axle.float32)
            if k % 2:
                X = X.contiguous(memory_format=axle.channels_last)
            X.requires_grad_()
            W = axle.tensor(w, dtype=axle.float32, requires_grad=True)
            B = axle.tensor(b, dtype=axle.float32, requires_grad=True) if bias else None
            y = axle.nn.functional.conv2d(X, W, B, stride, pad, dil)
            g = rng.standard_normal(tuple(y.shape))
            G = axle.tensor(g.transpose(0, 1, 3, 2).copy(), dtype=axle.float32).transpose(2, 3) if k % 3 == 0 else \\
                axle.tensor(g, dtype=axle.float32)
            with axle.trace() as t:
                y = axle.nn.functional.conv2d(X, W, B, stride, pad, dil)
                y.backward(G)
            plugins = sorted({e["plugin"] for e in t.events if e["op"] in ("convolution.out", "convolution_backward")})
            tx = torch.tensor(x, requires_grad=True); tw = torch.tensor(w, requires_grad=True)
            tb = torch.tensor(b, requires_grad=True) if bias else None
            ty = torch.nn.functional.conv2d(tx, tw, tb, stride, pad, dil)
            ty.backward(torch.tensor(g))
            pairs = [(y.detach(), ty), (X.grad, tx.grad), (W.grad, tw.grad)] + ([(B.grad, tb.grad)] if bias else [])
            errs = [float(np.max(np.abs(np.asarray(a) - t_.detach().numpy())) / (1 + np.max(np.abs(t_.detach().numpy()))))
                    for a, t_ in pairs]
            # the mask variants: one gradient at a time
            for mask in ([1, 0, 0], [0, 1, 0], [0, 1, 1] if bias else [0, 1, 0]):
                got = axle.convolution_backward(G, X.detach(), W.detach(), [ws[0]] if bias else None,
                                                [stride] * 2 if isinstance(stride, int) else list(stride),
                                                [pad] * 2 if isinstance(pad, int) else list(pad),
                                                [dil] * 2 if isinstance(dil, int) else list(dil), False, [0, 0], 1, mask)
                want = (tx.grad, tw.grad, tb.grad if bias else None)
                for m_, a, t_ in zip(mask, got, want):
                    errs.append(None if not m_ else float(np.max(np.abs(np.asarray(a) - t_.numpy())) /
                                                          (1 + np.max(np.abs(t_.numpy())))))
            out[str(k)] = [plugins, errs]
        print(json.dumps(out))
    """, {"cpu": {"threads": threads}}, tmp_path)
    assert len(r) == 6
    for case, (plugins, errs) in r.items():
        assert plugins == ["cpu"], case
        assert all(e is None or e < 1e-5 for e in errs), (case, errs)
