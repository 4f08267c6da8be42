#!/usr/bin/env python3
"""PyTorch's side of the GPU table (bench/cuda_report.py), in its own
process: the same cases as bench_cuda, by the same names, timed the same way
(models.time_forward: the median of loops, each ending with torch.cuda.synchronize()).
Prints one JSON object per line {"case", "torch"}
in the unit bench_cuda uses for that case; prints {"skipped": reason} when
torch has no CUDA device.

Usage: python3 bench/torch_cuda.py [--quick]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import time_forward  # noqa: E402  (the same median-of-loops timing)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    budget = 2.0 if args.quick else 6.0  # seconds per case at most
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
    emit("add 256M f32, out=", nbytes / time_forward(lambda: torch.add(a, b, out=out), budget, sync) / 1e9)
    emit("add 256M f32, allocating", nbytes / time_forward(lambda: torch.add(a, b), budget, sync) / 1e9)
    del a, b, out
    x, y = torch.rand(1, device=dev), torch.rand(1, device=dev)
    emit("add 1 element (latency)", time_forward(lambda: torch.add(x, y), budget, sync) * 1e6)

    m = 4096
    for label, dtype, tf32 in (("f32", torch.float32, False), ("TF32", torch.float32, True),
                               ("bf16", torch.bfloat16, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        p, q = torch.rand(m, m, device=dev, dtype=dtype), torch.rand(m, m, device=dev, dtype=dtype)
        emit(f"matmul 4096 {label}", 2.0 * m ** 3 / time_forward(lambda: torch.mm(p, q), budget, sync) / 1e12)
    torch.backends.cuda.matmul.allow_tf32 = False


if __name__ == "__main__":
    main()
