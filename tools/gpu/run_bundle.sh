#!/usr/bin/env bash
# Runs the GPU bundle (.bundle/brisk-bundle.tar.xz, made by tools/gpu/build_bundle.sh) on a
# machine with a GPU, CUDA 13, cuDNN and NCCL, and no Bazel or network: unpacks it, runs every
# test binary (under a timeout each), then the GPU benchmarks next to their PyTorch twins, and
# prints as its last line
#
#   GPU bundle: N passed, M failed, S skipped (Catch2 test cases ...); benchmarks: K ran, F failed, X skipped
#
# Exits non-zero iff something failed. Never waits on a binary longer than its timeout.
# See docs/gpu.md.
#
#   tools/gpu/run_bundle.sh                 # everything
#   tools/gpu/run_bundle.sh tests           # only the tests; `bench`: only the benchmarks
#   tools/gpu/run_bundle.sh tests cuda/     # only test binaries whose path contains cuda/
#   BRISK_TEST_TIMEOUT=120 BRISK_JOBS=4 tools/gpu/run_bundle.sh
#
# Logs: console.log (what it prints), tests.log (every test binary's output), bench.log (every
# benchmark run's output) and summary.txt (the last line) go to $OUT when set (the device
# tool brings $OUT back), else to $BRISK_LOG_DIR, else to a new directory under /tmp.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
archive="$root/.bundle/brisk-bundle.tar.xz"
test_timeout="${BRISK_TEST_TIMEOUT:-300}"
bench_timeout="${BRISK_BENCH_TIMEOUT:-300}"
logs="${OUT:-${BRISK_LOG_DIR:-$(mktemp -d /tmp/brisk-gpu-logs.XXXXXX)}}"
mkdir -p "$logs"

run_tests=1
run_bench=1
filters=()
for arg in "$@"; do
  case "$arg" in
    tests) run_bench=0 ;;
    bench) run_tests=0 ;;
    *) filters+=("$arg") ;;
  esac
done

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
    # "N failed", but not "N failed as expected" (those are [!shouldfail] passes).
    if [[ $line =~ \|\ *([0-9]+)\ failed(\ *\||\ *$) ]]; then cases_failed=${BASH_REMATCH[1]}; fi
    cases_passed=$((total - cases_failed))
  else
    return 1
  fi
}

# Appends a log to one of the collected logs, under a header, at most its last 3000 lines.
collect() {  # collect <log> <title> <collected log>
  { echo "==================== $2"; tail -n 3000 "$1"; echo; } >>"$3"
}

unpack() {
  if [ ! -f "$archive" ]; then
    echo "run_bundle: no bundle at $archive: run tools/gpu/build_bundle.sh first, and carry .bundle"
    return 1
  fi
  bundle="${BRISK_BUNDLE_DIR:-$(mktemp -d /tmp/brisk-bundle.XXXXXX)}"
  mkdir -p "$bundle"
  # python3's tarfile (lzma built in) where there is one, else tar.
  if command -v python3 >/dev/null 2>&1; then
    python3 - "$archive" "$bundle" <<'EOF' || return 1
import sys, tarfile
with tarfile.open(sys.argv[1], "r:xz") as archive:
    if hasattr(tarfile, "tar_filter"):
        archive.extractall(sys.argv[2], filter="tar")
    else:
        archive.extractall(sys.argv[2])
EOF
  else
    tar -xJf "$archive" -C "$bundle" || return 1
  fi
  echo "run_bundle: unpacked $archive ($(du -m "$archive" | cut -f1) MiB) into $bundle"
  sed 's/^/  /' "$bundle/info.txt"
}

# The bundle's libraries first, then every directory holding CUDA's, cuDNN's or NCCL's
# libraries: the toolkit's (not its stubs) and those of PyTorch's nvidia-* wheels.
library_path() {
  local dirs wheel_dirs
  dirs="$(find /usr/local /usr/lib /usr/lib64 /opt -xdev \
    \( -name 'libcudart.so.*' -o -name 'libcublas.so.*' -o -name 'libcublasLt.so.*' -o -name 'libcudnn.so.*' \
    -o -name 'libnccl.so.*' -o -name 'libcurand.so.*' -o -name 'libcuda.so.1' \) -printf '%h\n' 2>/dev/null |
    grep -v '/stubs$')"
  wheel_dirs="$(python3 -c '
import glob, os
try:
    import nvidia
except ImportError:
    raise SystemExit
for base in nvidia.__path__:
    for lib in glob.glob(os.path.join(base, "**", "lib*.so*"), recursive=True):
        print(os.path.dirname(lib))
' 2>/dev/null)"
  dirs="$(printf '%s\n%s\n' "$dirs" "$wheel_dirs" | grep -v '^$' | sort -u | paste -sd: -)"
  export LD_LIBRARY_PATH="$bundle/lib${dirs:+:$dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# Runs a binary the way `bazel test` does: from its workspace's runfiles directory (where
