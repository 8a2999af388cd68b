#!/usr/bin/env bash
# Formats Brisk's C++ and CUDA sources with clang-format 14 and the repository's .clang-format.
#
#   tools/format.sh                 # rewrites every tracked source that is not formatted
#   tools/format.sh --check         # changes nothing; lists the unformatted files, exits 1 if any
#   tools/format.sh [--check] FILE...   # only these files (those outside the set below are skipped)
#
# The set: tracked *.h, *.cc, *.cu (*.cu.h included) outside third_party/ (not ours; it also
# carries a DisableFormat .clang-format for editors) and outside any fixtures/ directory
# (generated reference data, kept byte-identical). Other clang-format versions break lines
# differently, so only version 14 is used: set CLANG_FORMAT to pick a binary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

check=0
if [ "${1:-}" = --check ]; then
  check=1
  shift
fi

find_clang_format() {
  local candidate
  for candidate in ${CLANG_FORMAT:-} clang-format-14 clang-format; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" --version | grep -q 'version 14\.'; then
      echo "$candidate"
      return
    fi
  done
  echo "tools/format.sh: clang-format 14 not found: install the Debian package clang-format" \
    "(tools/setup.sh does), or set CLANG_FORMAT to a clang-format 14 binary" >&2
  exit 2
}
clang_format="$(find_clang_format)"

# The formatted set, NUL-separated: tracked files among the arguments (default: all) that are
# C++ or CUDA sources outside third_party/ and fixtures/.
formatted_sources() {
  git ls-files -z -- "$@" | grep -z -E '\.(h|cc|cu)$' | grep -z -v -E '^third_party/|(^|/)fixtures/'
}
mapfile -d '' files < <(formatted_sources "$@")
[ "${#files[@]}" -eq 0 ] && exit 0

jobs="$(nproc 2>/dev/null || echo 2)"
if [ "$check" -eq 1 ]; then
  # --dry-run --Werror reports "FILE:LINE:COL: error: code should be clang-formatted" for each
  # change. Each batch writes to its own file, so parallel batches cannot interleave.
  reports="$(mktemp -d)"
  trap 'rm -rf "$reports"' EXIT
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 -P "$jobs" sh -c '
    out="$(mktemp -p "$1")"; cf="$2"; shift 2
    "$cf" --style=file --dry-run --Werror "$@" >"$out" 2>&1 || echo "exit status $?" >>"$out"' sh "$reports" "$clang_format"
  violation=': error: code should be clang-formatted'
  unformatted="$(cat "$reports"/* | grep -E "$violation" | cut -d: -f1 | sort -u || true)"
  for report in "$reports"/*; do
    # A batch that failed without reporting a violation: clang-format itself failed.
    if grep -q '^exit status' "$report" && ! grep -q -E "$violation" "$report"; then
      cat "$report" >&2
      echo "tools/format.sh: $clang_format failed" >&2
      exit 2
    fi
  done
  if [ -n "$unformatted" ]; then
    echo "tools/format.sh: not formatted (run tools/format.sh to fix):"
    echo "$unformatted"
    exit 1
  fi
  exit 0
fi
printf '%s\0' "${files[@]}" | xargs -0 -n 50 -P "$jobs" "$clang_format" --style=file -i
