#!/usr/bin/env bash
# The GPU lease's helper scripts, on what they do without a GPU:
#   idx_subset.py     the first N items of an IDX file, header and bytes, and N past the end;
#   ncu_summary.py    kernels summed by name from ncu's CSV rows, units converted, among
#                     ncu's other output lines; no rows is an error;
#   run_train_bench.sh  each run's rows printed as measured, a failed run's rows FAILED with the
#                     others going on, exit status 1, and no run started past TIME_BUDGET;
#   sanitizer_pass.sh   a verdict from memcheck's ERROR SUMMARY or racecheck's RACECHECK SUMMARY
#                     (the first GPU lease counted racecheck's as no summary at all), a run
#                     stopped at its timeout, and one the tool could not check.
set -euo pipefail
here="$PWD"  # the runfiles tree of the workspace
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAILED: $*" >&2; exit 1; }
expect() {  # expect <file> <extended regex>
  grep -qE -- "$2" "$1" || { cat "$1" >&2; fail "$1 has no line matching: $2"; }
}

# ---- idx_subset.py: 5 images of 2x3 uint8 (values 0..29), keep 3, then ask for 9 ----
python3 - "$tmp/images.gz" <<'PY'
import gzip, struct, sys
with gzip.open(sys.argv[1], "wb") as f:
    f.write(b"\0\0\x08\x03" + struct.pack(">3I", 5, 2, 3) + bytes(range(30)))
PY
python3 tools/gpu/idx_subset.py "$tmp/images.gz" "$tmp/first3.gz" 3
python3 tools/gpu/idx_subset.py "$tmp/images.gz" "$tmp/all.gz" 9
python3 - "$tmp/first3.gz" "$tmp/all.gz" <<'PY'
import gzip, struct, sys
first3, whole = (gzip.open(p).read() for p in sys.argv[1:])
assert first3 == b"\0\0\x08\x03" + struct.pack(">3I", 3, 2, 3) + bytes(range(18)), first3
assert whole == b"\0\0\x08\x03" + struct.pack(">3I", 5, 2, 3) + bytes(range(30)), whole
PY
if python3 tools/gpu/idx_subset.py /dev/null "$tmp/x.gz" 3 2>/dev/null; then fail "idx_subset.py took /dev/null"; fi

# ---- ncu_summary.py: launches of 3.5 us (in ns), 2.5 us and 35 us ----
cat >"$tmp/ncu.csv" <<'CSV'
==PROF== Profiling "vectorized_kernel" - 0 (1/3): 0%....50%....100% - 1 pass
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","1","train_bench","h","void add_kernel<float>(int, float *)","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","3,500"
"1","1","train_bench","h","gemm_kernel","1","7","(128, 1, 1)","(1, 2, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","35000"
"2","1","train_bench","h","void add_kernel<float>(int, float *)","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","usecond","2.5"
CSV
python3 tools/gpu/ncu_summary.py "one step" "$tmp/ncu.csv" >"$tmp/summary.txt"
expect "$tmp/summary.txt" '^one step: 3 kernels, 41\.0 us of GPU time$'
expect "$tmp/summary.txt" '^ +1 +35\.0 +35\.00 +85\.4%  gemm_kernel$'
expect "$tmp/summary.txt" '^ +2 +6\.0 +3\.00 +14\.6%  add_kernel<float>$'
if python3 tools/gpu/ncu_summary.py "none" /dev/null >/dev/null; then fail "ncu_summary.py found rows in /dev/null"; fi

