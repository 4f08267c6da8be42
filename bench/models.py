#!/usr/bin/env python3
"""Forward-pass time of three small float32 models, axle vs PyTorch eager
(with --train: forward + backward, every parameter requiring grad).

Models (same code for both libraries, written against a functional namespace
`F` and a library module `L`, both of which use torch's names):
  mlp          784-1024-1024-10, linear+relu, linear+relu, linear
  cnn          3x32x32 -> conv3x3(32)+relu+pool2 -> conv3x3(64)+relu+pool2
               -> flatten -> linear 4096-128 + relu -> linear 128-10
  transformer  one post-norm encoder block, d=512, 8 heads, ffn 2048, seq 128

For each (model, batch in 1 and 32) a worker warms up, then times loops of k
forward calls (k chosen so one loop lasts >= ~50 ms) and reports the median of
7 loops as seconds per forward, plus the output for a correctness check.

Weights and inputs are drawn once with numpy (fixed seed) by the driver and
written to a temporary .npz that every worker loads, so both libraries compute
exactly the same function on exactly the same data.

Each library runs in its OWN process: axle and torch both load libdnnl and
libgomp, so importing both in one process would make them share (and fight
over) one thread pool and one set of kernels, and the numbers would not mean
what they claim.  Threads are set per worker: torch.set_num_threads(N), and for
axle a JSON config {"cpu": {"threads": N}} named by AXLE_CONFIG before import.

With --device cuda both libraries run on cuda:0 (parameters copied there
once; each timed loop ends with a device synchronize) and the target is
<= 1.0x torch at every batch; threads then only size the host pools.

With --train each timed call is forward, sum of the output, backward, and the
parameters' .grad reset to None (a training step without the optimizer); the
check compares the output and the first parameter's gradient. Targets as for
the forward pass (issue's: <= 0.8x torch 2.x at batch 1, <= 1.0x at batch 32).

With --profile, axle alone runs each model once more under trace mode after a
warm-up and prints, per model and batch, where the time of one call went: the
operators by total time with the kernel (plugin) that served them and how many
calls took the host fallback. This is how a slow device row is explained.

With --torch-python, the torch worker runs under that interpreter (scripts/bench
passes its PyTorch 2.x virtualenv's); the table names the torch version.

Usage:
  python3 bench/models.py [--threads 1,2] [--device cpu|cuda] [--train] [--json] [--pythonpath DIR]
                          [--torch-python PYTHON]
  python3 bench/models.py --profile [--device cpu|cuda] [--train] [--pythonpath DIR]
  python3 bench/models.py --worker {torch|axle} --threads N --device D [--train] --weights W.npz --out R.npz
"""
import argparse
import atexit
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ("mlp", "cnn", "transformer")
BATCHES = (1, 32)
D, HEADS, FFN, SEQ = 512, 8, 2048, 128
REPEATS, WARMUP, MIN_REPEAT_S, MODEL_BUDGET_S = 7, 3, 0.05, 12.0


# ---------------------------------------------------------------- weights

def make_weights(seed=0):
    """All parameters and inputs, normal * 1/sqrt(fan_in) like a real init."""
    rng = np.random.default_rng(seed)
    w = {}

    def param(name, shape, fan_in):
        w[name] = (rng.standard_normal(shape) / math.sqrt(fan_in)).astype(np.float32)

    for i, (n_in, n_out) in enumerate(((784, 1024), (1024, 1024), (1024, 10))):
        param(f"mlp.w{i}", (n_out, n_in), n_in)
        param(f"mlp.b{i}", (n_out,), n_in)
    param("cnn.c0w", (32, 3, 3, 3), 27)
    param("cnn.c0b", (32,), 27)
    param("cnn.c1w", (64, 32, 3, 3), 288)
    param("cnn.c1b", (64,), 288)
    param("cnn.f0w", (128, 64 * 8 * 8), 64 * 8 * 8)
    param("cnn.f0b", (128,), 64 * 8 * 8)
    param("cnn.f1w", (10, 128), 128)
    param("cnn.f1b", (10,), 128)
    for name, n_out, n_in in (("qkv", 3 * D, D), ("o", D, D), ("ff0", FFN, D), ("ff1", D, FFN)):
        param(f"tr.{name}w", (n_out, n_in), n_in)
        param(f"tr.{name}b", (n_out,), n_in)
    for i in (0, 1):
        w[f"tr.ln{i}w"] = (1.0 + 0.1 * rng.standard_normal(D)).astype(np.float32)
        w[f"tr.ln{i}b"] = (0.1 * rng.standard_normal(D)).astype(np.float32)
    for b in BATCHES:
        w[f"in.mlp.{b}"] = rng.standard_normal((b, 784)).astype(np.float32)
        w[f"in.cnn.{b}"] = rng.standard_normal((b, 3, 32, 32)).astype(np.float32)
        w[f"in.transformer.{b}"] = rng.standard_normal((b, SEQ, D)).astype(np.float32)
    return w


