#!/usr/bin/env python3
"""PyTorch's side of issue 6's GPU table (bench/cuda_report.py), in its own
process: the same cases as bench_cuda, by the same names, timed the same way
(the median of rounds of loops, each loop ending with torch.cuda.synchronize()).
Prints one JSON object per line {"case", "torch"}
in the unit bench_cuda uses for that case; prints {"skipped": reason} when
torch has no CUDA device.

Usage: python3 bench/torch_cuda.py [--quick]
"""
import argparse
import json
import statistics
import time


def seconds_per_call(fn, sync, rounds):
    for _ in range(2):
        fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    once = max(time.perf_counter() - t0, 1e-9)
    iters = max(1, int(0.05 / once))
    runs = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        sync()
        runs.append((time.perf_counter() - t0) / iters)
    return statistics.median(runs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rounds = 3 if args.quick else 7
    try:
        import torch
    except ImportError as e:
        print(json.dumps({"skipped": f"torch not importable: {e}"}))
        return
    if not torch.cuda.is_available():
        print(json.dumps({"skipped": "torch has no CUDA device (a CPU-only build, or no GPU)"}))
        return
    dev = torch.device("cuda:0")
    sync = torch.cuda.synchronize

    def emit(case, value):
        print(json.dumps({"case": case, "torch": value}), flush=True)

    n = 256 << 20
    a, b = torch.rand(n, device=dev), torch.rand(n, device=dev)
    out = torch.empty(n, device=dev)
    nbytes = 3.0 * n * 4
    emit("add 256M f32, out=", nbytes / seconds_per_call(lambda: torch.add(a, b, out=out), sync, rounds) / 1e9)
    emit("add 256M f32, allocating", nbytes / seconds_per_call(lambda: torch.add(a, b), sync, rounds) / 1e9)
    del a, b, out
    x, y = torch.rand(1, device=dev), torch.rand(1, device=dev)
    emit("add 1 element (latency)", seconds_per_call(lambda: torch.add(x, y), sync, rounds) * 1e6)

    m = 4096
    for label, dtype, tf32 in (("f32", torch.float32, False), ("TF32", torch.float32, True),
                               ("bf16", torch.bfloat16, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        p, q = torch.rand(m, m, device=dev, dtype=dtype), torch.rand(m, m, device=dev, dtype=dtype)
        emit(f"matmul 4096 {label}", 2.0 * m ** 3 / seconds_per_call(lambda: torch.mm(p, q), sync, rounds) / 1e12)
    torch.backends.cuda.matmul.allow_tf32 = False


if __name__ == "__main__":
    main()
