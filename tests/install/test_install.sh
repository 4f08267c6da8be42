#!/usr/bin/env bash
# Installs the build into a temporary prefix (DESTDIR), checks the layout, then
# builds tests/install/consumer.cpp against it twice: with pkg-config and with
# CMake find_package(axle); then the installed plugin template and sim example,
# each with meson (pkg-config) and with CMake (find_package(axle-plugin-sdk)),
# with the prefix's bin/ off PATH, and loads them.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR PREFIX LIBDIR
set -euo pipefail
build=$1 src=$2 prefix=$3 libdir=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet
root="$tmp/root$prefix"
for f in "$libdir/libaxle.so" "$libdir/axle/plugins/axle_reference.so" "$libdir/axle/plugins/axle_reference.json" \
         include/axle/axle.h include/axle/plugin/axle_plugin.h include/axle/plugin/helpers.hpp \
         "$libdir/pkgconfig/axle.pc" "$libdir/pkgconfig/axle-plugin-sdk.pc" "$libdir/cmake/axle/axleConfig.cmake" bin/axle; do
  [ -e "$root/$f" ] || { echo "missing from the install: $f"; exit 1; }
done
# Only the public API is exported: no spdlog/fmt/boost/nlohmann symbols.
if nm -D --defined-only "$root/$libdir/libaxle.so" | grep -E ' (spdlog|fmt|boost|nlohmann)' | head -3 | grep -q .; then
  echo "libaxle exports third-party symbols"; exit 1
fi
readelf -d "$root/$libdir/libaxle.so" | grep -q 'SONAME.*libaxle.so.0' || { echo "no versioned soname"; exit 1; }

# Kept after the install: dependencies outside the default paths (a bundle).
export LD_LIBRARY_PATH="$root/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset AXLE_PLUGIN_PATH AXLE_CONFIG
# pkg-config through the DESTDIR root as sysroot (--define-prefix would derive
# the prefix from the .pc's folder, wrong for a multiarch libdir such as
# lib/x86_64-linux-gnu).
flags=$(PKG_CONFIG_PATH="$root/$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$tmp/root" pkg-config --cflags --libs axle)
g++ -std=c++20 "$src/tests/install/consumer.cpp" -o "$tmp/consumer_pc" $flags
"$tmp/consumer_pc"
"$root/bin/axle" info | grep -q "reference" || { echo "installed axle info does not list the reference plugin"; exit 1; }
# CMake.
cmake -S "$src/tests/install" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$root" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/cmake-build" >/dev/null
"$tmp/cmake-build/consumer"
# The installed SDK is self-contained: its headers, the plugin author's guide
# and the ABI changelog, the CMake package, the template and the sim example.
for f in include/axle/plugin/layout.hpp include/axle/plugin/address_space.hpp \
         share/doc/axle/plugin-sdk/plugin-abi.md share/doc/axle/plugin-sdk/CHANGELOG.md \
         "$libdir/cmake/axle-plugin-sdk/axle-plugin-sdkConfig.cmake" \
         "$libdir/cmake/axle-plugin-sdk/axle-plugin-sdkConfigVersion.cmake" \
         share/axle/plugin-template/meson.build share/axle/plugin-template/CMakeLists.txt \
         share/axle/examples/sim_plugin/sim.cpp share/axle/examples/sim_plugin/meson.build \
         share/axle/examples/sim_plugin/CMakeLists.txt; do
  [ -e "$root/$f" ] || { echo "missing from the installed SDK: $f"; exit 1; }
done
# Plugins build against the prefix with its bin/ NOT on PATH: the manifest tool
# comes from the SDK's packages (manifest_tool in axle-plugin-sdk.pc, the CMake
# package's AXLE_PLUGIN_SDK_MANIFEST_TOOL). Any other axle-plugin-manifest on
# PATH is left out too, so a build that still looked there fails.
clean_path=
IFS=: read -ra path_dirs <<<"$PATH"
for d in "${path_dirs[@]}"; do
  [ -n "$d" ] && [ "$d" != "$root/bin" ] && [ ! -e "$d/axle-plugin-manifest" ] && clean_path+="${clean_path:+:}$d"