# relative fixture paths such as tests/fixtures/ops.json resolve), with the test variables
# set; killed after $3 seconds (and 10 more if it ignores SIGTERM).
run_binary() {  # run_binary <binary relative to the bundle> <log> <timeout> [arguments...]
  local binary="$1" log="$2" limit="$3" tmp rc
  shift 3
  tmp="$(mktemp -d)"
  (cd "$bundle/runfiles/brisk" &&
   TEST_SRCDIR="$bundle/runfiles" TEST_WORKSPACE=brisk TEST_TMPDIR="$tmp" \
     timeout -k 10 "$limit" "$bundle/$binary" "$@" </dev/null) >"$log" 2>&1
  rc=$?
  rm -rf "$tmp"
  return $rc
}

# ---- tests ----
passed=0; failed=0; skipped=0; binaries=0; skipped_binaries=0
run_all_tests() {
  local work="$1" binary i=0 jobs
  local -a list=() gpu=()
  while read -r binary; do
    [ -n "$binary" ] && selected "$binary" && list+=("$binary")
  done <"$bundle/tests.txt"
  # CPU tests in parallel, then the gpu-tagged ones one at a time (they share the one GPU).
  jobs="${BRISK_JOBS:-$(( $(nproc) / 2 > 8 ? 8 : ($(nproc) / 2 > 0 ? $(nproc) / 2 : 1) ))}"
  echo "run_bundle: ${#list[@]} test binaries, $jobs at a time (gpu-tagged ones alone), timeout ${test_timeout}s each"
  for i in "${!list[@]}"; do
    grep -qxF "${list[$i]}" "$bundle/gpu_tests.txt" && { gpu+=("$i"); continue; }
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    (run_binary "${list[$i]}" "$work/$i.log" "$test_timeout"; echo $? >"$work/$i.rc") &
  done
  wait
  for i in "${gpu[@]}"; do
    run_binary "${list[$i]}" "$work/$i.log" "$test_timeout"; echo $? >"$work/$i.rc"
  done

  local rc why is_gpu
  for i in "${!list[@]}"; do
    binary="${list[$i]}"; rc="$(cat "$work/$i.rc")"
    binaries=$((binaries + 1))
    is_gpu=0; grep -qxF "$binary" "$bundle/gpu_tests.txt" && is_gpu=1
    collect "$work/$i.log" "$binary (exit code $rc)" "$logs/tests.log"
    if parse_catch2 "$work/$i.log"; then
      if [ "$rc" -ne 0 ] && [ "$cases_failed" -eq 0 ]; then cases_failed=1; fi
    else
      cases_passed=0; cases_failed=1
    fi
    why="exit code $rc"
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why="timed out after ${test_timeout}s"
    if [ "$rc" -eq 0 ]; then
      printf '%-7s %s (%d test cases)\n' PASSED "$binary" "$cases_passed"
      passed=$((passed + cases_passed))
    elif [ "$is_gpu" -eq 1 ] && [ -z "$gpu_name" ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] &&
         grep -qE '^(All tests passed|test cases:)' "$work/$i.log"; then
      # It loaded and ran, and failed for want of a GPU.
      printf '%-7s %s (tagged gpu; no GPU here: %d of its test cases failed)\n' SKIPPED "$binary" "$cases_failed"
      skipped=$((skipped + cases_passed + cases_failed)); skipped_binaries=$((skipped_binaries + 1))
    else
      printf '%-7s %s (%d passed, %d failed; %s)\n' FAILED "$binary" "$cases_passed" "$cases_failed" "$why"
      tail -n 40 "$work/$i.log" | sed 's/^/    | /'
      passed=$((passed + cases_passed)); failed=$((failed + cases_failed))
    fi
  done
}

# ---- benchmarks ----
bench_ran=0; bench_failed=0; bench_skipped=0
bench_result() {  # bench_result <name> <exit code> <log>
  if [ "$2" -eq 0 ]; then
    bench_ran=$((bench_ran + 1))
  elif [ -z "$gpu_name" ]; then
    echo "SKIPPED $1: no GPU here (exit code $2; $(grep -v '^\s*$' "$3" | tail -n 1 | cut -c1-160))"
    bench_skipped=$((bench_skipped + 1))
  else
    echo "FAILED  $1 (exit code $2; full output in bench.log):"
    tail -n 20 "$3" | sed 's/^/    | /'
    bench_failed=$((bench_failed + 1))
  fi
}

