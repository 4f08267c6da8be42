#!/usr/bin/env python3
"""`axle ops`: the coverage matrix as text, JSON and a self-contained HTML file.

The HTML file is parsed (one row per declared operator, a known status in every
cell, the same matrix as --json) and, when Debian's `chromium` is installed
(scripts/test installs it), rendered headless to BUILD_DIR/ops-matrix.png.
Usage: test_ops_matrix.py AXLE BUILD_DIR; AXLE_PLUGIN_PATH holds the cpu_high and
arena test plugins (tests/meson.build). Standard library only.
"""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

STATUSES = {"kernel", "declines", "composite", "falls through", "host fallback", "missing"}


def run(axle, *args, expect=0):
    p = subprocess.run([axle, *args], capture_output=True, text=True, timeout=300)
    assert p.returncode == expect, f"axle {' '.join(args)} exited {p.returncode}, expected {expect}:\n{p.stderr}"
    return p


class MatrixParser(html.parser.HTMLParser):
    """Collects the operator rows (<tr class="op" data-op=...>) and their cells' data-status."""

    def __init__(self):
        super().__init__()
        self.rows = []  # (op, [status, ...])
        self.backends = []
        self.legend = set()
        self.tags = set()
        self.external = []  # src/href that would fetch something
        self.in_row = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        for key in ("src", "href"):
            if key in a:
                self.external.append(f"<{tag} {key}={a[key]}>")
        if tag == "tr" and "op" in (a.get("class") or "").split():
            self.rows.append((a["data-op"], []))
            self.in_row = True
        elif tag == "td" and self.in_row:
            self.rows[-1][1].append(a.get("data-status"))
        elif tag == "th" and "data-backend" in a:
            self.backends.append(a["data-backend"])
        elif tag == "li" and "data-status" in a:
            self.legend.add(a["data-status"])

    def handle_endtag(self, tag):
        if tag == "tr":
            self.in_row = False


