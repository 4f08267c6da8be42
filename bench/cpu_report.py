#!/usr/bin/env python3
"""The CPU plugin's benchmark table: axle's cpu plugin against raw oneDNN (same
process, bench_cpu) and PyTorch 1.13 (its own process, torch_kernels.py) at 1
and 2 threads, plus the model forward passes and training steps (models.py, --train). Every ratio is
measured in the same run; the targets are the TARGETS table below. Misses are printed, not
hidden.

Usage: python3 bench/cpu_report.py --build BUILD_DIR [--threads 1,2] [--quick] [--json]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# case prefix -> (compared with, minimum axle/raw)
TARGETS = [
    ("matmul", 0.95),
    ("conv2d", 0.95),
    ("softmax", 0.95),
    ("layer_norm", 0.95),
    ("add 16M f32, out=", 0.9),
    ("add 16M f32, allocating", 0.7),
]


def target_of(case):
    for prefix, t in TARGETS:
        if case.startswith(prefix):
            return t
    return None


def json_lines(cmd, env=None):
    """The JSON objects a benchmark prints one per line; exits naming the command on failure."""
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if res.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{res.stderr}")
    return [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-models", action="store_true")
    args = ap.parse_args()
    quick = ["--quick"] if args.quick else []
    env = dict(os.environ, AXLE_PLUGIN_PATH="", AXLE_CONFIG="")
    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        axle_rows = json_lines([os.path.join(args.build, "bench", "bench_cpu"), "--threads", str(threads)] + quick, env)
        # torch.set_num_threads does not reach OpenBLAS (torch's float32 matmul on
        # Debian), whose own pool defaults to every core: pin every pool.
        pools = {k: str(threads) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
        torch_rows = {r["case"]: r["torch"] for r in json_lines(
            [sys.executable, os.path.join(HERE, "torch_kernels.py"), "--threads", str(threads)] + quick,
            dict(os.environ, **pools))}
        for r in axle_rows:
            t = target_of(r["case"])
            ratio = r["axle"] / r["raw"]
            rows.append({"case": r["case"], "threads": threads, "unit": r["unit"], "axle": r["axle"], "raw": r["raw"],
                         "torch": torch_rows.get(r["case"]), "axle/raw": round(ratio, 3),
                         "axle/torch": round(r["axle"] / torch_rows[r["case"]], 3) if r["case"] in torch_rows else None,
                         "target": f">= {t}x raw" if t else "", "met": (ratio >= t) if t else None})
    model_rows = []
    if not args.no_models:
        out = subprocess.run([sys.executable, os.path.join(HERE, "models.py"), "--threads", args.threads, "--json",
                              "--pythonpath", os.path.join(os.path.abspath(args.build), "bindings", "python")],
                             check=True, capture_output=True, text=True, env=env).stdout
        model_rows = json.loads(out)
        # Training steps (forward + backward), the same models.
        out = subprocess.run([sys.executable, os.path.join(HERE, "models.py"), "--threads", args.threads, "--json",
                              "--train", "--pythonpath", os.path.join(os.path.abspath(args.build), "bindings",
                                                                       "python")],
                             check=True, capture_output=True, text=True, env=env).stdout
        model_rows += json.loads(out)
    if args.json:
        print(json.dumps({"kernels": rows, "models": model_rows}, indent=1))
        return
    print(f"{'case':<26}{'thr':>4}{'unit':>9}{'axle':>9}{'raw':>9}{'torch':>9}{'ax/raw':>8}{'ax/torch':>9}"
          f"  {'target':<14}met")
    for r in rows:
        torch_v = f"{r['torch']:>9.1f}" if r["torch"] is not None else f"{'-':>9}"
        ratio_t = f"{r['axle/torch']:>9.2f}" if r["axle/torch"] is not None else f"{'-':>9}"
        met = "" if r["met"] is None else ("yes" if r["met"] else "MISS")
        print(f"{r['case']:<26}{r['threads']:>4}{r['unit']:>9}{r['axle']:>9.1f}{r['raw']:>9.1f}{torch_v}"
              f"{r['axle/raw']:>8.2f}{ratio_t}  {r['target']:<14}{met}")
    if model_rows:
        print()
        print(f"{'model':<13}{'batch':>6}{'thr':>4}{'torch ms':>10}{'axle ms':>10}{'ax/torch':>9}  {'target':<8}met   "
              f"max|diff|")
        for m in model_rows:
            target = f"<= {m['target']}x"
            print(f"{m['model']:<13}{m['batch']:>6}{m['threads']:>4}{m['torch_ms']:>10.3f}{m['axle_ms']:>10.3f}"
                  f"{m['ratio']:>9.2f}  {target:<8}{'yes' if m['met'] else 'MISS':<6}{m['max_abs_diff']:.2e}"
                  f"{'' if m['match'] else '  MISMATCH'}")


if __name__ == "__main__":
    main()
