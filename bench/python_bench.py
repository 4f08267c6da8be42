#!/usr/bin/env python3
"""Per-call time of axle.add(a, b) and a + b on 1-element float tensors against
torch.add and numpy add (each library in its own process, medians of repeats),
and `import` process times. Run through scripts/bench."""
import json
import statistics
import subprocess
import sys
import timeit

SETUP = {
    "axle": "import axle; a = axle.ones(1); b = axle.ones(1); f = axle.add",
    "torch": "import torch; torch.set_num_threads(1); a = torch.ones(1); b = torch.ones(1); f = torch.add",
    "numpy": "import numpy; a = numpy.ones(1, dtype=numpy.float32); b = numpy.ones(1, dtype=numpy.float32); f = numpy.add",
}


def measure_in_process(lib):
    number = 100000
    out = {}
    for label, stmt in (("call", "f(a, b)"), ("operator", "a + b")):
        runs = timeit.repeat(stmt, setup=SETUP[lib], number=number, repeat=9)
        out[label] = statistics.median(runs) / number * 1e9
    return out


def run_child(lib):
    res = subprocess.run([sys.executable, __file__, "--child", lib], capture_output=True, text=True, check=True)
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
    results = {lib: run_child(lib) for lib in ("axle", "torch", "numpy")}
    torch_call = results["torch"]["call"]
    print("%-34s %10s %10s" % ("1-element float32 add", "ns/call", "vs torch"))
    for lib in ("axle", "torch", "numpy"):
        for label in ("call", "operator"):
            ns = results[lib][label]
            name = "%s.add(a, b)" % lib if label == "call" else "%s: a + b" % lib
            print("%-34s %10.0f %10.2f" % (name, ns, ns / torch_call))
    base = import_time("pass")
    ax = import_time("import axle")
    th = import_time("import torch")
    print("%-34s %10.1f ms" % ("python3 -c pass", base))
    print("%-34s %10.1f ms  (+%.1f ms, %.3fx import torch)" % ("python3 -c 'import axle'", ax, ax - base, ax / th))
    print("%-34s %10.1f ms" % ("python3 -c 'import torch'", th))


if __name__ == "__main__":
    main()
