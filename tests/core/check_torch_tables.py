#!/usr/bin/env python3
"""Regenerates tests/data/torch_promote_types.txt with the installed torch
(scripts/gen_torch_tables.py) and fails when it differs from the checked-in
table that tests/core/test_dtype.cpp reads. Skips (77) without torch.

Usage: check_torch_tables.py SOURCE_ROOT"""
import difflib
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
try:
    import torch  # noqa: F401
except ImportError:
    print("torch is not installed: skipped")
    sys.exit(77)
with tempfile.TemporaryDirectory() as tmp:
    fresh = os.path.join(tmp, "torch_promote_types.txt")
    subprocess.run([sys.executable, os.path.join(root, "scripts", "gen_torch_tables.py"), fresh], check=True)
    want = open(fresh).read().splitlines()
have = open(os.path.join(root, "tests", "data", "torch_promote_types.txt")).read().splitlines()
# The first line names the torch version that wrote the table.
if want[1:] != have[1:]:
    print("\n".join(difflib.unified_diff(have, want, "checked in", "torch " + torch.__version__, lineterm="")))
    print("the promotion table differs from torch's: rerun scripts/gen_torch_tables.py tests/data/torch_promote_types.txt")
    sys.exit(1)
print(f"{len(have) - 1} promotion pairs match torch {torch.__version__}")
