#!/usr/bin/env python3
"""The GPU benchmark table: axle's cuda plugin against the raw libraries
on cuda:0 (same process, bench_cuda: cuBLAS, device copies, a bare enqueue) and
against PyTorch on the GPU (its own process, torch_cuda.py), plus the model
forward passes on the GPU (models.py --device cuda). Every ratio is measured
in the same run; targets come from the issue. Misses are printed, not hidden.
Without a GPU (or without a CUDA build of torch) the rows say why they are
missing and the script exits 0.

Usage: python3 bench/cuda_report.py --build BUILD_DIR [--quick] [--json] [--no-models]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cpu_report import json_lines  # noqa: E402

# case prefix -> the target the issue sets for it (checked by met())
TARGETS = [
    ("matmul", ">= 0.95x cuBLAS, >= 1.0x torch"),
    ("add 256M", ">= 0.85x D2D copy"),
    ("add 1 element", "<= 1.0x torch time"),
]


def target_of(case):
    for prefix, t in TARGETS:
        if case.startswith(prefix):
            return t
    return ""


def met(row):
    """Whether the row meets its target (None when a side is missing)."""
    c = row["case"]
    if c.startswith("matmul"):
        if row["torch"] is None:
            return row["axle/raw"] >= 0.95
        return row["axle/raw"] >= 0.95 and row["axle"] >= row["torch"]
    if c.startswith("add 256M"):
        return row["axle/raw"] >= 0.85
    if c.startswith("add 1 element"):
        return None if row["torch"] is None else row["axle"] <= row["torch"]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-models", action="store_true")
    args = ap.parse_args()
    quick = ["--quick"] if args.quick else []
    env = dict(os.environ, AXLE_PLUGIN_PATH="", AXLE_CONFIG="")
    bench = os.path.join(args.build, "bench", "bench_cuda")
    if not os.path.exists(bench):
        sys.exit(f"{bench} is missing: the cuda plugin is not built (-Dcuda=enabled needs nvcc)")
    axle_rows = json_lines([bench] + quick, env)
    skipped = [r["skipped"] for r in axle_rows if "skipped" in r]
    torch_lines = json_lines([sys.executable, os.path.join(HERE, "torch_cuda.py")] + quick)
    torch_skipped = [r["skipped"] for r in torch_lines if "skipped" in r]
    torch_rows = {r["case"]: r["torch"] for r in torch_lines if "case" in r}
    rows = []
    for r in axle_rows:
        if "case" not in r:
            continue
        row = {"case": r["case"], "unit": r["unit"], "axle": r["axle"], "raw": r["raw"],
               "torch": torch_rows.get(r["case"]),
               "axle/raw": round(r["axle"] / r["raw"] if r["higher_is_better"] else r["raw"] / r["axle"], 3),
               "target": target_of(r["case"])}
        if row["torch"] is not None:
            row["axle/torch"] = round(r["axle"] / row["torch"], 3)
        row["met"] = met(row)
        rows.append(row)
    model_rows = []
    if not args.no_models and not skipped:
        out = subprocess.run([sys.executable, os.path.join(HERE, "models.py"), "--threads", "1", "--device", "cuda",
                              "--json", "--pythonpath",
                              os.path.join(os.path.abspath(args.build), "bindings", "python")],
                             capture_output=True, text=True, env=env)
        if out.returncode == 0:
            model_rows = json.loads(out.stdout)
        else:
            torch_skipped.append("models: " + out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "models failed")
    if args.json:
        print(json.dumps({"skipped": skipped, "torch_skipped": torch_skipped, "kernels": rows, "models": model_rows},
                         indent=1))
        return
    if skipped:
        print(f"GPU benchmarks skipped: {skipped[0]}")
        return
    if torch_skipped:
        print(f"torch columns empty: {'; '.join(torch_skipped)}")
    print(f"{'case':<26}{'unit':>8}{'axle':>10}{'raw':>10}{'torch':>10}{'ax/raw':>8}{'ax/torch':>9}  "
          f"{'target':<32}met")
    for r in rows:
        torch_v = f"{r['torch']:>10.4g}" if r["torch"] is not None else f"{'-':>10}"
        ratio_t = f"{r['axle/torch']:>9.2f}" if "axle/torch" in r else f"{'-':>9}"
        m = "" if r["met"] is None else ("yes" if r["met"] else "MISS")
        print(f"{r['case']:<26}{r['unit']:>8}{r['axle']:>10.4g}{r['raw']:>10.4g}{torch_v}{r['axle/raw']:>8.2f}"
              f"{ratio_t}  {r['target']:<32}{m}")
    print("(ax/raw: axle's throughput over raw's; for the latency row, raw's time over axle's)")
    if model_rows:
        print()
        print(f"{'model (cuda)':<13}{'batch':>6}{'torch ms':>10}{'axle ms':>10}{'ax/torch':>9}  {'target':<8}met   "
              f"max|diff|")
        for m in model_rows:
            target = f"<= {m['target']}x"
            print(f"{m['model']:<13}{m['batch']:>6}{m['torch_ms']:>10.3f}{m['axle_ms']:>10.3f}{m['ratio']:>9.2f}  "
                  f"{target:<8}{'yes' if m['met'] else 'MISS':<6}{m['max_abs_diff']:.2e}"
                  f"{'' if m['match'] else '  MISMATCH'}")


if __name__ == "__main__":
    main()