# ---- run_train_bench.sh with fake programs ----
# The fake train_bench prints 1000 + batch images/s after 0.2 s; the fake PyTorch twin prints
# 500 + batch, fails for airbench, and sleeps 30 s for resnet20 (a hang the TIME_BUDGET must cut
# short, after which resnet20's bf16 runs are not started).
mkdir -p "$tmp/bin"
cat >"$tmp/bin/train_bench" <<'SH'
#!/usr/bin/env bash
declare -A a; while [ $# -gt 1 ]; do a[$1]=$2; shift 2; done
sleep 0.2
echo "threads ${a[--threads]}"
s=""; [ "${a[--amp]}" = off ] || s="_${a[--amp]}"
for b in ${a[--batches]//,/ }; do echo "${a[--model]}_b${b}$s $((1000 + b)).0 $((900 + b)).0 $((1100 + b)).0"; done
SH
cat >"$tmp/bin/python" <<'SH'
#!/usr/bin/env bash
[ "$1" = - ] && exec python3 "$@"  # the table
shift
declare -A a; while [ $# -gt 1 ]; do a[$1]=$2; shift 2; done
[ "${a[--model]}" = airbench ] && { echo "RuntimeError: CUDA error: out of memory" >&2; exit 1; }
[ "${a[--model]}" = resnet20 ] && exec sleep 30
echo "threads ${a[--threads]}"
s=""; [ "${a[--amp]}" = off ] || s="_${a[--amp]}"
for b in ${a[--batches]//,/ }; do echo "${a[--model]}_b${b}$s $((500 + b)).0 $((400 + b)).0 $((600 + b)).0"; done
SH
chmod +x "$tmp/bin/train_bench" "$tmp/bin/python"
start=$SECONDS
set +e
MODELS="lenet airbench resnet20" THREADS=1 AMPS="off bf16" ROUNDS=3 TIME_BUDGET=8 RUN_TIMEOUT=20 DEVICE=cuda \
  BRISK_TRAIN_BENCH="$tmp/bin/train_bench" PYTHON="$tmp/bin/python" tools/bench/run_train_bench.sh >"$tmp/bench.txt" 2>&1
rc=$?
set -e
took=$((SECONDS - start))
cat "$tmp/bench.txt"
[ "$rc" -eq 1 ] || fail "run_train_bench.sh exited $rc with a failed run, not 1"
# 8 s of budget: the hanging run is stopped at the budget, and no second round starts.
[ "$took" -le 14 ] || fail "run_train_bench.sh took ${took} s with TIME_BUDGET=8"
expect "$tmp/bench.txt" '^round 1  brisk    1 threads  lenet_b64 +1064\.0 images/s \[964\.0-1164\.0\]  \(run: [0-9.]+ s\)$'
expect "$tmp/bench.txt" '^round 1  pytorch  1 threads  airbench_b128 +FAILED \(exit code 1: RuntimeError: CUDA error: out of memory\)$'
expect "$tmp/bench.txt" '^round 1  brisk    1 threads  airbench_b128 +1128\.0 images/s'
expect "$tmp/bench.txt" '^round 1  pytorch  1 threads  resnet20_b64 +FAILED \(stopped after [0-9]+ s\)$'
expect "$tmp/bench.txt" '^rounds: 1 of 3 run; another'
expect "$tmp/bench.txt" '^Training step, cuda, images/s: median of 1 rounds'
expect "$tmp/bench.txt" '^ +1 lenet_b256 +1256\.0 \[1256\.0-1256\.0\] +756\.0 \[756\.0-756\.0\] +1\.66$'
expect "$tmp/bench.txt" '^ +1 airbench_b64 +1064\.0 \[1064\.0-1064\.0\] +FAILED +-$'
expect "$tmp/bench.txt" '^round 1  brisk    1 threads  resnet20_b64_bf16 +not run: the time budget ran out$'
expect "$tmp/bench.txt" '^ +1 resnet20_b128 +1128\.0 \[1128\.0-1128\.0\] +FAILED +-$'
expect "$tmp/bench.txt" '^ +1 resnet20_b128_bf16 +not run +not run +-$'
expect "$tmp/bench.txt" '^train bench: [0-9.]+ s, 1 rounds, 3 failed runs, 2 not run$'
cd "$here"

# ---- sanitizer_pass.sh's verdicts, on compute-sanitizer's summaries as the H200 printed them ----
verdict() {  # verdict <tool> <exit code> <last log line>: prints the verdict's line
  printf '========= COMPUTE-SANITIZER\nAll tests passed\n%s\n' "$3" >"$tmp/run.log"
  echo "$2 3" >"$tmp/run.log.rc"
  (
    set +e  # as in run_bundle.sh, which sources it
    collect() { :; }
    logs="$tmp"
    # shellcheck source=/dev/null
    source tools/gpu/sanitizer_pass.sh
    sanitize_verdict "$1" bin/tests/cuda/x_gpu_test "$tmp/run.log"
    echo "counts: $sanitizer_clean clean, $sanitizer_errors errors, $sanitizer_incomplete incomplete, $sanitizer_unchecked unchecked"
  )
}
verdict memcheck 0 "========= ERROR SUMMARY: 0 errors" >"$tmp/v.txt"
expect "$tmp/v.txt" '^CLEAN +memcheck +bin/tests/cuda/x_gpu_test'
expect "$tmp/v.txt" '^counts: 1 clean, 0 errors'
verdict memcheck 0 "========= ERROR SUMMARY: 4 errors" >"$tmp/v.txt"
expect "$tmp/v.txt" '^ERRORS +memcheck +bin/tests/cuda/x_gpu_test \(errors: 4;'
verdict racecheck 0 "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" >"$tmp/v.txt"
expect "$tmp/v.txt" '^CLEAN +racecheck'
verdict racecheck 0 "========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warnings)" >"$tmp/v.txt"
expect "$tmp/v.txt" '^ERRORS +racecheck .*\(errors: 2;'
verdict racecheck 124 "All tests passed" >"$tmp/v.txt"
expect "$tmp/v.txt" '^INCOMPLETE racecheck .*errors reported by then: 0'
verdict memcheck 1 "========= Error: Device not supported" >"$tmp/v.txt"
expect "$tmp/v.txt" '^counts: 0 clean, 0 errors, 0 incomplete, 1 unchecked'
echo "PASSED"
