#!/usr/bin/env python3
"""Per-call time of axle.add(a, b) and a + b on 1-element float tensors against
torch.add and numpy add (each library in its own process, medians of repeats),
the same add with one operand requiring grad (a graph node per call), and
`import` process times. --torch-python PY adds the torch of another Python (the
PyTorch 2.x virtualenv of scripts/bench) as a second anchor. Run through
scripts/bench."""
import json
import statistics
import subprocess
import sys
import timeit

SETUP = {
    "axle": "import axle; a = axle.ones(1); b = axle.ones(1); g = axle.ones(1, requires_grad=True); f = axle.add",
    "torch": "import torch; torch.set_num_threads(1); a = torch.ones(1); b = torch.ones(1); "
             "g = torch.ones(1, requires_grad=True); f = torch.add",
    "numpy": "import numpy; a = numpy.ones(1, dtype=numpy.float32); b = numpy.ones(1, dtype=numpy.float32); f = numpy.add",
}


def measure_in_process(lib):
    number = 100000
    out = {}
    for label, stmt in (("call", "f(a, b)"), ("operator", "a + b"), ("grad", "f(g, b)")):
        if label == "grad" and lib == "numpy":
            continue
        runs = timeit.repeat(stmt, setup=SETUP[lib], number=number, repeat=9)
        out[label] = statistics.median(runs) / number * 1e9
    return out


def run_child(lib, python=sys.executable):
    res = subprocess.run([python, __file__, "--child", lib], capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def import_time(code, repeat=7):
    times = []
    for _ in range(repeat):
        res = subprocess.run([sys.executable, "-c",
                              "import time, subprocess, sys; t = time.perf_counter(); "
                              f"subprocess.run([sys.executable, '-c', {code!r}], check=True); "
                              "print(time.perf_counter() - t)"], capture_output=True, text=True, check=True)
        times.append(float(res.stdout))
    return statistics.median(times) * 1e3


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(measure_in_process(sys.argv[2])))
        return
    libs = ["axle", "torch", "numpy"]
    results = {lib: run_child(lib) for lib in libs}
    version = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"], capture_output=True,
                             text=True).stdout.strip()
    names = {"axle": "axle", "torch": "torch " + version, "numpy": "numpy"}
    if len(sys.argv) == 3 and sys.argv[1] == "--torch-python":
        results["torch2"] = run_child("torch", sys.argv[2])
        names["torch2"] = "torch " + subprocess.run([sys.argv[2], "-c", "import torch; print(torch.__version__)"],
                                                    capture_output=True, text=True).stdout.strip()
        libs.insert(2, "torch2")
    anchors = [lib for lib in ("torch", "torch2") if lib in results]
    print("%-46s %10s" % ("1-element float32 add", "ns/call") + "".join(" %14s" % ("vs " + names[a]) for a in anchors))
    for lib in libs:
        for label in ("call", "operator", "grad"):
            if label not in results[lib]:
                continue
            ns = results[lib][label]
            name = {"call": "%s.add(a, b)", "operator": "%s: a + b", "grad": "%s.add(a, b), a requires grad"}[label]
            print("%-46s %10.0f" % (name % names[lib], ns) +
                  "".join(" %14.2f" % (ns / results[a][label]) for a in anchors))
    base = import_time("pass")
    ax = import_time("import axle")
    th = import_time("import torch")
    print("%-46s %10.1f ms" % ("python3 -c pass", base))
    print("%-46s %10.1f ms  (+%.1f ms, %.3fx import torch)" % ("python3 -c 'import axle'", ax, ax - base, ax / th))
    print("%-46s %10.1f ms" % ("python3 -c 'import torch'", th))


if __name__ == "__main__":
    main()
