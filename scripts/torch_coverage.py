#!/usr/bin/env python3
"""How much of torch's public API axle has, generated from torch's own namespaces:
for torch.* (callables), Tensor methods and properties, torch.nn.functional,
torch.nn (module classes), torch.optim (optimizers) and torch.optim.lr_scheduler,
which public names axle has (same name, reachable the same way) and which it
lacks, leaving out the families the issue excludes (complex, sparse, quantized,
named tensors and the like: each exclusion rule below says why). A name axle
has counts as tested when a test module that compares with torch
(tests/python/*.py importing torch) names it (a static check of the text: it
finds names a test never mentions, it does not prove each mention compares),
or when it is an operator whose conformance samples the differential test
runs against torch (test_torch_samples.py); the names that are neither are
listed.

Usage: PYTHONPATH=build/bindings/python python3 scripts/torch_coverage.py [--markdown OUT] [--missing]
Needs Debian's torch (python3-torch, 1.13) and the built axle package."""
import argparse
import glob
import inspect
import os
import re
import sys

import axle
import torch

# (pattern on the name, reason): names matching are excluded from the counts.
EXCLUDE = [
    (r"complex|conj|angle|polar|view_as_real|view_as_complex|^real$|^imag$|resolve_conj|resolve_neg|is_neg|_neg_bit",
     "complex numbers (no complex dtypes)"),
    (r"sparse|coo|csr|csc|bsr|bsc|to_dense|indices$|^values$|crow|ccol|row_indices|col_indices|coalesce|nnz|"
     r"smm|hspmm|sspaddmm|dense_dim|sparse_dim|saddmm|spmm", "sparse tensors"),
    (r"quantiz|q_|qint|quint|dequantize|int_repr|fake_quant|qscheme|fbgemm|_per_channel|_per_tensor|"
     r"choose_qparams", "quantization"),
    (r"^(rename|refine_names|align_to|align_as|names|has_names|unflatten_names)", "named tensors"),
    (r"mkldnn|miopen|cudnn_|_cudnn|cufft|nnpack|xnnpack|vulkan|metal|mps|ipu|xla|hpu|lazy|vmap|_vmap|"
     r"fbgemm|mkl|onednn|is_vulkan|is_meta|is_ort|is_mkldnn|is_xpu|is_hip", "backend-specific entry points"),
    (r"^_|__", "private names"),
    (r"^(is_nested|nested|to_padded_tensor|_nested)", "nested tensors"),
    (r"^(fft|special|linalg)$", "submodules, counted separately"),
    (r"^(jit|compile|export|fx|onnx|distributed|multiprocessing|autocast|amp|profiler|package|hub|"
     r"testing|utils|backends|cuda|cpu|futures|overrides|random|return_types|library|ops|classes|"
     r"storage|types|serialization|functional|sym|Sym|fork|wait|set_flush_denormal|"
     r"is_anomaly|set_anomaly|autograd|nn|optim|sparse|quantization|ao|masked|signal)$", "tooling namespaces"),
]


def excluded(name):
    for pattern, reason in EXCLUDE:
        if re.search(pattern, name):
            return reason
    return None


def public(names):
    return sorted(n for n in names if not n.startswith("_"))


def namespaces():
    """(label, torch names, predicate: does axle have name)."""
    import torch.nn as tnn
    import torch.nn.functional as tF
    import torch.optim as topt
    import torch.optim.lr_scheduler as tsched

    def has(obj):
        return lambda n: hasattr(obj, n)

    torch_fns = [n for n in public(dir(torch)) if callable(getattr(torch, n, None))
                 and not inspect.isclass(getattr(torch, n)) and not inspect.ismodule(getattr(torch, n))]
    tensor_attrs = public(dir(torch.Tensor))
    nn_fns = [n for n in public(dir(tF)) if callable(getattr(tF, n)) and not inspect.isclass(getattr(tF, n))
              and getattr(getattr(tF, n), "__module__", "").startswith("torch")]
    nn_classes = [n for n in public(dir(tnn)) if inspect.isclass(getattr(tnn, n))
                  and issubclass(getattr(tnn, n), tnn.Module)]
    optimizers = [n for n in public(dir(topt)) if inspect.isclass(getattr(topt, n))
                  and issubclass(getattr(topt, n), topt.Optimizer) and n != "Optimizer"]
    schedulers = [n for n in public(dir(tsched)) if inspect.isclass(getattr(tsched, n))
                  and getattr(getattr(tsched, n), "__module__", "") == tsched.__name__]
    return [
        ("torch.*", torch_fns, has(axle)),
        ("Tensor methods", tensor_attrs, has(axle.Tensor)),
        ("torch.nn.functional", nn_fns, has(axle.nn.functional)),
        ("torch.nn (modules)", nn_classes, has(axle.nn)),
        ("torch.optim", optimizers, has(axle.optim)),
        ("torch.optim.lr_scheduler", schedulers, has(axle.optim.lr_scheduler)),
    ]


