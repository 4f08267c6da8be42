#!/usr/bin/env bash
# Every tracked C, C++ and CUDA source is formatted as the repository's
# .clang-format says (Debian's clang-format). Lists the files that are not and
# the command that formats them. Skips (77) without clang-format or outside a
# git checkout. Usage: check_format.sh SOURCE_ROOT
set -uo pipefail
cd "$1" || exit 1
command -v clang-format >/dev/null || { echo "clang-format is not installed: skipped"; exit 77; }
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
