# shellcheck shell=bash disable=SC2154  # variables of run_bundle.sh, which sources this
# The `sanitize` phase of tools/gpu/run_bundle.sh (sourced by it; uses its run_timed,
# budget_for, find_cuda_tool, selected and bundle): compute-sanitizer's memcheck over every
# gpu-tagged test of tests/cuda/, and racecheck over the tests of the kernels that use shared
# memory (cuda/reduce.cu, cuda/softmax.cu: the only ones that declare __shared__, the only
# memory racecheck looks at). docs/gpu.md gives the jobs, timeouts and verdicts.
#
# allocator_gpu_test runs alone, last: it compares the device's free memory before and after,
# which other processes would disturb. Its memcheck does not report CUDA API errors: one of its
# cases exhausts the device on purpose, and every cudaMalloc that then fails would count as an
# error. Verdicts come from the sanitizer's summary, not the test's exit code (call 1 of the
# lease judges the tests); a run without a summary that did not time out means the tool could
# not check this machine (it refuses some virtualized GPUs: "Device not supported").

sanitizer_clean=0; sanitizer_errors=0; sanitizer_incomplete=0; sanitizer_unchecked=0; sanitizer_not_run=0

# One sanitizer run, as run_timed writes it.
sanitize_one() {  # sanitize_one <tool> <binary> <log> <timeout>
  # shellcheck disable=SC2034  # read by run_binary
  local -a run_wrapper=("$sanitizer" --tool "$1" --print-limit 20)
  [ "${2##*/}" = allocator_gpu_test ] && run_wrapper+=(--report-api-errors no)
  run_timed "$2" "$3" "$4"
}

show_reports() { grep -E '^========= ' "$1" | head -n 12 | sed 's/^/    | /'; }  # show_reports <log>

# Reads one finished run: prints its line, counts it, appends its log to sanitizer.log.
# memcheck ends with "ERROR SUMMARY: N errors", racecheck with "RACECHECK SUMMARY: N hazards
# displayed (E errors, W warnings)".
sanitize_verdict() {  # sanitize_verdict <tool> <binary> <log>
  local tool="$1" binary="$2" log="$3" rc took errors
  read -r rc took <"$log.rc"
  errors="$(grep -oE '^========= (ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ error)' \
    "$log" | tail -n 1 | sed -E 's/.*[^0-9]([0-9]+) error$/\1/')"
  collect "$log" "$tool $binary (exit code $rc, $took s)" "$logs/sanitizer.log"
  if [ "$errors" = 0 ]; then
    printf '%-10s %-9s %s (%s s; the test exited %s)\n' CLEAN "$tool" "$binary" "$took" "$rc"
    sanitizer_clean=$((sanitizer_clean + 1))
  elif [ -n "$errors" ]; then
    printf '%-10s %-9s %s (errors: %s; %s s):\n' ERRORS "$tool" "$binary" "$errors" "$took"
    show_reports "$log"
    sanitizer_errors=$((sanitizer_errors + 1))
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    errors="$(grep -cE '^========= (Invalid|Race|Program hit|Error|Uninitialized|Barrier|Malloc|Cuda API)' "$log")"
    printf '%-10s %-9s %s (stopped after %s s; errors reported by then: %s)\n' INCOMPLETE "$tool" "$binary" "$took" "$errors"
    if [ "$errors" -gt 0 ]; then
      show_reports "$log"
      sanitizer_errors=$((sanitizer_errors + 1))
    else
      sanitizer_incomplete=$((sanitizer_incomplete + 1))
    fi
  else
    printf '%-10s %-9s %s (no ERROR SUMMARY; exit code %s: %s)\n' UNCHECKED "$tool" "$binary" "$rc" \
      "$(grep -v '^\s*$' "$log" | tail -n 1 | cut -c1-160)"
    sanitizer_unchecked=$((sanitizer_unchecked + 1))
  fi
}

sanitize_phase() {  # sanitize_phase <work directory>
  local work="$1" jobs="${BRISK_SANITIZER_JOBS:-6}" timeout="${BRISK_SANITIZER_TIMEOUT:-30}"
  local binary tool i
  local -a cuda_tests runs=() alone=() started=()
  find_cuda_tool sanitizer compute-sanitizer " or in /usr/local/cuda*/bin" || { sanitizer_not_run=-1; return 0; }
  sanitizer="$tool"
  : >"$logs/sanitizer.log"
  echo "sanitizer: $sanitizer ($("$sanitizer" --version 2>/dev/null | grep -oE 'Version [0-9.]+' | head -n 1))"
  mapfile -t cuda_tests < <(grep '^bin/tests/cuda/' "$bundle/gpu_tests.txt")
  # "tool binary": the racechecks first (fewer, and of our own kernels), allocator_gpu_test last.
  for binary in "${cuda_tests[@]}"; do
    case "${binary##*/}" in reduce_gpu_test | softmax_gpu_test) selected "$binary" && runs+=("racecheck $binary") ;; esac
  done
  for binary in "${cuda_tests[@]}"; do
    selected "$binary" || continue
    if [ "${binary##*/}" = allocator_gpu_test ]; then alone+=("memcheck $binary"); else runs+=("memcheck $binary"); fi
  done
  runs+=("${alone[@]}")
  echo "sanitizer: ${#runs[@]} runs, $jobs at a time (${#alone[@]} alone), timeout ${timeout}s each"

  for i in "${!runs[@]}"; do
    read -r tool binary <<<"${runs[$i]}"
    # A lone run waits for every other to end.
    [ "$i" -ge $((${#runs[@]} - ${#alone[@]})) ] && jobs=1
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    if ! budget_for "$timeout" "$(printf '   %-9s %s' "$tool" "$binary")"; then
      sanitizer_not_run=$((sanitizer_not_run + 1))
      continue
    fi
    sanitize_one "$tool" "$binary" "$work/$i.log" "$limit" &
    started+=("$i")
  done
  wait
  for i in "${started[@]}"; do
    read -r tool binary <<<"${runs[$i]}"
    sanitize_verdict "$tool" "$binary" "$work/$i.log"
  done
}

# For the summary line.
sanitize_summary() {
  if [ "$sanitizer_not_run" -lt 0 ]; then echo "sanitizer skipped"; return; fi
  echo "sanitizer: ${sanitizer_clean} clean, ${sanitizer_errors} with errors, ${sanitizer_incomplete} incomplete," \
    "${sanitizer_unchecked} unchecked, ${sanitizer_not_run} not run"
}
