"""The parity finder from Python and from `axle parity`, with the planted wrong
prelu (tests/plugins/wrong_prelu, on AXLE_PLUGIN_PATH): run by meson as its own
test so that the planted kernel never serves the main Python suite.

usage: test_parity.py AXLE_EXE WORK_DIR
"""
import json
import os
import subprocess
import sys

import axle

AXLE_EXE, WORK = sys.argv[1], sys.argv[2]


def model():
    axle.manual_seed(3)
    x = axle.randn(2, 3, 5, 5)
    w = axle.tensor([0.25, 0.1, 0.5])
    h = axle.nn.functional.conv2d(x, axle.ones(3, 3, 1, 1) * 0.1)
    y = axle.nn.functional.prelu(h, w)
    return (y * 2).sum()


def main():
    # Trace mode answers "which code computed prelu" in one line.
    with axle.trace() as t:
        model()
    prelu_lines = [e["line"] for e in t.events if e["op"] == "prelu" and e["depth"] == 0]
    assert len(prelu_lines) == 1, t.events
    assert "plugin 'wrong_prelu'" in prelu_lines[0] and "wrong_prelu.cpp:" in prelu_lines[0], prelu_lines[0]
    print(prelu_lines[0])

    # The finder, on a function.
    r = axle.parity(model, "cpu@wrong_prelu", "cpu@reference")
    assert not r["ok"], r
    assert r["op"] == "prelu", r
    assert "wrong_prelu.cpp:" in r["ran_a"] and "plugin 'reference'" in r["ran_b"], r
    assert r["max_abs"] > 0
    print(r["report"])
    same = axle.parity(model, "cpu@reference", "cpu@reference")
    assert same["ok"] and same["compared"] > 3, same

    # A recording saved to a file, replayed by the command line.
    rec = axle.record(model)
    assert "prelu" in rec.ops
    path = os.path.join(WORK, "parity-recording.safetensors")
    rec.save(path)
    assert len(axle.Recording.load(path)) == len(rec)
    out = subprocess.run([AXLE_EXE, "parity", path, "--a", "cpu@wrong_prelu", "--b", "cpu@reference", "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 3, (out.returncode, out.stdout, out.stderr)
    j = json.loads(out.stdout)
    assert j["ok"] is False and j["first_difference"]["op"] == "prelu", j
    assert "wrong_prelu.cpp:" in j["first_difference"]["ran_a"], j
    text = subprocess.run([AXLE_EXE, "parity", path, "--a", "cpu@wrong_prelu", "--b", "cpu@reference"],
                          capture_output=True, text=True)
    assert text.returncode == 3 and "first difference at call #" in text.stdout, text.stdout
    agree = subprocess.run([AXLE_EXE, "parity", path, "--a", "cpu", "--b", "cpu@reference", "--atol", "1e-4"],
                           capture_output=True, text=True, env={**os.environ, "AXLE_PLUGIN_PATH": ""})
    assert agree.returncode == 0, (agree.stdout, agree.stderr)
    bad = subprocess.run([AXLE_EXE, "parity", path, "--a", "cpu"], capture_output=True, text=True)
    assert bad.returncode == 2
    missing = subprocess.run([AXLE_EXE, "parity", path + ".nope", "--a", "cpu", "--b", "cpu"],
                             capture_output=True, text=True)
    assert missing.returncode == 1 and "axle: error:" in missing.stderr, missing.stderr
    os.remove(path)
    print("parity: ok")


if __name__ == "__main__":
    main()