# ---------------------------------------------------------------- models

def mlp(F, L, p, x):
    x = F.relu(F.linear(x, p["mlp.w0"], p["mlp.b0"]))
    x = F.relu(F.linear(x, p["mlp.w1"], p["mlp.b1"]))
    return F.linear(x, p["mlp.w2"], p["mlp.b2"])


def cnn(F, L, p, x):
    x = F.max_pool2d(F.relu(F.conv2d(x, p["cnn.c0w"], p["cnn.c0b"], padding=1)), 2)
    x = F.max_pool2d(F.relu(F.conv2d(x, p["cnn.c1w"], p["cnn.c1b"], padding=1)), 2)
    x = F.relu(F.linear(x.flatten(1), p["cnn.f0w"], p["cnn.f0b"]))
    return F.linear(x, p["cnn.f1w"], p["cnn.f1b"])


def transformer(F, L, p, x):
    # Attention is composed explicitly (torch 1.13 has no
    # F.scaled_dot_product_attention, although axle does).
    b, s, _ = x.shape
    hd = D // HEADS
    q, k, v = (t.reshape(b, s, HEADS, hd).transpose(1, 2)
               for t in F.linear(x, p["tr.qkvw"], p["tr.qkvb"]).chunk(3, -1))
    scores = L.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
    attn = L.matmul(F.softmax(scores, dim=-1), v)
    attn = F.linear(attn.transpose(1, 2).reshape(b, s, D), p["tr.ow"], p["tr.ob"])
    x = F.layer_norm(x + attn, (D,), p["tr.ln0w"], p["tr.ln0b"])
    ff = F.linear(F.gelu(F.linear(x, p["tr.ff0w"], p["tr.ff0b"])), p["tr.ff1w"], p["tr.ff1b"])
    return F.layer_norm(x + ff, (D,), p["tr.ln1w"], p["tr.ln1b"])


MODEL_FNS = {"mlp": mlp, "cnn": cnn, "transformer": transformer}


def step(F, L, p, model, x, params, train, keep_grad=None):
    """One timed call: the forward; with `train` also the sum's backward and the
    parameters' .grad reset (after copying `keep_grad`'s gradient, if named)."""
    out = MODEL_FNS[model](F, L, p, x)
    kept = None
    if train:
        out.sum().backward()
        if keep_grad:
            kept = np.array(p[keep_grad].grad.cpu().numpy())
        for t in params:
            t.grad = None
    return out, kept


# ---------------------------------------------------------------- worker

def time_forward(fn, budget_s, sync):
    """Median seconds per call over REPEATS loops of k calls each (`sync` ends
    each loop inside the timing: asynchronous devices finish their queue)."""
    for _ in range(WARMUP):
        fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    one = max(time.perf_counter() - t0, 1e-6)
    k = max(1, math.ceil(MIN_REPEAT_S / one))
    k = max(1, min(k, int(budget_s / REPEATS / one)))  # cap total time per model
    runs = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        sync()
        runs.append((time.perf_counter() - t0) / k)
    return statistics.median(runs)


FIRST_PARAM = {"mlp": "mlp.w0", "cnn": "cnn.c0w", "transformer": "tr.qkvw"}


