# shellcheck shell=bash disable=SC2154  # variables of run_bundle.sh, which sources this
# The `sanitize` phase of tools/gpu/run_bundle.sh (sourced by it; uses its run_binary,
# time_left_for, selected and bundle): compute-sanitizer over the bundle's CUDA tests, bounded in
# time.
#
#   memcheck   every gpu-tagged test binary under tests/cuda/: out-of-bounds and misaligned
#              accesses, bad frees, and CUDA API errors;
#   racecheck  the tests of the hand-written kernels that use shared memory (cuda/reduce.cu,
#              cuda/softmax.cu: the only ones that declare __shared__): hazards between the
#              threads of a block, which is all racecheck looks at.
#
# The runs go BRISK_SANITIZER_JOBS (default 6) at a time on the one GPU, each under
# BRISK_SANITIZER_TIMEOUT (default 30 s) cut to the phase's budget; a run that times out is
# "incomplete" with the errors it had reported by then. allocator_gpu_test runs alone, last: it
# compares the device's free memory before and after, which other processes would disturb. Its
# memcheck does not report CUDA API errors: one of its cases exhausts the device on purpose, and
# every cudaMalloc that then fails would count as an error.
# Verdicts come from the sanitizer's "ERROR SUMMARY" (racecheck's "RACECHECK SUMMARY: N hazards
# displayed (E errors, W warnings)": E), not from the test's own exit code (call 1
# of the lease judges the tests); a run without a summary that did not time out means the tool
# could not check this machine (it refuses some virtualized GPUs: "Device not supported").
# Skipped, saying why, with no GPU or no compute-sanitizer. Full output: sanitizer.log.

sanitizer_clean=0; sanitizer_errors=0; sanitizer_incomplete=0; sanitizer_unchecked=0; sanitizer_not_run=0

# A CUDA tool on PATH, else the newest in the usual install places; nothing if none.
find_cuda_tool() {  # find_cuda_tool <name>
  command -v "$1" 2>/dev/null && return 0
  ls -d /usr/local/cuda*/bin/"$1" /opt/nvidia/nsight-compute/*/"$1" 2>/dev/null | sort -V | tail -n 1
}

# One sanitizer run: writes <log> and "<exit code> <seconds>" to <log>.rc.
sanitize_one() {  # sanitize_one <tool> <binary> <log> <timeout> [Catch2 arguments...]
  local tool="$1" binary="$2" log="$3" limit="$4" start=$SECONDS rc
  shift 4
  # shellcheck disable=SC2034  # read by run_binary
  local -a run_wrapper=("$sanitizer" --tool "$tool" --print-limit 20)
  [ "${binary##*/}" = allocator_gpu_test ] && run_wrapper+=(--report-api-errors no)
  run_binary "$binary" "$log" "$limit" "$@"
  rc=$?
  echo "$rc $((SECONDS - start))" >"$log.rc"
}

# Reads one finished run: prints its line, counts it, appends its log to sanitizer.log.
sanitize_verdict() {  # sanitize_verdict <tool> <binary> <log> <what>
  local tool="$1" binary="$2" log="$3" what="$4" rc took errors
  read -r rc took <"$log.rc"
  errors="$(grep -oE '^========= (ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ error)' \
    "$log" | tail -n 1 | sed -E 's/.*[^0-9]([0-9]+) error$/\1/')"
  collect "$log" "$tool $binary$what (exit code $rc, $took s)" "$logs/sanitizer.log"
  if [ -n "$errors" ]; then
    if [ "$errors" -eq 0 ]; then
      printf '%-10s %-9s %s%s (%s s; the test exited %s)\n' CLEAN "$tool" "$binary" "$what" "$took" "$rc"
      sanitizer_clean=$((sanitizer_clean + 1))
    else
      printf '%-10s %-9s %s%s (errors: %s; %s s):\n' ERRORS "$tool" "$binary" "$what" "$errors" "$took"
      grep -E '^========= ' "$log" | head -n 12 | sed 's/^/    | /'
      sanitizer_errors=$((sanitizer_errors + 1))
    fi
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    errors="$(grep -cE '^========= (Invalid|Race|Program hit|Error|Uninitialized|Barrier|Malloc|Cuda API)' "$log")"
    printf '%-10s %-9s %s%s (stopped after %s s; errors reported by then: %s)\n' INCOMPLETE "$tool" "$binary" "$what" \
      "$took" "$errors"
    if [ "$errors" -gt 0 ]; then
      grep -E '^========= ' "$log" | head -n 12 | sed 's/^/    | /'
      sanitizer_errors=$((sanitizer_errors + 1))
    else
      sanitizer_incomplete=$((sanitizer_incomplete + 1))
    fi
  else
    printf '%-10s %-9s %s%s (no ERROR SUMMARY; exit code %s: %s)\n' UNCHECKED "$tool" "$binary" "$what" "$rc" \
      "$(grep -v '^\s*$' "$log" | tail -n 1 | cut -c1-160)"
    sanitizer_unchecked=$((sanitizer_unchecked + 1))
  fi
}

