#!/usr/bin/env python3
"""Guards that keep the docs true to the tree (run by `meson test`, suite repo):

1. every repository path named in the docs (*.md) and in code comments exists:
   `core/src/config.cpp`, `plugins/cpu/` and bare file names such as
   `tensor.cpp` (which must be some tracked file's name);
2. code comments cite no issue numbers: a reader of the code cannot see the
   tracker, so a comment says what the code is for instead.

Usage: check_paths.py SOURCE_ROOT. Exit 0 when clean, 1 with one line per
finding, 77 (skip) outside a git checkout."""
import os
import re
import subprocess
import sys

# Names that stand for files outside the tree (system and library headers,
# files the build or a user writes) or for placeholders in examples.
EXTERNAL = {
    "stddef.h", "stdint.h", "dlpack.h", "cudnn_cnn.h", "cudnn_ops.h",
    "axle.pc", "axle-plugin-sdk.pc", "axle-uninstalled.json", "libaxle.so",
    "trace.json", "model.py", "t.json", "__init__.pyi",
}
# Placeholder names in examples: all-caps stems (PLUGIN.json, X.json, OUTPUT.json);
# not Markdown, where README.md and the like are real names.
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*\.(?!md$)\w+$")
EXT = r"(?:cpp|h|hpp|cu|cuh|c|py|pyi|md|build|sh|json|map|toml|cmake|in)"
CODE = (".cpp", ".h", ".hpp", ".cu", ".cuh", ".c", ".py", ".sh", ".build", ".txt")
HASH_COMMENTS = (".py", ".sh", ".build", ".txt")
ISSUE = re.compile(r"\bissues? ?#?\d+", re.IGNORECASE)


def tracked_files(root):
    r = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return r.stdout.split()


def is_script(path, text):
    return "." not in os.path.basename(path) and text.startswith("#!")


def comment_text(path, text):
    """The comments of a source file (whole text for Markdown), other lines blank."""
    if path.endswith(".md"):
        return text
    if path.endswith(HASH_COMMENTS) or is_script(path, text):
        lines = []
        for line in text.splitlines():
            i = line.find("#")
            lines.append(line[i:] if i >= 0 else "")
        if path.endswith(".py"):  # docstrings document too
            lines += re.findall(r'"""(.*?)"""', text, re.S)
        return "\n".join(lines)
    return "\n".join(m.group(0) for m in re.finditer(r"//[^\n]*|/\*.*?\*/", text, re.S))


def main():
    root = os.path.abspath(sys.argv[1])
    files = tracked_files(root)
    if files is None:
        print("not a git checkout: skipped")
        return 77
    tracked = set(files)
    dirs = {f.rsplit("/", k)[0] for f in files for k in range(1, f.count("/") + 1)}
    names = {os.path.basename(f) for f in files}
    tops = sorted({f.split("/")[0] for f in files if "/" in f})
    path_re = re.compile(r"(?<![\w./-])((?:%s)/[\w./<>*{}-]*)" % "|".join(map(re.escape, tops)))
    name_re = re.compile(r"(?<![\w./<>-])([A-Za-z_][\w-]*\.%s)\b" % EXT)
    findings = []
    for f in files:
        full = os.path.join(root, f)
        try:
            text = open(full, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        if not (f.endswith(CODE) or f.endswith(".md") or is_script(f, text)):
            continue
        comments = comment_text(f, text)
        for m in path_re.finditer(comments):
            p = m.group(1).rstrip(".,:;)`'\"")
            if any(ch in p for ch in "<>*{") or PLACEHOLDER.match(os.path.basename(p)):
                continue  # a pattern (`ops/<family>.cpp`), not one path
            if p.rstrip("/") not in tracked and p.rstrip("/") not in dirs:
                findings.append(f"{f}: names {p}, which does not exist")
        for m in name_re.finditer(comments):
            n = m.group(1)
            if n in names or n in EXTERNAL or PLACEHOLDER.match(n) or n + ".in" in names:
                continue
            findings.append(f"{f}: names {n}, which no tracked file is called")
        if not f.endswith(".md"):
            for m in ISSUE.finditer(comments):
                findings.append(f"{f}: a comment cites '{m.group(0)}' of the tracker; say what the code is for")
    for line in sorted(set(findings)):
        print(line)
    print(f"{len(set(findings))} finding(s) in {len(files)} tracked files")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