def main():
    axle, build_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])

    # --json: the matrix as data.
    m = json.loads(run(axle, "ops", "--json").stdout)
    backends = [b["name"] for b in m["backends"]]
    names = run(axle, "ops", "--names").stdout.split()
    ops = [r["op"] for r in m["ops"]]
    assert ops == names, "one entry per declared operator, in op_names() order"
    assert len(set(ops)) == len(ops) and len(ops) > 100, len(ops)
    assert set(m["legend"]) == STATUSES, m["legend"]
    assert m["probed"] is False
    cells = {r["op"]: r["cells"] for r in m["ops"]}
    for op, row in cells.items():
        assert sorted(row) == sorted(backends), (op, row)
        assert set(row.values()) <= STATUSES, (op, row)
        assert "declines" not in row.values(), "declines only with --probe"
    for b in backends:
        assert m["totals"][b]["declines"] is None, "unknown without --probe, not 0"
        assert sum(v for v in m["totals"][b].values() if v is not None) == len(ops), (b, m["totals"][b])
    for b in ("reference/cpu", "cpu_high/cpu", "arena/arena"):
        assert b in backends, (b, backends)

    # The reference plugin implements every built-in op that has no composite.
    ref = {op: row["reference/cpu"] for op, row in cells.items()}
    assert set(ref.values()) <= {"kernel", "composite"}, {op: s for op, s in ref.items() if s not in ("kernel", "composite")}
    assert ref["add.Tensor"] == "kernel" and ref["mul.Tensor"] == "kernel", ref
    # cpu_high (tests/plugins/cpu_high) has add.Tensor only: mul falls through to
    # the next cpu kernel, a composite op runs its composite.
    assert cells["add.Tensor"]["cpu_high/cpu"] == "kernel", cells["add.Tensor"]
    assert cells["mul.Tensor"]["cpu_high/cpu"] == "falls through", cells["mul.Tensor"]
    assert cells["sum"]["cpu_high/cpu"] == "composite", cells["sum"]
    # The arena device: its own add, composites, the host fallback for the rest.
    arena = [row["arena/arena"] for row in cells.values()]
    assert cells["add.Tensor"]["arena/arena"] == "kernel"
    assert "composite" in arena and "host fallback" in arena, sorted(set(arena))
    if "cpu/cpu" in backends:  # the oneDNN plugin lacks ops: the reference plugin runs them
        assert "falls through" in [row["cpu/cpu"] for row in cells.values()]

    # --html: one self-contained file, the same matrix.
    path = os.path.join(build_dir, "ops-matrix.html")
    out = run(axle, "ops", "--html", path).stdout
    assert path in out, out
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p = MatrixParser()
    p.feed(text)
    p.close()
    assert p.backends == backends, (p.backends, backends)
    assert [op for op, _ in p.rows] == ops, "one <tr class=op> per operator"
    for op, statuses in p.rows:
        assert len(statuses) == len(backends), (op, statuses)
        assert set(statuses) <= STATUSES, (op, statuses)
        assert dict(zip(backends, statuses)) == cells[op], (op, statuses, cells[op])
    assert p.legend == STATUSES, p.legend
    assert "script" not in p.tags and "link" not in p.tags and not p.external, (p.tags, p.external)
    assert "<style>" in text
    print(f"html: {len(p.rows)} operator rows x {len(backends)} backends in {path}")

    # Text: legend, a header naming the backends, one line per op, totals.
    table = run(axle, "ops").stdout
    assert table.startswith("legend:"), table[:200]
    assert "declines: not probed" in table
    lines = table.splitlines()
    header = next(l for l in lines if l.startswith("op "))
    assert all(b in header for b in backends), header
    assert any(l.startswith("mul.Tensor ") for l in lines)
    assert f"{len(ops)} operators, {len(backends)} backends" in table

    # --probe: cpu_high declines every dtype but float32.
    probe = run(axle, "ops", "--probe", "--json")
    pm = json.loads(probe.stdout)
    assert pm["probed"] is True
    pcells = {r["op"]: r["cells"] for r in pm["ops"]}
    assert pcells["add.Tensor"]["cpu_high/cpu"] == "declines", pcells["add.Tensor"]
    assert pcells["mul.Tensor"]["cpu_high/cpu"] == "falls through"
    assert "probing cpu_high/cpu" in probe.stderr, probe.stderr

    # Help, usage errors (exit 2) and an unwritable file (exit 1).
    assert "--html FILE" in run(axle, "ops", "--help").stdout
    run(axle, "ops", "--frobnicate", expect=2)
    run(axle, "ops", "--html", expect=2)
    run(axle, "ops", "extra", expect=2)
    run(axle, "ops", "--html", "/nonexistent/dir/m.html", expect=1)

    # The browser: the file renders on its own (no network, no scripts).
    browser = shutil.which("chromium")
    if browser is None:
        print("chromium is not installed: the browser check was skipped (scripts/test installs it)")
    else:
        png = os.path.join(build_dir, "ops-matrix.png")
        if os.path.exists(png):
            os.remove(png)
        with tempfile.TemporaryDirectory() as profile:
            # Its own HOME / XDG dirs: the test environment points XDG_CONFIG_HOME at a
            # path that must stay nonexistent (chromium would create it).
            env = {**os.environ, "HOME": profile, "XDG_CONFIG_HOME": os.path.join(profile, "config"),
                   "XDG_CACHE_HOME": os.path.join(profile, "cache")}
            r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                                f"--screenshot={png}", "--window-size=1400,2000", "file://" + os.path.abspath(path)],
                               capture_output=True, text=True, timeout=180, env=env)
        assert r.returncode == 0, f"chromium exited {r.returncode}:\n{r.stderr[-2000:]}"
        assert os.path.exists(png) and os.path.getsize(png) > 0, f"no screenshot:\n{r.stderr[-2000:]}"
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", "the screenshot is not a PNG"
        print(f"chromium: screenshot {png} ({os.path.getsize(png)} bytes)")
    print("ops matrix test passed")


if __name__ == "__main__":
    main()