done
if PATH="$clean_path" command -v axle-plugin-manifest >/dev/null; then
  echo "axle-plugin-manifest is still on the test's PATH"; exit 1
fi
# pkg-config through the DESTDIR root as sysroot (the .pc names /usr/local/...).
sdk_env=(env PATH="$clean_path" PKG_CONFIG_PATH="$root/$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$tmp/root")
# The ABI the .pc and the CMake package announce is the installed header's.
header="$root/include/axle/plugin/axle_plugin.h"
abi_major=$(sed -nE 's/^#define AXLE_ABI_MAJOR +([0-9]+).*/\1/p' "$header")
abi_minor=$(sed -nE 's/^#define AXLE_ABI_MINOR +([0-9]+).*/\1/p' "$header")
[ -n "$abi_major" ] && [ -n "$abi_minor" ] || { echo "no AXLE_ABI_MAJOR/MINOR in $header"; exit 1; }
pc_abi="$("${sdk_env[@]}" pkg-config --variable=abi_major axle-plugin-sdk).$("${sdk_env[@]}" pkg-config --variable=abi_minor axle-plugin-sdk)"
[ "$pc_abi" = "$abi_major.$abi_minor" ] ||
  { echo "axle-plugin-sdk.pc says ABI $pc_abi, axle_plugin.h $abi_major.$abi_minor"; exit 1; }
[ -x "$("${sdk_env[@]}" pkg-config --variable=manifest_tool axle-plugin-sdk)" ] ||
  { echo "axle-plugin-sdk.pc's manifest_tool is not the installed tool"; exit 1; }

# Runs a build step quietly; on failure shows its output.
quiet() { "$@" >"$tmp/step.txt" 2>&1 || { cat "$tmp/step.txt"; echo "failed: $*"; return 1; }; }
# The plugin template builds as-is out of tree against the installed SDK, with
# meson (pkg-config) and with CMake (find_package), loads, and reports zero
# devices with its note.
check_template() {  # BUILD_DIR
  [ -f "$1/my_device.so" ] && [ -f "$1/my_device.json" ] ||
    { echo "the plugin template did not build its module and manifest in $1"; exit 1; }
  info=$(AXLE_PLUGIN_PATH="$1" "$root/bin/axle" info)
  echo "$info" | grep "my_device .*loaded" >/dev/null || { echo "the template plugin did not load: $info"; exit 1; }
  echo "$info" | grep "my_device .*count 0.*not implemented yet" >/dev/null ||
    { echo "the template device does not say why it has no devices: $info"; exit 1; }
}
cp -r "$root/share/axle/plugin-template" "$tmp/template"
quiet "${sdk_env[@]}" meson setup "$tmp/template/build" "$tmp/template"
quiet "${sdk_env[@]}" ninja -C "$tmp/template/build"
check_template "$tmp/template/build"
"${sdk_env[@]}" cmake -S "$tmp/template" -B "$tmp/template/cmake-build" -DCMAKE_PREFIX_PATH="$root" \
  >"$tmp/template-cmake.txt" || { cat "$tmp/template-cmake.txt"; exit 1; }
grep "axle plugin SDK .*ABI $abi_major.$abi_minor" "$tmp/template-cmake.txt" >/dev/null ||
  { echo "the CMake package does not announce ABI $abi_major.$abi_minor:"; cat "$tmp/template-cmake.txt"; exit 1; }