def worker(lib, threads, device, weights_path, out_path, train=False):
    if lib == "torch":
        import torch as L
        import torch.nn.functional as F
        L.set_num_threads(threads)
        # torch runs cuDNN convolutions in TF32 by default; axle's float32
        # convolutions are full float32 (as its matmuls at "highest"): compare equal math.
        L.backends.cudnn.allow_tf32 = False
        ctx = L.inference_mode
        sync = L.cuda.synchronize if device != "cpu" else (lambda: None)
    else:
        # axle takes its thread count from the config file named by AXLE_CONFIG;
        # set it before importing.  The file is read lazily (on first use, not
        # at import), so it must outlive the whole run.
        cfg = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump({"cpu": {"threads": threads}}, cfg)
        cfg.close()
        os.environ["AXLE_CONFIG"] = cfg.name
        atexit.register(os.unlink, cfg.name)
        import contextlib
        import axle as L
        import axle.nn.functional as F
        ctx = contextlib.nullcontext
        sync = (lambda: L.synchronize(device)) if device != "cpu" else (lambda: None)
    data = np.load(weights_path)
    p = {name: L.from_numpy(np.ascontiguousarray(data[name])).to(device) for name in data.files}
    params = []
    if train:
        import contextlib
        ctx = contextlib.nullcontext
        params = [t.requires_grad_() for name, t in p.items() if not name.startswith("in.")]
    result = {}
    with ctx():
        for model in MODELS:
            for b in BATCHES:
                x = p[f"in.{model}.{b}"]
                fn = lambda model=model, x=x: step(F, L, p, model, x, params, train)  # noqa: E731
                out, grad = step(F, L, p, model, x, params, train, FIRST_PARAM[model] if train else None)
                if train:
                    result[f"{model}.{b}.grad"] = grad
                result[f"{model}.{b}.out"] = np.array(out.detach().cpu().numpy())
                result[f"{model}.{b}.sec"] = np.float64(
                    time_forward(fn, MODEL_BUDGET_S / len(BATCHES), sync))
    result["version"] = np.array(L.__version__ if lib == "torch" else "axle")
    np.savez(out_path, **result)


def profile(device, train=False, top=12):
    """One traced call per model and batch (axle only; see --profile)."""
    import axle as L
    import axle.nn.functional as F
    sync = (lambda: L.synchronize(device)) if device != "cpu" else (lambda: None)
    data = make_weights()
    p = {name: L.from_numpy(np.ascontiguousarray(a)).to(device) for name, a in data.items()}
    params = [t.requires_grad_() for name, t in p.items() if train and not name.startswith("in.")]
    for model in MODELS:
        for b in BATCHES:
            x = p[f"in.{model}.{b}"]
            fn = lambda model=model, x=x: step(F, L, p, model, x, params, train)  # noqa: E731

            for _ in range(WARMUP):
                fn()
            sync()
            start = time.perf_counter()
            with L.trace() as t:
                fn()
                sync()
            wall = time.perf_counter() - start
            rows = {}
            for e in t.events:
                key = (e["op"], e["plugin"] or "-")
                r = rows.setdefault(key, [0, 0.0, 0, 0])
                r[2 + (e["depth"] > 0)] += 1
                if e["depth"] == 0:
                    r[0] += 1
                    r[1] += e["duration_ns"] / 1e6
            fallbacks = sum(1 for e in t.events if e["host_fallback"])
            print("%s batch %d on %s%s: %.3f ms wall, %d calls, %d through the host fallback" % (
                model, b, device, " (+backward)" if train else "", wall * 1e3, len(t.events), fallbacks))
            print("  %-34s %-12s %6s %9s %7s" % ("op (top level)", "plugin", "calls", "ms", "nested"))
            for (op, plugin), (n, ms, _, nested) in sorted(rows.items(), key=lambda kv: -kv[1][1])[:top]:
                print("  %-34s %-12s %6d %9.3f %7d" % (op, plugin, n, ms, nested))
            slow = sorted((e for e in t.events if e["host_fallback"]), key=lambda e: -e["duration_ns"])[:5]
            for e in slow:
                print("  fallback: " + e["line"])


# ---------------------------------------------------------------- driver

def thread_env(threads):
    """torch.set_num_threads does not reach OpenBLAS (torch's float32 matmul on
    Debian), whose own pool defaults to every core: pin every pool."""
    return {k: str(threads) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def run_worker(lib, threads, device, weights, pythonpath, tmp, train=False, torch_python=None):
    out = os.path.join(tmp, f"{lib}-{threads}.npz")
    env = dict(os.environ, **thread_env(threads))
    if lib == "axle":
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, env.get("PYTHONPATH")]))
        env["AXLE_PLUGIN_PATH"] = ""
    python = torch_python if lib == "torch" and torch_python else sys.executable
    cmd = [python, os.path.abspath(__file__), "--worker", lib,
           "--threads", str(threads), "--device", device, "--weights", weights, "--out", out] + (
               ["--train"] if train else [])
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"{lib} worker (threads={threads}) failed:\n{res.stderr}")
    return np.load(out)


