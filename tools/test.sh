#!/usr/bin/env bash
# THE test command for Brisk: installs what is missing (tools/setup.sh), builds
# everything and runs every test with Bazel, then prints one line per test target
# and, as the very last line, "N passed, M failed" counted in Catch2 test cases.
# Exits non-zero iff a test failed or the build failed.
#
#   tools/test.sh                   # all tests (gpu-tagged ones only if nvidia-smi -L works)
#   tools/test.sh --config=asan     # extra arguments are passed to `bazel test`
#   tools/test.sh --config=tsan     # ThreadSanitizer (README.md says when to run it)
#   tools/test.sh //tensor/...      # only these targets instead of //...
#   BRISK_JOBS=8 tools/test.sh      # parallelism (default 2)
# Without arguments it also runs tools/test_examples.sh (the examples of docs/install.md,
# Brisk used from a Bazel or CMake project of one's own, and the docs' file blocks checked
# against the files), each check counted as one test case.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! tools/setup.sh; then
  echo "tools/test.sh: tools/setup.sh failed"
  echo "0 passed, 1 failed"
  exit 1
fi

jobs="${BRISK_JOBS:-2}"
args=(--jobs="$jobs" --local_test_jobs="$jobs" --keep_going --test_summary=short --color=no --curses=no)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "tools/test.sh: GPU found, running gpu-tagged tests too"
else
  echo "tools/test.sh: no GPU, skipping tests tagged gpu"
  args+=(--test_tag_filters=-gpu)
fi

out="$(mktemp)"
examples="$(mktemp)"
trap 'rm -f "$out" "$examples"' EXIT
# Target patterns among the arguments (//tensor/...) replace the default //...
targets=(//...)
for a in "$@"; do [[ $a == //* ]] && targets=(); done
bazel test "${args[@]}" "$@" "${targets[@]}" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
# Only for the plain run (CI's): with other flags (--config=asan) their build would be another.
[ $# -eq 0 ] && tools/test_examples.sh "$examples"

source tools/catch2_counts.sh

passed=0
failed=0
ntargets=0
echo
echo "==================== Brisk test summary ===================="
# Bazel's summary lines: "//pkg:name   [(cached) ]STATUS[ in 1.2s]".
while read -r label status; do
  ntargets=$((ntargets + 1))
  pkg="${label#//}"; pkg="${pkg%%:*}"; name="${label##*:}"
  log="bazel-testlogs/${pkg:+$pkg/}$name/test.log"
  case "$status" in
    PASSED|FLAKY)
      if parse_catch2 "$log"; then
        printf '%-7s %s (%d test cases)\n' PASSED "$label" "$cases_passed"
        passed=$((passed + cases_passed)); failed=$((failed + cases_failed))
      else
        printf '%-7s %s (not a Catch2 log: counted as 1)\n' PASSED "$label"
        passed=$((passed + 1))
      fi ;;
    FAILED|TIMEOUT|INCOMPLETE)
      if parse_catch2 "$log"; then
        if [ "$cases_failed" -eq 0 ]; then
          # e.g. LeakSanitizer or a crash after Catch2's summary.
          printf '%-7s %s (%d passed, but the test binary failed: counted as 1 failed; see %s)\n' FAILED "$label" "$cases_passed" "$log"
          cases_failed=1
        else
          printf '%-7s %s (%d passed, %d failed)\n' FAILED "$label" "$cases_passed" "$cases_failed"
        fi
        passed=$((passed + cases_passed)); failed=$((failed + cases_failed))
      else
        printf '%-7s %s (%s; no Catch2 summary: counted as 1 failed; see %s)\n' FAILED "$label" "$status" "$log"
        failed=$((failed + 1))
      fi ;;
    *)  # FAILED TO BUILD, NO STATUS, SKIPPED, ...
      printf '%-7s %s (%s: counted as 1 failed)\n' FAILED "$label" "$status"
      failed=$((failed + 1)) ;;
  esac
done < <(sed -nE 's/^(\/\/[^ ]+) +(\(cached\) )?(PASSED|FLAKY|FAILED TO BUILD|FAILED|TIMEOUT|NO STATUS|INCOMPLETE|SKIPPED|REMOTE FAILURE)( in .*|,.*)?$/\1 \3/p' "$out")

# tools/test_examples.sh's lines: "PASSED name log", "FAILED name log" or "SKIPPED name log".
while read -r status name log; do
  ntargets=$((ntargets + 1))
  if [ "$status" = PASSED ]; then
    printf '%-7s %s (tools/test_examples.sh: counted as 1)\n' PASSED "$name"
    passed=$((passed + 1))
  elif [ "$status" = SKIPPED ]; then
    printf '%-7s %s (tools/test_examples.sh: cannot run on this machine, not counted; see %s)\n' SKIPPED "$name" "$log"
  else
    printf '%-7s %s (tools/test_examples.sh: counted as 1 failed; see %s)\n' FAILED "$name" "$log"
    failed=$((failed + 1))
  fi
done <"$examples"

# 0: all passed; 3: some tests failed; 4: built fine but there is no test yet.
# Anything else (1 = build failed, 2 = bad flags, 8 = interrupted, ...) is a failure
# even if no test target reported it.
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ] && [ "$rc" -ne 4 ] || { [ "$rc" -eq 3 ] && [ "$failed" -eq 0 ]; }; then
  if [ "$failed" -eq 0 ]; then
    echo "FAILED  build: bazel test exited with code $rc (build failure or bad arguments; see above), counted as 1 failed"
    failed=1
  else
    echo "(bazel test exited with code $rc)"
  fi
fi
[ "$ntargets" -eq 0 ] && echo "(no test targets ran)"
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