sanitize_phase() {  # sanitize_phase <work directory>
  local work="$1" jobs="${BRISK_SANITIZER_JOBS:-6}" timeout="${BRISK_SANITIZER_TIMEOUT:-30}"
  local binary name i limit
  local -a runs=() alone=()
  sanitizer="$(find_cuda_tool compute-sanitizer)"
  if [ -z "$gpu_name" ] || [ -z "$sanitizer" ]; then
    echo "sanitizer: skipped (${gpu_name:+compute-sanitizer not found on PATH or in /usr/local/cuda*/bin}${gpu_name:-no GPU here})"
    sanitizer_not_run=-1
    return 0
  fi
  : >"$logs/sanitizer.log"
  echo "sanitizer: $sanitizer ($("$sanitizer" --version 2>/dev/null | grep -oE 'Version [0-9.]+' | head -n 1))"
  # "tool|binary|Catch2 test spec": the racechecks first (fewer, and of our own kernels).
  while read -r binary; do
    selected "$binary" || continue
    name="${binary##*/}"
    case "$name" in
      reduce_gpu_test | softmax_gpu_test) runs+=("racecheck|$binary|") ;;
    esac
  done < <(grep '^bin/tests/cuda/' "$bundle/gpu_tests.txt")
  while read -r binary; do
    selected "$binary" || continue
    if [ "${binary##*/}" = allocator_gpu_test ]; then alone+=("memcheck|$binary|"); else runs+=("memcheck|$binary|"); fi
  done < <(grep '^bin/tests/cuda/' "$bundle/gpu_tests.txt")
  runs+=("${alone[@]}")
  echo "sanitizer: ${#runs[@]} runs, $jobs at a time (${#alone[@]} alone), timeout ${timeout}s each"

  local -a started=()
  local tool spec what
  for i in "${!runs[@]}"; do
    IFS='|' read -r tool binary spec <<<"${runs[$i]}"
    # The lone runs wait for every other to end.
    local limit_jobs=$jobs
    [ "$i" -ge $((${#runs[@]} - ${#alone[@]})) ] && limit_jobs=1
    while [ "$(jobs -rp | wc -l)" -ge "$limit_jobs" ]; do wait -n; done
    limit="$(time_left_for "$timeout")"
    what=""; [ -n "$spec" ] && what=" \"$spec\""
    if [ "$limit" -eq 0 ]; then
      printf '%-10s %-9s %s%s (the time budget ran out)\n' "NOT RUN" "$tool" "$binary" "$what"
      sanitizer_not_run=$((sanitizer_not_run + 1))
      continue
    fi
    if [ -n "$spec" ]; then
      sanitize_one "$tool" "$binary" "$work/$i.log" "$limit" "$spec" &
    else
      sanitize_one "$tool" "$binary" "$work/$i.log" "$limit" &
    fi
    started+=("$i")
  done
  wait
  for i in "${started[@]}"; do
    IFS='|' read -r tool binary spec <<<"${runs[$i]}"
    what=""; [ -n "$spec" ] && what=" \"$spec\""
    sanitize_verdict "$tool" "$binary" "$work/$i.log" "$what"
  done
}

# For the summary line.
sanitize_summary() {
  if [ "$sanitizer_not_run" -lt 0 ]; then echo "sanitizer skipped"; return; fi
  echo "sanitizer: ${sanitizer_clean} clean, ${sanitizer_errors} with errors, ${sanitizer_incomplete} incomplete," \
    "${sanitizer_unchecked} unchecked, ${sanitizer_not_run} not run"
}
