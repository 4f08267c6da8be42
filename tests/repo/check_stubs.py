#!/usr/bin/env python3
"""The checked-in type stubs (bindings/python/axle/__init__.pyi, so that
`grep "def prelu"` finds the Python signature) must equal what the build
generates from the op declarations (bindings/python/gen_stubs.py).

Usage: check_stubs.py CHECKED_IN GENERATED"""
import difflib
import sys

checked_in, generated = sys.argv[1], sys.argv[2]
have = open(checked_in).read().splitlines()
want = open(generated).read().splitlines()
if have != want:
    diff = list(difflib.unified_diff(have, want, checked_in, generated, lineterm=""))
    print("\n".join(diff[:80]) + ("\n..." if len(diff) > 80 else ""))
    print(f"the checked-in stubs are stale: cp {generated} {checked_in}")
    sys.exit(1)
print(f"{len(have)} stub lines match the declarations")
