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
