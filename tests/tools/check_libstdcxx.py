#!/usr/bin/env python3
"""Every C++ shared object axle builds links libstdc++ dynamically.

A toolchain that links libstdc++ statically (a compiler wrapper adding
-static-libstdc++, as on one GPU machine's image) gives each of our shared
objects its own copy of the C++ runtime; libaxle-conformance then exports its
copy. In a process that also loads the shared libstdc++ (importing torch does)
the copies mix: a segfault in std::ostream followed `import torch` there. This
check fails with the cause instead of the crash.

Usage: check_libstdcxx.py FILE...   (exit 77 = skipped: no readelf)
"""
import shutil
import subprocess
import sys

# Symbols only libstdc++ itself defines (an explicit instantiation and a
# locale function); a shared object of ours that defines one carries a copy.
RUNTIME_SYMBOLS = ("_ZNSo9_M_insertIlEERSoT_", "_ZNSt6locale7classicEv")


def main(files):
    readelf = shutil.which("readelf")
    if not readelf:
        print("readelf not found (binutils): skipped")
        return 77
    problems = []
    for f in files:
        dynamic = subprocess.run([readelf, "-d", "-W", f], capture_output=True, text=True, check=True).stdout
        symbols = subprocess.run([readelf, "--dyn-syms", "-W", f], capture_output=True, text=True, check=True).stdout
        defined = [s for s in RUNTIME_SYMBOLS
                   if any(line.split()[-1] == s and " UND " not in line
                          for line in symbols.splitlines() if line.strip().endswith(s))]
        if "libstdc++.so" not in dynamic:
            problems.append(f"{f}: does not load the shared libstdc++ (NEEDED lacks libstdc++.so): "
                            "the compiler links it statically")
        if defined:
            problems.append(f"{f}: defines libstdc++'s own {', '.join(defined)}: it exports a copy of the C++ runtime")
    for p in problems:
        print(p)
    if problems:
        print("Each shared object must use the one shared libstdc++ of the process: build with a compiler that "
              "does not add -static-libstdc++ (CXX=the distribution's g++).")
        return 1
    print(f"{len(files)} shared objects load the shared libstdc++")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
