#!/usr/bin/env bash
# The `axle` command line: info (text and --json, with rejected plugins and their
# reasons), explain, and the documented exit codes. Usage: test_cli.sh AXLE BROKEN_DIR
set -euo pipefail
axle=$1 broken=$2
export AXLE_CONFIG="" AXLE_LOG_LEVEL=off AXLE_PLUGIN_PATH="$broken"
out=$("$axle" info --json)
python3 - "$out" <<'PY'
import json, sys
info = json.loads(sys.argv[1])
plugins = {p["path"].rsplit("/", 1)[-1]: p for p in info["plugins"]}
assert plugins["axle_reference.so"]["status"] == "loaded", plugins["axle_reference.so"]
assert plugins["not_elf.so"]["status"] == "rejected" and plugins["not_elf.so"]["reason"], plugins["not_elf.so"]
assert "newer than the core" in plugins["minor_newer.so"]["reason"]
assert any(d["type"] == "cpu" and d["count"] == 1 for d in info["devices"]), info["devices"]
assert info["search_path"][0].endswith("broken"), info["search_path"]
PY
"$axle" info | grep "reason: plugin ABI 2\.[0-9]* does not match" >/dev/null
"$axle" explain add.Tensor | grep "kernel .*plugin 'reference'" >/dev/null
"$axle" explain add.Tensor --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["schema"].startswith("add.Tensor(") and d["derivative"] == "formula", d'
# Each op says how it is differentiated.
"$axle" explain argmax | grep "gradient: none: integer output" >/dev/null
"$axle" explain narrow | grep "gradient: through the ops its composite calls" >/dev/null
"$axle" --help | grep "explain OP" >/dev/null
"$axle" explain add.Tensor --device cpu --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [r["device_type"] for r in d["devices"]] == ["cpu"], d["devices"]' 
"$axle" bench --quick --only "add, 1" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["device"] == "cpu" and len(d["cases"]) == 1, d
c = d["cases"][0]
assert c["case"] == "add, 1 element" and c["unit"] == "ns/call" and c["value"] > 0 and c["served_by"], c'
"$axle" bench --help | grep "^usage: axle bench \[--device D\]" >/dev/null || { echo "axle bench --help"; exit 1; }
# bench on an asynchronous device: the arena test device held asynchronous
# (kernels return once queued) with a per-kernel delay. Every timed loop ends
# with a synchronize, so ns/call is at least the delay (without it: the enqueue
# rate, microseconds); a case of 1 s calls is timed once after its warm-up and
# ends within its cap (uncapped: 2 warm-ups, a calibration, 3 loops, the traced
# call: 7 s).
ac=$(mktemp -d)
echo '{"plugins": {"arena": {"options": {"async": true, "kernel_delay_us": 2000}}}}' >"$ac/async.json"
echo '{"plugins": {"arena": {"options": {"async": true, "kernel_delay_us": 1000000}}}}' >"$ac/slow.json"
AXLE_PLUGIN_PATH="$(dirname "$broken")/arena" python3 - "$axle" "$ac" <<'PY'
import json, os, subprocess, sys, time
axle, ac = sys.argv[1:3]
def bench(config):
    t0 = time.monotonic()
    p = subprocess.run([axle, "bench", "--device", "arena", "--only", "add, 1", "--quick", "--json"],
                       env={**os.environ, "AXLE_CONFIG": os.path.join(ac, config)}, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["device"].startswith("arena") and len(d["cases"]) == 1, d
    return d["cases"][0], time.monotonic() - t0
c, _ = bench("async.json")
assert c["case"] == "add, 1 element" and c["served_by"].startswith("arena"), c
assert c["value"] >= 2000e3, f"{c['value']:.0f} ns/call is less than the 2 ms kernel delay: an enqueue rate"
c, elapsed = bench("slow.json")
assert c["value"] >= 1e9, c
assert elapsed < 4.5, f"bench with 1 s calls took {elapsed:.1f} s: the case is not capped"
print(f"bench on the asynchronous arena: ns/call >= the kernel delay; a 1 s case took {elapsed:.1f} s")
PY
rm -rf "$ac"
# config show: each value with the layer it came from (system file, AXLE_CONFIG, environment).
cfg=$(mktemp -d)
echo '{"cpu": {"threads": 3}, "log_level": "info"}' >"$cfg/system.json"
echo '{"cpu": {"threads": 2}}' >"$cfg/file.json"
AXLE_SYSTEM_CONFIG="$cfg/system.json" AXLE_CONFIG="$cfg/file.json" AXLE_FALLBACK=silent AXLE_LOG_LEVEL= \
  "$axle" config show --json | python3 -c '
import json, sys
rows = {r["key"]: r for r in json.load(sys.stdin)}
assert rows["cpu.threads"]["value"] == 2 and rows["cpu.threads"]["layer"] == "AXLE_CONFIG file", rows["cpu.threads"]
assert rows["log_level"]["layer"] == "system file" and rows["log_level"]["value"] == "info", rows["log_level"]
assert rows["fallback.policy"]["layer"] == "environment" and rows["fallback.policy"]["source"] == "AXLE_FALLBACK"'
rm -rf "$cfg"
# A world-writable plugin folder is refused with a warning unless the config allows it.
ww=$(mktemp -d)
cp "$(dirname "$broken")/arena/axle_arena.so" "$(dirname "$broken")/arena/axle_arena.json" "$ww/"
chmod 777 "$ww"
out=$(AXLE_PLUGIN_PATH="$ww" AXLE_CONFIG= AXLE_LOG_LEVEL=warn "$axle" info 2>&1)
echo "$out" | grep "is world-writable" >/dev/null || { echo "no warning for a world-writable plugin folder: $out"; exit 1; }
if echo "$out" | grep "^  arena " >/dev/null; then echo "a world-writable folder's plugin was loaded"; exit 1; fi
echo '{"allow_world_writable_plugin_paths": true}' >"$ww.json"
AXLE_PLUGIN_PATH="$ww" AXLE_CONFIG="$ww.json" "$axle" info | grep "^  arena " >/dev/null ||
  { echo "allow_world_writable_plugin_paths did not allow the folder"; exit 1; }
# So is a world-writable library in a safe folder: rejected, with the reason in `axle info`.
chmod 755 "$ww"
chmod 666 "$ww/axle_arena.so"
out=$(AXLE_PLUGIN_PATH="$ww" AXLE_CONFIG= "$axle" info 2>&1)
echo "$out" | grep "axle_arena.so is world-writable" >/dev/null ||
  { echo "a world-writable plugin file was not rejected: $out"; exit 1; }
AXLE_PLUGIN_PATH="$ww" AXLE_CONFIG="$ww.json" "$axle" info | grep "^  arena " >/dev/null ||
  { echo "allow_world_writable_plugin_paths did not allow the file"; exit 1; }
rm -rf "$ww" "$ww.json"
# Golden shapes of every --json output (keys and value types; tests/tools/golden).
here=$(cd "$(dirname "$0")" && pwd)
golden() {  # NAME COMMAND...
  local name=$1
  shift
  "$@" | python3 "$here/json_shape.py" "$here/golden/$name.json" || { echo "golden --json shape: $name"; exit 1; }
}
golden info "$axle" info --json
golden explain "$axle" explain add.Tensor --json
golden config_show "$axle" config show --json
golden bench "$axle" bench --quick --only "add, 1" --json
golden ops "$axle" ops --json
# backends.allow / backends.deny (globs); axle info shows the configuration's
# non-default values and their layer.
bk=$(mktemp -d)
echo '{"backends": {"deny": ["cpu_*"]}, "matmul_precision": "high"}' >"$bk/deny.json"
AXLE_CONFIG="$bk/deny.json" AXLE_PLUGIN_PATH="$(dirname "$broken")/cpu_high" "$axle" info --json | python3 -c '
import json, sys
info = json.load(sys.stdin)
p = {x["name"]: x for x in info["plugins"]}
assert p["cpu_high"]["status"] == "disabled", p["cpu_high"]
assert "backends.deny has '"'"'cpu_*'"'"'" in p["cpu_high"]["reason"], p["cpu_high"]
assert p["reference"]["status"] in ("loaded", "available"), p["reference"]
cfg = {e["key"]: e for e in info["config"]}
assert cfg["matmul_precision"]["value"] == "high" and cfg["matmul_precision"]["layer"] == "AXLE_CONFIG file", cfg'
echo '{"backends": {"allow": ["reference", "cpu"]}}' >"$bk/allow.json"
AXLE_CONFIG="$bk/allow.json" AXLE_PLUGIN_PATH="$(dirname "$broken")/cpu_high" "$axle" info --json | python3 -c '
import json, sys
p = {x["name"]: x for x in json.load(sys.stdin)["plugins"]}
assert p["cpu_high"]["status"] == "disabled" and "backends.allow" in p["cpu_high"]["reason"], p["cpu_high"]'
AXLE_CONFIG="$bk/deny.json" "$axle" info | grep "matmul_precision .*AXLE_CONFIG file" >/dev/null ||
  { echo "axle info does not show the config's values"; exit 1; }
echo '{"backends": {"deny": "cpu"}}' >"$bk/bad.json"
AXLE_CONFIG="$bk/bad.json" "$axle" info 2>"$bk/err" >/dev/null && { echo "a malformed backends.deny was accepted"; exit 1; }
grep "'backends.deny' must be an array of strings" "$bk/err" >/dev/null || { cat "$bk/err"; exit 1; }
rm -rf "$bk"
set +e
"$axle" config keys --json | python3 -c '
import json, sys
keys = {k["key"]: k for k in json.load(sys.stdin)}
assert keys["fallback.policy"]["env"] == "AXLE_FALLBACK" and keys["plugins.<name>.rank"]["type"] == "int", keys
assert all(k["doc"] for k in keys.values())' || { echo "axle config keys --json"; exit 1; }
"$axle" config keys | grep "^cpu.threads .*OpenMP" >/dev/null || { echo "axle config keys"; exit 1; }
"$axle" config frobnicate >/dev/null 2>&1; [ $? -eq 2 ] || { echo "axle config with an unknown action must exit 2"; exit 1; }
"$axle" bench --device nosuchdevice >/dev/null 2>&1; [ $? -eq 1 ] || { echo "bench on an unknown device must exit 1"; exit 1; }
"$axle" explain no_such_op >/dev/null 2>&1; [ $? -eq 1 ] || { echo "unknown op must exit 1"; exit 1; }
"$axle" explain add.Tensor --device nosuchtype >/dev/null 2>&1; [ $? -eq 1 ] || { echo "explain on an unserved device must exit 1"; exit 1; }
"$axle" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "no command must exit 2"; exit 1; }
"$axle" frobnicate >/dev/null 2>&1; [ $? -eq 2 ] || { echo "unknown command must exit 2"; exit 1; }
"$axle" info --bogus >/dev/null 2>&1; [ $? -eq 2 ] || { echo "an unknown option must exit 2"; exit 1; }
"$axle" info extra >/dev/null 2>&1; [ $? -eq 2 ] || { echo "an extra argument must exit 2"; exit 1; }
"$axle" --json ops --names | python3 -c "import json,sys; assert len(json.load(sys.stdin)) > 200" || { echo "an option before ops must reach it"; exit 1; }
echo "cli test passed"
