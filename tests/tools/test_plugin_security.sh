#!/usr/bin/env bash
# Plugin loading under attack: a plugin kept out by the configuration never
# runs (not even a library without a manifest, which is otherwise loaded to
# learn its name), and plugin folders and files that others could write to are
# refused unless allow_world_writable_plugin_paths says otherwise.
# Usage: test_plugin_security.sh AXLE MARKER_DIR ARENA_DIR
set -euo pipefail
axle=$1 marker_dir=$2 arena_dir=$3
export AXLE_CONFIG="" AXLE_LOG_LEVEL=off
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# status FILE: the status and reason `axle info --json` gives the plugin file FILE ("absent" when unlisted).
status() {
  "$axle" info --json | python3 -c '
import json, sys
for p in json.load(sys.stdin)["plugins"]:
    if p["path"].rsplit("/", 1)[-1] == sys.argv[1]:
        print(p["status"] + ": " + p["reason"])
        break
else:
    print("absent")' "$1"
}
fail() {
  echo "FAIL: $*"
  exit 1
}

# ---- The configuration's filters apply before any code of a plugin runs.
export AXLE_TEST_MARKER="$work/marker-ran"
AXLE_PLUGIN_PATH="$marker_dir" status marker.so | grep "^loaded" >/dev/null || fail "the marker plugin does not load"
[ -e "$AXLE_TEST_MARKER" ] || fail "the marker plugin's constructor did not run: the checks below would prove nothing"
deny() {  # CONFIG_JSON EXPECTED_REASON
  rm -f "$AXLE_TEST_MARKER"
  echo "$1" >"$work/config.json"
  local got
  got=$(AXLE_CONFIG="$work/config.json" AXLE_PLUGIN_PATH="$marker_dir" status marker.so)
  [ ! -e "$AXLE_TEST_MARKER" ] || fail "the plugin's code ran although $1 keeps it out ($got)"
  case "$got" in
    "disabled: "*"$2"*) ;;
    *) fail "with $1: expected disabled ($2), got: $got" ;;
  esac
}
deny '{"backends": {"deny": ["mark*"]}}' "backends.deny has 'mark*'"
deny '{"plugins": {"marker": {"enabled": false}}}' "plugins.marker.enabled = false"
deny '{"backends": {"allow": ["reference", "cpu"]}}' "backends.allow"
# A filter that its file name does not match: its name is unknown without
# running it (a library can call itself anything), so it stays out too.
deny '{"backends": {"deny": ["cuda*"]}}' "has no manifest"
unset AXLE_TEST_MARKER

# ---- Plugin folders and files others may write to.
# plugin_dir NAME: a fresh folder under $work holding a copy of the arena plugin and its manifest.
plugin_dir() {
  mkdir -p "$work/$1"
  cp "$arena_dir/axle_arena.so" "$arena_dir/axle_arena.json" "$work/$1/"
  chmod 755 "$work/$1"
  echo "$work/$1"
}
loads() {  # PATH: the arena plugin is listed and not refused
  case "$(AXLE_PLUGIN_PATH="$1" status axle_arena.so)" in
    loaded* | available*) return 0 ;;
    *) return 1 ;;
  esac
}
refused() {  # PATH WHY: refused (folder skipped with a warning, or file rejected) naming WHY; allowed by the option
  local got warn
  got=$(AXLE_PLUGIN_PATH="$1" status axle_arena.so)
  warn=$(AXLE_PLUGIN_PATH="$1" AXLE_LOG_LEVEL=warn "$axle" info 2>&1 >/dev/null || true)
  case "$got" in
    absent) echo "$warn" | grep -F "$2" >/dev/null || fail "$1: folder skipped without a warning naming '$2': $warn" ;;
    "rejected: "*"$2"*) ;;
    *) fail "$1: expected refused ($2), got: $got" ;;
  esac
  echo '{"allow_world_writable_plugin_paths": true}' >"$work/allow.json"
  AXLE_CONFIG="$work/allow.json" loads "$1" || fail "$1: allow_world_writable_plugin_paths did not allow it"
}

safe=$(plugin_dir safe)
loads "$safe" || fail "a safe plugin folder ($safe) was refused: $(AXLE_PLUGIN_PATH="$safe" status axle_arena.so)"

d=$(plugin_dir group_writable)
chmod 775 "$d"
refused "$d" "is writable by its group"

d=$(plugin_dir group_writable_file)
chmod 664 "$d/axle_arena.so"
refused "$d" "axle_arena.so is writable by its group"
d=$(plugin_dir group_writable_manifest)
chmod 664 "$d/axle_arena.json"
refused "$d" "axle_arena.json is writable by its group"

# Under a world-writable parent without the sticky bit anyone can rename the
# folder away and put another in its place; with the sticky bit (as /tmp) not.
mkdir "$work/open"
chmod 777 "$work/open"
d=$(plugin_dir open/plugins)
refused "$d" "which anyone may write to and which lacks the sticky bit"
mkdir "$work/sticky"
chmod 1777 "$work/sticky"
d=$(plugin_dir sticky/plugins)
loads "$d" || fail "a folder under a sticky world-writable parent was refused"

# Symlinks are followed: a safe-looking link to a group-writable folder, a
# library linked in from one, a folder reached through an open parent.
mkdir "$work/gw_target"
cp "$arena_dir/axle_arena.so" "$arena_dir/axle_arena.json" "$work/gw_target/"
chmod 775 "$work/gw_target"
ln -s "$work/gw_target" "$work/link_to_gw"
refused "$work/link_to_gw" "reached through $work/link_to_gw"
d=$(plugin_dir linked_file)
rm "$d/axle_arena.so"
ln -s "$work/gw_target/axle_arena.so" "$d/axle_arena.so"
refused "$d" "gw_target is writable by its group"
ln -s "$work/open/plugins" "$work/link_via_open"
refused "$work/link_via_open" "which anyone may write to and which lacks the sticky bit"

# Owned by another user than root or this process's.
d=$(plugin_dir foreign_owner)
if chown nobody "$d" 2>/dev/null; then
  refused "$d" "neither root nor this process's user"
  chown "$(id -u)" "$d"
  chown nobody "$d/axle_arena.so"
  refused "$d" "axle_arena.so is owned by uid"
else
  echo "SKIP: foreign-owner cases (cannot chown to nobody as uid $(id -u))"
fi
echo "plugin security test passed"