quiet "${sdk_env[@]}" cmake --build "$tmp/template/cmake-build"
check_template "$tmp/template/cmake-build"
# The out-of-tree "sim" device as installed (share/axle/examples/sim_plugin),
# built from the installed prefix only (meson, then CMake), dropped into a
# folder on AXLE_PLUGIN_PATH, used from the CLI, C++ and Python; an op it lacks
# runs through the host fallback with a warning, and raises
# NotImplementedError naming op and device under the "error" policy.
cp -r "$root/share/axle/examples/sim_plugin" "$tmp/sim"
quiet "${sdk_env[@]}" cmake -S "$tmp/sim" -B "$tmp/sim-cmake" -DCMAKE_PREFIX_PATH="$root"
quiet "${sdk_env[@]}" cmake --build "$tmp/sim-cmake"
[ -f "$tmp/sim-cmake/axle_sim.json" ] || { echo "the CMake build of sim wrote no manifest"; exit 1; }
AXLE_PLUGIN_PATH="$tmp/sim-cmake" "$root/bin/axle" info | grep "sim:0 .*simulated accelerator" >/dev/null ||
  { echo "the CMake-built sim does not load"; exit 1; }
quiet "${sdk_env[@]}" meson setup "$tmp/sim-build" "$tmp/sim"
quiet "${sdk_env[@]}" ninja -C "$tmp/sim-build"
mkdir -p "$tmp/drop" && cp "$tmp/sim-build/axle_sim.so" "$tmp/sim-build/axle_sim.json" "$tmp/drop/"
export AXLE_PLUGIN_PATH="$tmp/drop"
"$root/bin/axle" info | grep "sim:0 .*simulated accelerator" >/dev/null || { echo "axle info does not list sim:0"; exit 1; }
"$root/bin/axle" check "$tmp/drop/axle_sim.so" >"$tmp/sim-check.txt" || { cat "$tmp/sim-check.txt"; exit 1; }
tail -1 "$tmp/sim-check.txt"
g++ -std=c++20 "$src/tests/install/sim_consumer.cpp" -o "$tmp/sim_consumer" $flags
AXLE_LOG_LEVEL=warn "$tmp/sim_consumer" 2>"$tmp/sim-stderr.txt"
grep "'exp' has no kernel for device 'sim'" "$tmp/sim-stderr.txt" >/dev/null ||
  { echo "no host-fallback warning for exp on sim:"; cat "$tmp/sim-stderr.txt"; exit 1; }
unset AXLE_PLUGIN_PATH
# Python package (when built): importable from the installed site-packages.
ext=$(find "$root" -name '_C*.so' -path '*/axle/*' | head -1)
if [ -n "$ext" ]; then
  PYTHONPATH="$(dirname "$(dirname "$ext")")" /usr/bin/python3 -c \
    "import axle; assert axle.ones(2, 3).sum().item() == 6.0; print('installed python package:', axle.__file__)"
  echo '{"fallback": {"policy": "error"}}' >"$tmp/strict.json"
  AXLE_PLUGIN_PATH="$tmp/drop" PYTHONPATH="$(dirname "$(dirname "$ext")")" \
    /usr/bin/python3 - <<'PY'
import os, axle
t = axle.ones(3, device="sim") + 1
assert t.device.type == "sim" and t.cpu().tolist() == [2.0, 2.0, 2.0], t
assert abs(axle.exp(t).cpu().tolist()[0] - 7.389056) < 1e-5   # through the host fallback
print("sim from Python: ok")
PY
  AXLE_PLUGIN_PATH="$tmp/drop" PYTHONPATH="$(dirname "$(dirname "$ext")")" AXLE_CONFIG="$tmp/strict.json" \
    /usr/bin/python3 - <<'PY'
import axle
t = axle.ones(3, device="sim")
try:
    axle.exp(t)
    raise SystemExit("exp on sim with fallback policy 'error' did not raise")
except NotImplementedError as e:
    assert "exp" in str(e) and "sim" in str(e), e
print("sim with fallback 'error' from Python: NotImplementedError as expected")
PY
fi
echo "install test passed"
