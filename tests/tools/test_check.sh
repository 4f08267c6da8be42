#!/usr/bin/env bash
# `axle check PLUGIN.so`: passes on every in-tree plugin and the arena test
# device, and fails each deliberately wrong plugin naming what is wrong
# (tests/plugins/faulty). Usage: test_check.sh AXLE PLUGIN_DIR ARENA_DIR FAULTY_DIR
set -euo pipefail
axle=$1 plugins=$2 arena=$3 faulty=$4
export AXLE_PLUGIN_PATH="" AXLE_LOG_LEVEL=error
[ -e "$plugins/axle_reference.so" ] || { echo "no reference plugin at $plugins"; exit 1; }
for p in "$plugins/axle_reference.so" "$plugins"/axle_cpu.so "$plugins"/axle_cuda.so "$arena/axle_arena.so"; do
  [ -e "$p" ] || continue  # cpu (oneDNN) and cuda are optional builds
  out=$("$axle" check "$p") || { echo "axle check failed on $p:"; echo "$out"; exit 1; }
  echo "$out" | tail -1
done
# --json: machine-readable, the same verdict.
"$axle" check "$arena/axle_arena.so" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] and d["plugin"] == "arena", d
names = {r["check"] for r in d["results"]}
assert {"load", "device contract", "add.Tensor", "concurrency"} <= names, names'
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