def compare(a, t):
    """Max abs diff, and whether it is within rtol 1e-3 / atol 1e-4."""
    if a.shape != t.shape:
        return float("inf"), False
    return float(np.max(np.abs(a - t))), bool(np.allclose(a, t, rtol=1e-3, atol=1e-4))


def driver(threads_list, device, as_json, pythonpath, train=False, torch_python=None):
    rows = []
    torch_version = "?"
    with tempfile.TemporaryDirectory() as tmp:
        weights = os.path.join(tmp, "weights.npz")
        np.savez(weights, **make_weights())
        for n in threads_list:
            res = {lib: run_worker(lib, n, device, weights, pythonpath, tmp, train, torch_python)
                   for lib in ("torch", "axle")}
            torch_version = str(res["torch"]["version"])
            for model in MODELS:
                for b in BATCHES:
                    t_s = float(res["torch"][f"{model}.{b}.sec"])
                    a_s = float(res["axle"][f"{model}.{b}.sec"])
                    diff, ok = compare(res["axle"][f"{model}.{b}.out"], res["torch"][f"{model}.{b}.out"])
                    if train:
                        gdiff, gok = compare(res["axle"][f"{model}.{b}.grad"], res["torch"][f"{model}.{b}.grad"])
                        diff, ok = max(diff, gdiff), ok and gok
                    target = 0.8 if b == 1 and device == "cpu" else 1.0
                    rows.append(dict(model=model + ("+bwd" if train else ""), batch=b, threads=n, device=device,
                                     torch=torch_version, torch_ms=t_s * 1e3,
                                     axle_ms=a_s * 1e3, ratio=a_s / t_s, target=target,
                                     met=a_s / t_s <= target, max_abs_diff=diff, match=ok))
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    head = "%-12s %5s %7s %10s %10s %7s %7s %4s %12s" % (
        "model", "batch", "threads", "torch ms", "axle ms", "ratio", "target", "met", "max|diff|")
    print(f"torch {torch_version} ({'forward + backward' if train else 'forward'}, {device})")
    print(head)
    print("-" * len(head))
    for r in rows:
        print("%-12s %5d %7d %10.3f %10.3f %7.2f %7s %4s %12.2e%s" % (
            r["model"], r["batch"], r["threads"], r["torch_ms"], r["axle_ms"], r["ratio"],
            "<=%.1f" % r["target"], "yes" if r["met"] else "no", r["max_abs_diff"],
            "" if r["match"] else "  MISMATCH"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", choices=("torch", "axle"))
    ap.add_argument("--threads", default="1,2",
                    help="driver: comma-separated list; worker: one count")
    ap.add_argument("--device", default="cpu", help="cpu, or cuda (cuda:0) for the GPU rows")
    ap.add_argument("--weights")
    ap.add_argument("--out")
    ap.add_argument("--json", action="store_true", help="print a JSON list of rows")
    ap.add_argument("--train", action="store_true", help="time forward + backward (a training step)")
    ap.add_argument("--pythonpath",
                    default=os.path.normpath(os.path.join(HERE, "..", "build", "bindings", "python")),
                    help="directory holding the axle package (prepended to PYTHONPATH)")
    ap.add_argument("--profile", action="store_true", help="axle only: where one call's time goes, per op")
    ap.add_argument("--torch-python", help="the interpreter whose torch the torch worker runs (e.g. a virtualenv's "
                                           "with PyTorch 2.x); default: this one")
    args = ap.parse_args()
    if args.profile:
        sys.path.insert(0, args.pythonpath)
        profile(args.device, args.train)
    elif args.worker:
        if not (args.weights and args.out):
            ap.error("--worker needs --weights and --out")
        worker(args.worker, int(args.threads), args.device, args.weights, args.out, args.train)
    else:
        driver([int(n) for n in args.threads.split(",")], args.device, args.json, args.pythonpath, args.train,
               args.torch_python)


if __name__ == "__main__":
    main()
