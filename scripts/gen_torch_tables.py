#!/usr/bin/env python3
"""Dumps torch.promote_types for axle's ten dtypes (tests/data/torch_promote_types.txt).
Run with Debian's /usr/bin/python3 (python3-torch). tests/core/test_dtype.cpp reads the file;
tests/core/check_torch_tables.py (meson test torch_tables) regenerates it and diffs when torch is installed."""
import sys
import torch

NAMES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]
out = open(sys.argv[1], "w") if len(sys.argv) > 1 else sys.stdout
out.write(f"# torch {torch.__version__}: a b promote_types(a, b)\n")
for a in NAMES:
    for b in NAMES:
        r = torch.promote_types(getattr(torch, a), getattr(torch, b))
        out.write(f"{a} {b} {str(r).replace('torch.', '')}\n")
