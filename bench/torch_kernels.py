#!/usr/bin/env python3
"""PyTorch 1.13's side of the CPU kernel benchmark (bench/cpu_bench.cpp has
axle's and raw oneDNN's): the same cases, shapes and units, in its own process
at a given thread count (torch links the same libdnnl and libgomp as axle).
Prints one JSON object per line: {"case", "threads", "unit", "torch"}.

Usage: python3 bench/torch_kernels.py --threads N [--quick]
"""
import argparse
import json
import time

import torch


def median_seconds(f, quick):
    f()
    f()
    t0 = time.perf_counter()
    f()
    once = time.perf_counter() - t0
    iters = max(1, int(0.05 / max(once, 1e-9)))
    samples = []
    for _ in range(3 if quick else 7):
        s = time.perf_counter()
        for _ in range(iters):
            f()
        samples.append((time.perf_counter() - s) / iters)
    samples.sort()
    return samples[len(samples) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    q = args.quick

    def report(case, unit, value):
        print(json.dumps({"case": case, "threads": args.threads, "unit": unit, "torch": round(value, 4)}), flush=True)

    with torch.inference_mode():
        n = 16 << 20
        a, b, out = torch.rand(n), torch.rand(n), torch.empty(n)
        report("add 16M f32, out=", "GB/s", 3 * n * 4 / median_seconds(lambda: torch.add(a, b, out=out), q) / 1e9)
        report("add 16M f32, allocating", "GB/s", 3 * n * 4 / median_seconds(lambda: torch.add(a, b), q) / 1e9)

        x, w, bias = torch.rand(4096, 1024), torch.rand(1024), torch.rand(1024)
        nbytes = 2 * x.numel() * 4
        report("softmax 4096x1024", "GB/s", nbytes / median_seconds(lambda: torch.softmax(x, 1), q) / 1e9)
        report("layer_norm 4096x1024", "GB/s",
               nbytes / median_seconds(lambda: torch.nn.functional.layer_norm(x, (1024,), w, bias), q) / 1e9)

        for dtype, name in ((torch.float32, "float32"), (torch.bfloat16, "bfloat16")):
            for m in (256, 1024, 2048):
                p, r = torch.rand(m, m).to(dtype), torch.rand(m, m).to(dtype)
                report(f"matmul {name} {m}", "GFLOP/s", 2 * m ** 3 / median_seconds(lambda: torch.mm(p, r), q) / 1e9)

        x = torch.rand(8, 64, 56, 56)
        w, bias = torch.rand(64, 64, 3, 3), torch.rand(64)
        flop = 2 * 8 * 64 * 64 * 56 * 56 * 9
        conv = torch.nn.functional.conv2d
        report("conv2d NCHW", "GFLOP/s", flop / median_seconds(lambda: conv(x, w, bias, 1, 1), q) / 1e9)
        xc = x.contiguous(memory_format=torch.channels_last)
        wc = w.contiguous(memory_format=torch.channels_last)
        report("conv2d channels_last", "GFLOP/s", flop / median_seconds(lambda: conv(xc, wc, bias, 1, 1), q) / 1e9)


if __name__ == "__main__":
    main()
