#!/usr/bin/env bash
# Installs the build into a temporary prefix (DESTDIR), checks the layout, then
# builds tests/install/consumer.cpp against it twice: with pkg-config and with
# CMake find_package(axle). Usage: test_install.sh BUILD_DIR SOURCE_DIR PREFIX LIBDIR
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

export LD_LIBRARY_PATH="$root/$libdir"
unset AXLE_PLUGIN_PATH AXLE_CONFIG
# pkg-config, with the prefix derived from where the .pc file lies.
flags=$(PKG_CONFIG_PATH="$root/$libdir/pkgconfig" pkg-config --define-prefix --cflags --libs axle)
g++ -std=c++20 "$src/tests/install/consumer.cpp" -o "$tmp/consumer_pc" $flags
"$tmp/consumer_pc"
"$root/bin/axle" info | grep -q "reference" || { echo "installed axle info does not list the reference plugin"; exit 1; }
# CMake.
cmake -S "$src/tests/install" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$root" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/cmake-build" >/dev/null
"$tmp/cmake-build/consumer"
# Python package (when built): importable from the installed site-packages.
ext=$(find "$root" -name '_C*.so' -path '*/axle/*' | head -1)
if [ -n "$ext" ]; then
  PYTHONPATH="$(dirname "$(dirname "$ext")")" /usr/bin/python3 -c \
    "import axle; assert axle.ones(2, 3).sum().item() == 6.0; print('installed python package:', axle.__file__)"
fi
echo "install test passed"
