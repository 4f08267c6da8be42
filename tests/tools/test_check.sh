#!/usr/bin/env bash
# `axle check PLUGIN.so`: passes on every in-tree plugin and the arena test
# device (the reference and arena ones under --strict: each kernel serves some
# of its cases), fails each deliberately wrong plugin naming what is wrong
# (tests/plugins/faulty), and reports a plugin whose kernels decline everything
# (tests/plugins/decline_all): zero served per op, a failure under --strict.
# Usage: test_check.sh AXLE PLUGIN_DIR ARENA_DIR FAULTY_DIR DECLINE_ALL_DIR
set -euo pipefail
axle=$1 plugins=$2 arena=$3 faulty=$4 decline_all=$5
export AXLE_PLUGIN_PATH="" AXLE_LOG_LEVEL=error
[ -e "$plugins/axle_reference.so" ] || { echo "no reference plugin at $plugins"; exit 1; }
for p in "$plugins/axle_reference.so" "$plugins"/axle_cpu.so "$plugins"/axle_cuda.so "$arena/axle_arena.so"; do
  [ -e "$p" ] || continue  # cpu (oneDNN) and cuda are optional builds
  # The oneDNN cpu plugin declines small and non-float32 calls by design, so
  # some of its kernels may serve none of the (small) samples: not --strict.
  strict=--strict
  case $p in */axle_cpu.so | */axle_cuda.so) strict= ;; esac
  out=$("$axle" check "$p" $strict) || { echo "axle check $strict failed on $p:"; echo "$out"; exit 1; }
  echo "$out" | tail -1
done
# --json: machine-readable, the same verdict.
"$axle" check "$arena/axle_arena.so" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] and d["plugin"] == "arena", d
names = {r["check"] for r in d["results"]}
assert {"load", "device contract", "add.Tensor", "concurrency"} <= names, names'
# The arena's add declines float64 and bool: counted per op, the rest served.
"$axle" check "$arena/axle_arena.so" --only add.Tensor --json | python3 -c '
import json, sys
rows = {r["check"]: r for r in json.load(sys.stdin)["results"]}
add = rows["add.Tensor"]
assert add["status"] == "pass" and 0 < add["served"] < add["cases"] and add["declined"] > 0, add
assert sum(r["cases"] for r in add["decline_reasons"]) == add["declined"], add
assert any("float64" in r["reason"] for r in add["decline_reasons"]), add  # the kernel own words (plugin::decline)
assert rows["device contract"]["cases"] == -1, rows["device contract"]
# Backward too: the float cases gradients through the arena kernels agree with the reference.
import re
m = re.search(r"gradients: (\d+) of (\d+) cases agree", add["detail"])
assert m and int(m.group(1)) == int(m.group(2)) > 0, add'
# A plugin whose kernels decline everything: each op served 0 of its cases,
# every case declined; a warning (exit 0), a failure under --strict (exit 1).
dec="$decline_all/axle_decline_all.so"
out=$("$axle" check "$dec") || { echo "axle check (not strict) failed on decline_all:"; echo "$out"; exit 1; }
for op in add.Tensor mul.Tensor neg; do
  echo "$out" | grep -E "^$op +cpu +warn +0/[0-9]+ +[1-9][0-9]* .*served none" >/dev/null ||
    { echo "decline_all: no zero-served warning for $op:"; echo "$out"; exit 1; }
done
echo "$out" | grep "declined: [0-9]* x decline_all declines every call" >/dev/null ||
  { echo "decline_all: no decline reasons line:"; echo "$out"; exit 1; }
"$axle" check "$dec" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] and d["plugin"] == "decline_all", d
ops = {r["check"]: r for r in d["results"] if r["cases"] >= 0}
# (add_.Tensor and mul_.Tensor run the same kernels as add.Tensor and mul.Tensor)
assert {"add.Tensor", "mul.Tensor", "neg"} <= set(ops), ops
for r in ops.values():
    assert r["status"] == "warn" and r["served"] == 0 and r["declined"] > 0, r
    # one entry per reason, in the plugin own words (plugin::decline)
    assert [x["reason"] for x in r["decline_reasons"]] == ["decline_all declines every call"], r
    assert sum(x["cases"] for x in r["decline_reasons"]) == r["declined"], r'
set +e
out=$("$axle" check "$dec" --strict)
rc=$?
set -e
[ $rc -eq 1 ] || { echo "axle check --strict on decline_all exited $rc, expected 1:"; echo "$out"; exit 1; }
echo "$out" | grep -E "^add.Tensor +cpu +fail +0/" >/dev/null || { echo "--strict: add.Tensor not failed:"; echo "$out"; exit 1; }
echo "decline_all: zero served per op reported, --strict fails"
# Help: the command's own usage, exit 0.
"$axle" check --help | grep "^usage: axle check PLUGIN.so .*--strict" >/dev/null || { echo "axle check --help"; exit 1; }
# Each planted fault fails, naming the op or the contract it breaks.
expect_failure() {  # PLUGIN PATTERN
  set +e
  out=$("$axle" check "$faulty/$1.so")
  rc=$?
  set -e
  [ $rc -eq 1 ] || { echo "axle check $1 exited $rc, expected 1:"; echo "$out"; exit 1; }
  echo "$out" | grep -E "$2" >/dev/null || { echo "axle check $1 does not report /$2/:"; echo "$out"; exit 1; }
  echo "$1: caught ($(echo "$out" | grep -E "$2" | head -1 | cut -c1-100))"
}
expect_failure faulty_off_by_one "^add.Tensor +faulty +fail"
expect_failure faulty_ignore_strides "^add.Tensor +faulty +fail .*(transposed|stepped|expanded|offset)"
expect_failure faulty_drop_bytes "^device contract +faulty +fail .*byte"
# A file that is not a plugin: a load failure with the reason, exit 1.
set +e
out=$("$axle" check /nonexistent/plugin.so)
rc=$?
set -e
[ $rc -eq 1 ] && echo "$out" | grep "^load .*fail" >/dev/null || { echo "a missing file must fail to load: $out"; exit 1; }
echo "check test passed"
