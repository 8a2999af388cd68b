#!/usr/bin/env bash
# Runs the GPU bundle (.bundle/, made by tools/gpu/build_bundle.sh) on a machine with a GPU,
# CUDA, cuDNN and NCCL, and no Bazel or network: every test binary, then every benchmark.
# Prints one line per test binary (the output of failing ones), the benchmarks' output, and
# last "N passed, M failed" counted in Catch2 test cases (a binary that crashes or a failing
# benchmark counts as 1 failed). Exits non-zero iff something failed. See docs/gpu.md.
#
#   tools/gpu/run_bundle.sh                      # everything
#   tools/gpu/run_bundle.sh cuda/ allocator      # only binaries whose path contains one of these
#   BRISK_TEST_TIMEOUT=300 tools/gpu/run_bundle.sh
#
# Full logs go to $BRISK_LOG_DIR (default: a new directory under /tmp, printed at the end).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle="$root/.bundle"
timeout_s="${BRISK_TEST_TIMEOUT:-600}"
logs="${BRISK_LOG_DIR:-$(mktemp -d /tmp/brisk-gpu-logs.XXXXXX)}"
mkdir -p "$logs"

if [ ! -f "$bundle/tests.txt" ]; then
  echo "run_bundle: no bundle at $bundle: run tools/gpu/build_bundle.sh first (and carry .bundle)"
  echo "0 passed, 1 failed"
  exit 1
fi

# The bundle's libraries first, then every directory holding CUDA's, cuDNN's or NCCL's
# libraries: the toolkit's and those of PyTorch's nvidia-* wheels.
cuda_dirs="$(find /usr/local /usr/lib /usr/lib64 /opt -xdev \
  \( -name 'libcudart.so.*' -o -name 'libcublas.so.*' -o -name 'libcublasLt.so.*' -o -name 'libcudnn.so.*' \
  -o -name 'libnccl.so.*' -o -name 'libcurand.so.*' -o -name 'libcuda.so.1' \) -printf '%h\n' 2>/dev/null |
  sort -u | paste -sd: -)"
export LD_LIBRARY_PATH="$bundle/lib${cuda_dirs:+:$cuda_dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

echo "==================== GPU ===================="
nvidia-smi -L || echo "run_bundle: nvidia-smi -L failed: no GPU visible"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

filters=("$@")
selected() {  # selected <binary>: true when no filter was given or one is part of its path
  [ ${#filters[@]} -eq 0 ] && return 0
  local want
  for want in "${filters[@]}"; do [[ $1 == *"$want"* ]] && return 0; done
  return 1
}

# Catch2 v2 closing lines, as tools/test.sh reads them:
#   All tests passed (12 assertions in 3 test cases)
#   test cases: 5 | 4 passed | 1 failed
# Sets cases_passed/cases_failed; returns 1 if the log has no such line.
parse_catch2() {
  local line
  line="$(grep -E '^(All tests passed|test cases:)' "$1" 2>/dev/null | tail -n 1)"
  if [[ $line =~ ^All\ tests\ passed.*\ in\ ([0-9]+)\ test\ case ]]; then
    cases_passed=${BASH_REMATCH[1]}; cases_failed=0
  elif [[ $line =~ ^test\ cases:\ *([0-9]+) ]]; then
    local total=${BASH_REMATCH[1]}
    cases_failed=0
    if [[ $line =~ \|\ *([0-9]+)\ failed(\ *\||\ *$) ]]; then cases_failed=${BASH_REMATCH[1]}; fi
    cases_passed=$((total - cases_failed))
  else
    return 1
  fi
}

# Runs a binary the way `bazel test` does: from its workspace's runfiles directory (where
# relative fixture paths such as tests/fixtures/ops.json resolve), with the test variables set.
run_binary() {  # run_binary <binary relative to the bundle> <log>
  local tmp rc
  tmp="$(mktemp -d)"
  (cd "$bundle/runfiles/brisk" &&
   TEST_SRCDIR="$bundle/runfiles" TEST_WORKSPACE=brisk TEST_TMPDIR="$tmp" \
     timeout "$timeout_s" "$bundle/$1" </dev/null) >"$2" 2>&1
  rc=$?
  rm -rf "$tmp"
  return $rc
}

passed=0
failed=0
echo
echo "==================== tests ===================="
while read -r binary; do
  [ -n "$binary" ] && selected "$binary" || continue
  log="$logs/$(echo "$binary" | tr / _).log"
  run_binary "$binary" "$log"
  rc=$?
  if parse_catch2 "$log"; then
    if [ $rc -ne 0 ] && [ "$cases_failed" -eq 0 ]; then cases_failed=1; fi
  else
    cases_passed=0; cases_failed=1
  fi
  passed=$((passed + cases_passed)); failed=$((failed + cases_failed))
  if [ $rc -eq 0 ]; then
    printf '%-7s %s (%d test cases)\n' PASSED "$binary" "$cases_passed"
  else
    why="exit code $rc"; [ $rc -eq 124 ] && why="timed out after ${timeout_s}s"
    printf '%-7s %s (%d passed, %d failed; %s)\n' FAILED "$binary" "$cases_passed" "$cases_failed" "$why"
    tail -n 60 "$log" | sed 's/^/    | /'
  fi
done <"$bundle/tests.txt"

echo
echo "==================== benchmarks ===================="
while read -r binary; do
  [ -n "$binary" ] && selected "$binary" || continue
  log="$logs/$(echo "$binary" | tr / _).log"
  echo "--- $binary"
  run_binary "$binary" "$log"
  rc=$?
  tail -n 40 "$log"
  if [ $rc -ne 0 ]; then
    echo "FAILED  $binary (exit code $rc)"
    failed=$((failed + 1))
  fi
done <"$bundle/benchmarks.txt"

echo
echo "logs: $logs"
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