# gpu_bench and gpu_bench_torch.py, each twice in the order ours, PyTorch, PyTorch, ours, so
# that drift hits both alike; one table of the means, with each one's run-to-run spread.
gpu_bench() {
  local work="$1" run rc=0 r
  for run in brisk1 torch1 torch2 brisk2; do
    if [[ $run == brisk* ]]; then
      run_binary bin/tools/bench/gpu_bench "$work/$run.tsv" "$bench_timeout"
    else
      (cd "$root" && timeout -k 10 "$bench_timeout" python3 tools/bench/gpu_bench_torch.py) >"$work/$run.tsv" 2>&1
    fi
    r=$?
    collect "$work/$run.tsv" "gpu_bench run $run (exit code $r)" "$logs/bench.log"
    [ $r -ne 0 ] && { rc=$r; echo "gpu_bench: run $run failed (exit code $r)" >>"$work/failures"; cp "$work/$run.tsv" "$work/last_failure"; }
  done
  [ -f "$work/failures" ] && cat "$work/failures"
  python3 "$root/tools/gpu/gpu_bench_table.py" "$work"
  bench_result "gpu_bench (ours and PyTorch's)" "$rc" "${work}/last_failure"
}

# LeNet-5 training steps on the GPU, ours next to PyTorch, batch 64 and 256 (interleaved
# rounds; tools/bench/run_lenet_bench.sh does the comparing).
lenet_bench() {
  local work="$1" rc
  (cd "$root" && DEVICE=cuda THREADS="${BRISK_LENET_THREADS:-1}" ROUNDS="${BRISK_LENET_ROUNDS:-3}" BATCHES=64,256 \
    BRISK_LENET_BENCH="$bundle/bin/tools/bench/lenet_bench" \
    timeout -k 10 "$bench_timeout" tools/bench/run_lenet_bench.sh) >"$work/lenet.log" 2>&1
  rc=$?
  collect "$work/lenet.log" "lenet_bench (run_lenet_bench.sh, DEVICE=cuda; exit code $rc)" "$logs/bench.log"
  [ $rc -eq 0 ] && cat "$work/lenet.log"
  bench_result "lenet_bench --device cuda (ours and PyTorch's)" "$rc" "$work/lenet.log"
}

main() {
  : >"$logs/tests.log"
  : >"$logs/bench.log"
  echo "==================== GPU ===================="
  gpu_name=""
  if command -v nvidia-smi >/dev/null 2>&1 && timeout 30 nvidia-smi -L >/dev/null 2>&1; then
    gpu_name="$(timeout 30 nvidia-smi -L | head -n 1)"
    timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
  elif [ -e /dev/nvidia0 ]; then
    gpu_name="/dev/nvidia0 (nvidia-smi did not answer)"
    echo "run_bundle: nvidia-smi did not answer, but /dev/nvidia0 exists: running as on a GPU"
  else
    echo "run_bundle: no GPU visible (no nvidia-smi, or nvidia-smi -L failed): gpu-tagged tests and benchmarks that fail count as skipped"
  fi
  unpack || { echo "GPU bundle: 0 passed, 1 failed (no bundle to run); benchmarks: 0 ran" | tee "$logs/summary.txt"; return 1; }
  library_path
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  local work
  work="$(mktemp -d /tmp/brisk-run.XXXXXX)"

  if [ $run_tests -eq 1 ]; then
    echo
    echo "==================== tests ===================="
    mkdir -p "$work/tests"
    run_all_tests "$work/tests"
  fi

  if [ $run_bench -eq 1 ]; then
    echo
    echo "==================== benchmarks ===================="
    mkdir -p "$work/bench"
    if ! command -v python3 >/dev/null 2>&1; then
      echo "run_bundle: no python3 (PyTorch) here: benchmarks skipped"
      bench_skipped=$((bench_skipped + 2))
    else
      gpu_bench "$work/bench"
      echo
      lenet_bench "$work/bench"
    fi
    echo
    echo "Not run here (each a skip):"
    echo "  cpu_ops_bench, conv_bench: CPU kernels; tools/bench/run_cpu_ops_bench.sh and run_conv_bench.sh run them where Bazel is"
    echo "  data_loader_bench: CPU data loading from Fashion-MNIST; no GPU in it"
    echo "  allreduce_bench, ddp_bench: Gloo over CPU between ranks started by tools/launch; nothing for one GPU to measure"
    bench_skipped=$((bench_skipped + 5))
  fi

  [ -z "${BRISK_BUNDLE_DIR:-}" ] && rm -rf "$bundle"
  rm -rf "$work"
  echo
  echo "logs: $logs (console.log, tests.log, bench.log, summary.txt)"
  local summary="GPU bundle: ${passed} passed, ${failed} failed, ${skipped} skipped (Catch2 test cases in ${binaries} test binaries"
  [ "$skipped_binaries" -gt 0 ] && summary+="; ${skipped_binaries} gpu-tagged binaries skipped: no GPU"
  summary+=")"
  [ $run_tests -eq 0 ] && summary="GPU bundle: tests not run"
  if [ $run_bench -eq 1 ]; then
    summary+="; benchmarks: ${bench_ran} ran, ${bench_failed} failed, ${bench_skipped} skipped"
  else
    summary+="; benchmarks not run"
  fi
  echo "$summary" >"$logs/summary.txt"
  echo "$summary"
  [ "$failed" -eq 0 ] && [ "$bench_failed" -eq 0 ]
}

main 2>&1 | tee "$logs/console.log"
exit "${PIPESTATUS[0]}"
