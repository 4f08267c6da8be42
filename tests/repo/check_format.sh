#!/usr/bin/env bash
# Every tracked C, C++ and CUDA source is formatted as the repository's
# .clang-format says (Debian 12's clang-format 14). Lists the files that are not and
# the command that formats them. Skips (77) without clang-format or outside a
# git checkout. Usage: check_format.sh SOURCE_ROOT
set -uo pipefail
cd "$1" || exit 1
command -v clang-format >/dev/null || { echo "clang-format is not installed: skipped"; exit 77; }
# Versions format differently: the tree is formatted with Debian 12's clang-format 14.
version=$(clang-format --version | sed -nE 's/.*version ([0-9]+)\..*/\1/p')
[ "$version" = 14 ] || { echo "clang-format $version is not 14 (the tree's formatter): skipped"; exit 77; }
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh')
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ "${#bad[@]}" -gt 0 ]; then
  printf '%s\n' "${bad[@]}"
  echo "${#bad[@]} of ${#files[@]} files are not formatted: clang-format -i ${bad[*]}"
  exit 1
fi
echo "${#files[@]} files formatted as .clang-format says"