def tested_predicate():
    """Whether a name is tested against torch: named in a test module that
    imports torch, or an operator with conformance samples."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python")
    texts = []
    for path in sorted(glob.glob(os.path.join(root, "*.py"))):
        with open(path) as f:
            text = f.read()
        if re.search(r"^\s*import torch\b|importorskip\(\"torch\"\)", text, re.M):
            texts.append(text)
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", "\n".join(texts)))
    sampled = {op[0].partition(".")[0] for op in axle._C._sample_ops()}
    return lambda name: name in words or name in sampled


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--markdown", help="write the table and the missing names to this file")
    ap.add_argument("--missing", action="store_true", help="print the missing names too")
    args = ap.parse_args()
    rows, details, untested_details = [], [], []
    total_have = total = total_tested = 0
    tested = tested_predicate()
    for label, names, has in namespaces():
        counted = [n for n in names if not excluded(n)]
        have = [n for n in counted if has(n)]
        missing = [n for n in counted if not has(n)]
        untested = [n for n in have if not tested(n)]
        skipped = len(names) - len(counted)
        total_have += len(have)
        total += len(counted)
        total_tested += len(have) - len(untested)
        rows.append((label, len(have), len(counted), skipped, len(have) - len(untested)))
        details.append((label, missing))
        untested_details.append((label, untested))
    lines = ["| namespace | axle has | of | share | excluded | tested against torch |", "|---|---|---|---|---|---|"]
    for label, h, n, s, t in rows:
        lines.append("| %s | %d | %d | %.0f%% | %d | %d |" % (label, h, n, 100.0 * h / max(n, 1), s, t))
    lines.append("| **all** | %d | %d | %.0f%% | | %d |" % (total_have, total, 100.0 * total_have / max(total, 1),
                                                          total_tested))
    table = "\n".join(lines)
    print("torch %s vs axle %s" % (torch.__version__, axle.__version__))
    print(table)
    if args.missing:
        for label, missing in details:
            print("\n%s: %d missing\n  %s" % (label, len(missing), " ".join(missing)))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("# Coverage of torch's API (generated)\n\n")
            f.write("Generated by `scripts/torch_coverage.py --markdown docs/torch-coverage.md` from torch %s's "
                    "namespaces; do not edit by hand. A name counts as present when axle has it at the same "
                    "place (`axle.<name>`, a Tensor attribute, `axle.nn.functional.<name>`, `axle.nn.<Name>`, "
                    "`axle.optim.<Name>`).\n\n" % torch.__version__)
            f.write(table + "\n\n## Excluded families\n\n")
            for pattern, reason in EXCLUDE:
                f.write("- %s: `%s`\n" % (reason, pattern))
            f.write("\n## Missing names\n")
            for label, missing in details:
                f.write("\n### %s (%d)\n\n%s\n" % (label, len(missing),
                                                   ", ".join("`%s`" % n for n in missing) or "none"))
            f.write("\n## Present but not tested against torch by name\n\nNames axle has that no test module "
                    "importing torch names and that are no operator with conformance samples (a check of the tests' "
                    "text).\n")
            for label, untested in untested_details:
                f.write("\n### %s (%d)\n\n%s\n" % (label, len(untested),
                                                   ", ".join("`%s`" % n for n in untested) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
