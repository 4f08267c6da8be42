"""Trace mode, axle.configure and the matmul-precision / deterministic settings from Python."""
import json
import os

import pytest

import axle


def test_trace_records_kernel_and_provenance(tmp_path):
    a = axle.ones(2, 3)
    with axle.trace() as t:
        axle.add(a, a)
    assert not axle.trace_enabled()
    adds = [e for e in t.events if e["op"] == "add.Tensor"]
    assert len(adds) == 1
    e = adds[0]
    assert e["kind"] == "kernel" and e["plugin"] and ".cpp:" in e["provenance"]
    assert e["inputs"] == [("float32", (2, 3), "cpu:0"), ("float32", (2, 3), "cpu:0")]
    assert e["line"].startswith("add.Tensor on cpu:0 ran kernel of plugin")
    path = tmp_path / "trace.json"
    t.export_chrome_trace(str(path))
    doc = json.loads(path.read_text())
    assert any(ev["name"] == "add.Tensor" and ev["ph"] == "X" for ev in doc["traceEvents"])


def test_configure_layers_and_errors():
    axle.configure(fallback={"ops": {"exp": "warn_once"}})
    keys = {e["key"]: e for e in axle.config_sources()}
    assert keys["fallback.ops.exp"]["layer"] == "application"
    with pytest.raises(axle.ConfigError, match="did you mean 'matmul_precision'"):
        axle.configure(matmul_precison="high")
    with pytest.raises(axle.ConfigError, match="'deterministic' must be a boolean"):
        axle.configure(deterministic="yes")


def test_matmul_precision_and_deterministic():
    assert axle.get_float32_matmul_precision() == "highest"
    axle.set_float32_matmul_precision("high")
    assert axle.get_float32_matmul_precision() == "high"
    with pytest.raises(axle.ConfigError):
        axle.set_float32_matmul_precision("fast")
    axle.set_float32_matmul_precision("highest")
    axle.use_deterministic_algorithms(True)
    assert axle.are_deterministic_algorithms_enabled()
    axle.use_deterministic_algorithms(False)


def test_trace_env_writes_chrome_trace_at_exit(tmp_path):
    import subprocess
    import sys
    out = tmp_path / "exit-trace.json"
    env = {**os.environ, "AXLE_TRACE_FILE": str(out)}
    subprocess.run([sys.executable, "-c", "import axle; a = axle.ones(3); (a * a).sum()"], env=env, check=True)
    doc = json.loads(out.read_text())
    names = [ev["name"] for ev in doc["traceEvents"]]
    assert "mul.Tensor" in names and "sum" in names


def test_trace_enabled_through_configure():
    assert not axle.trace_enabled()
    axle.configure(trace={"enabled": True})
    assert axle.trace_enabled()
    axle.clear_trace()
    axle.ones(2) + 1
    assert any(e["op"] == "add.Tensor" for e in axle.trace_events())
    axle.configure(trace={"enabled": False})
    assert not axle.trace_enabled()
