#!/usr/bin/env bash
# Runs the GPU bundle (.bundle/brisk-bundle.tar.xz, made by tools/gpu/build_bundle.sh) on a
# machine with a GPU, CUDA 13, cuDNN and NCCL, and no Bazel or network: unpacks it, checks that
# every binary finds its shared libraries, runs the test binaries, the GPU benchmarks next to
# their PyTorch twins, compute-sanitizer over the CUDA tests and ncu over one training step per
# model, and prints as its last line
#
#   GPU bundle: N passed, M failed, S skipped (Catch2 test cases ...); benchmarks: K ran, F failed, X skipped; ...
#
# Exits non-zero iff something failed or was left unrun. Starts nothing past its time budget.
# docs/gpu.md describes the phases, budgets, timeouts and logs; tools/gpu/lease.sh runs the
# phases of a 15-minute lease in two calls.
#
#   tools/gpu/run_bundle.sh                 # tests and benchmarks
#   tools/gpu/run_bundle.sh check           # only unpack and check the libraries (seconds)
#   tools/gpu/run_bundle.sh gpu-tests       # phases: cpu-tests, gpu-tests, tests (both), bench,
#                                           # sanitize (compute-sanitizer), profile (ncu)
#   tools/gpu/run_bundle.sh tests cuda/     # only test binaries whose path contains cuda/
#   BRISK_TEST_TIMEOUT=120 BRISK_JOBS=4 tools/gpu/run_bundle.sh
#   BRISK_PYTHON=/opt/conda/bin/python tools/gpu/run_bundle.sh bench   # the python with PyTorch
#   BRISK_BUNDLE_DIR=/tmp/b tools/gpu/run_bundle.sh   # unpack there and keep it; a later run
#                                           # with the same archive reuses it
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
archive="$root/.bundle/brisk-bundle.tar.xz"
# 90 s: the slowest gpu test binary of the first GPU run passed well inside 60 s; only a hang
# (stream_event_gpu_test's deadlock) took longer.
test_timeout="${BRISK_TEST_TIMEOUT:-90}"
# Each benchmark run (a gpu_bench or gpu_bench_torch.py run, one train_bench model and
# precision): on the H200 none took more than seconds.
bench_timeout="${BRISK_BENCH_TIMEOUT:-120}"
# 570 s by default, so that a run fits one 600-second device call.
deadline=$((SECONDS + ${BRISK_TIME_BUDGET:-570}))
phase_deadline=$deadline
# $OUT: the device tool brings it back.
logs="${OUT:-${BRISK_LOG_DIR:-$(mktemp -d /tmp/brisk-gpu-logs.XXXXXX)}}"
mkdir -p "$logs"

# The phases given run; none given: the tests and benchmarks. Other arguments are filters.
declare -A phase=()
filters=()
for arg in "$@"; do
  case "$arg" in
    tests) phase[cpu-tests]=1; phase[gpu-tests]=1 ;;
    cpu-tests | gpu-tests | bench | sanitize | profile | check) phase[$arg]=1 ;;
    *) filters+=("$arg") ;;
  esac
done
[ ${#phase[@]} -eq 0 ] && phase=([cpu-tests]=1 [gpu-tests]=1 [bench]=1)
wants() { [ -n "${phase[$1]:-}" ]; }

selected() {  # selected <binary or name>: true when no filter was given or one is part of it
  [ ${#filters[@]} -eq 0 ] && return 0
  local want
  for want in "${filters[@]}"; do [[ $1 == *"$want"* ]] && return 0; done
  return 1
}

# Starts a phase, under its header: its deadline is its own budget (seconds; none: the rest of
# the run's) from now, and never past the run's.
begin_phase() {  # begin_phase <title> <budget or empty>
  printf '\n==================== %s ====================\n' "$1"
  phase_deadline=$deadline
  if [ -n "$2" ] && [ $((SECONDS + $2)) -lt "$deadline" ]; then phase_deadline=$((SECONDS + $2)); fi
}

# Sets limit to the seconds a run started now may take: <timeout>, cut to what is left of the
# phase's budget. Fails when too little is left to start anything, printing "NOT RUN <what>"
# if given.
budget_for() {  # budget_for <timeout> [what]
  limit=$((phase_deadline - SECONDS))
  if [ "$limit" -lt 15 ]; then
    [ -n "${2:-}" ] && printf 'NOT RUN %s (the time budget ran out)\n' "$2"
    return 1
  fi
  [ "$limit" -gt "$1" ] && limit=$1
  return 0
}

timed_out() { [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; }  # timed_out <exit code of timeout(1)>

source "$root/tools/catch2_counts.sh"

# Appends a log to one of the collected logs, under a header, at most its last 3000 lines.
collect() {  # collect <log> <title> <collected log>
  { echo "==================== $2"; tail -n 3000 "$1"; echo; } >>"$3"
}

# One line, also in summary.txt.
finish() { echo "$1" | tee "$logs/summary.txt"; }

# Unpacks the archive into $BRISK_BUNDLE_DIR, or a fresh directory. A directory that already
# holds this archive's contents (its checksum in .archive-sha256, written once unpacking is
# complete) is used as it is: the second call of a lease on the same machine skips the unpacking.
unpack() {
  local sum
  if [ ! -f "$archive" ]; then
    echo "run_bundle: no bundle at $archive: run tools/gpu/build_bundle.sh first, and carry .bundle"
    return 1
  fi
  bundle="${BRISK_BUNDLE_DIR:-$(mktemp -d /tmp/brisk-bundle.XXXXXX)}"
  sum="$(sha256sum "$archive" | cut -d' ' -f1)"
  if [ "$(cat "$bundle/.archive-sha256" 2>/dev/null)" = "$sum" ]; then
    echo "run_bundle: reusing $bundle, unpacked from this same archive by an earlier run"
    sed 's/^/  /' "$bundle/info.txt"
    return 0
  fi
  # Only a directory of ours (an earlier bundle, marked by its checksum file) is emptied.
  if [ -f "$bundle/.archive-sha256" ]; then
    rm -rf "${bundle:?}"/* "$bundle/.archive-sha256"
  elif [ -n "$(ls -A "$bundle" 2>/dev/null)" ]; then
    echo "run_bundle: $bundle is not empty and holds no unpacked bundle: set BRISK_BUNDLE_DIR to an empty or new directory"
    return 1
  fi
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
  echo "$sum" >"$bundle/.archive-sha256"
  echo "run_bundle: unpacked $archive ($(du -m "$archive" | cut -f1) MiB) into $bundle"
  sed 's/^/  /' "$bundle/info.txt"
}

# The python that has PyTorch (for the nvidia-* wheels' libraries and the PyTorch twins of the
# benchmarks): $BRISK_PYTHON, else the first of python3, python, python3.N and the usual
# install places that imports torch. Sets torch_python (empty when there is none).
find_torch_python() {
  torch_python=""
  if [ -n "${BRISK_PYTHON:-}" ]; then
    if timeout 120 "$BRISK_PYTHON" -c 'import torch' >/dev/null 2>&1; then
      torch_python="$BRISK_PYTHON"
    else
      echo "run_bundle: BRISK_PYTHON=$BRISK_PYTHON cannot import torch: no PyTorch wheels or PyTorch benchmarks"
    fi
    return 0
  fi
  local candidate path
  local -a candidates
  mapfile -t candidates < <(compgen -c python3. | grep -E '^python3\.[0-9]+$' | sort -rVu)
  candidates=(python3 python "${candidates[@]}" /opt/conda/bin/python /usr/local/bin/python3 /usr/bin/python3)
  for candidate in "${candidates[@]}"; do
    path="$(command -v "$candidate" 2>/dev/null)" || continue
    if timeout 120 "$path" -c 'import torch' >/dev/null 2>&1; then
      torch_python="$path"
      return 0
    fi
  done
  echo "run_bundle: no python here imports torch (set BRISK_PYTHON): no PyTorch wheels or PyTorch benchmarks"
}

# Directories holding CUDA's, cuDNN's or NCCL's libraries, in the order the loader must try
# them, so an older copy never shadows the one the binaries were built for: the nvidia-*
# wheels of $torch_python first (PyTorch cu130 carries CUDA 13's), then the toolkits, newest
# CUDA first, then the rest (the driver's libcuda, a system cuDNN). Never a toolkit's stubs/
# or compat/ (the compat libcuda would shadow the driver's).
cuda_library_dirs() {
  if [ -n "$torch_python" ]; then
    "$torch_python" - <<'EOF' 2>/dev/null | sort -u | sort -rV
import glob, os
try:
    import nvidia
except ImportError:
    raise SystemExit
for base in nvidia.__path__:
    for lib in glob.glob(os.path.join(base, "**", "lib*.so*"), recursive=True):
        print(os.path.dirname(lib))
EOF
  fi
  local dir newest
  find /usr/local /usr/lib /usr/lib64 /opt -xdev \
    \( -name 'libcudart.so.*' -o -name 'libcublas.so.*' -o -name 'libcublasLt.so.*' -o -name 'libcudnn.so.*' \
    -o -name 'libnccl.so.*' -o -name 'libcurand.so.*' -o -name 'libcuda.so.1' \) -printf '%h\n' 2>/dev/null |
    grep -vE '/(stubs|compat)$' | grep -v '/site-packages/nvidia/' | sort -u |
    while read -r dir; do
      # The newest CUDA major version the directory has a runtime or cuBLAS of (0: none).
      newest="$(find "$dir" -maxdepth 1 \( -name 'libcudart.so.[0-9]*' -o -name 'libcublas.so.[0-9]*' \) -printf '%f\n' |
        sed -E 's/^lib[a-z]+\.so\.([0-9]+).*/\1/' | sort -n | tail -n 1)"
      printf '%s\t%s\n' "${newest:-0}" "$dir"
    done | sort -t $'\t' -k1,1nr -k2,2 | cut -f2
}

library_path() {
  local dirs
  dirs="$(cuda_library_dirs | awk 'NF && !seen[$0]++' | paste -sd: -)"
  export LD_LIBRARY_PATH="$bundle/lib${dirs:+:$dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# The bundle was built with a newer GCC than the target may have: info.txt says which
# GLIBCXX/CXXABI versions its binaries need. If the libstdc++ the binaries would load here is
# older, the bundle's own copy (lib/libstdcxx/) goes first on the path; without one, fail.
check_libstdcxx() {  # check_libstdcxx <probe binary>
  local system prefix need have
  system="$(ldd "$1" 2>/dev/null | awk '$1 ~ /^libstdc\+\+\.so/ { print $3 }')"
  if [ ! -f "$system" ]; then
    echo "run_bundle: libstdc++ not found for $1"
    return 1
  fi
  for prefix in GLIBCXX_ CXXABI_; do
    need="$(sed -n "s/^needs ${prefix%_}: //p" "$bundle/info.txt")"
    [ -n "$need" ] || continue
    # The newest such version the library defines, without the prefix (3.4.32).
    have="$(grep -aoE "${prefix}[0-9]+(\.[0-9]+)+" "$system" | sed "s/^$prefix//" | sort -uV | tail -n 1)"
    [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | tail -n 1)" = "$have" ] && continue
    if [ -f "$bundle/lib/libstdcxx/libstdc++.so.6" ]; then
      echo "run_bundle: $system provides up to $have, the bundle needs $need: using the bundle's libstdc++"
      export LD_LIBRARY_PATH="$bundle/lib/libstdcxx:$LD_LIBRARY_PATH"
      return 0
    fi
    echo "run_bundle: $system provides up to $have, but the bundle's binaries need $need, and the bundle" \
      "carries no libstdc++ of its own: rebuild it with tools/gpu/build_bundle.sh, or install a newer libstdc++"
    missing_libraries="libstdc++ with ${prefix}${need}"
    return 1
  done
  echo "libstdc++: $system, new enough for the bundle"
}

# Checks with `ldd` every binary (tests, benchmarks, and the programs tests start: train,
# launch, workers, from programs.txt) and every bundled library, and fails, listing them, if
# any library cannot be found or loaded. Prints `ldd` of the binary that links the most of
# CUDA's runtime, cuBLAS, cuDNN and NCCL, so the log shows where each was found.
check_libraries() {
  local file out count best=-1 n=0 probe="" probe_ldd="" missing=""
  while read -r file; do
    [ -n "$file" ] || continue
    n=$((n + 1))
    out="$(ldd "$bundle/$file" 2>&1)"
    missing+="$(awk -v f="$file" '
      /not found/ { print "  " $1 " (needed by " f ")" }
      /error while loading shared libraries/ { sub(/.*libraries: /, ""); print "  " $0 " (loading " f ")" }' <<<"$out")"$'\n'
    [[ $file == lib/* ]] && continue
    count="$(grep -cE '^\s*lib(cudart|cublas|cudnn|nccl)\.so' <<<"$out")"
    if [ "$count" -gt "$best" ]; then best=$count; probe="$file"; probe_ldd="$out"; fi
  done < <(cat "$bundle/tests.txt" "$bundle/benchmarks.txt" "$bundle/programs.txt" 2>/dev/null
           (cd "$bundle" && find lib -maxdepth 1 -name '*.so*'))
  echo "ldd $probe (links $best of libcudart, libcublas, libcudnn, libnccl):"
  sed 's/^/  /' <<<"$probe_ldd"
  missing="$(sort -u <<<"$missing" | grep .)"
  if [ -n "$missing" ]; then
    echo "run_bundle: shared libraries not found, so binaries would not even start:"
    echo "$missing" | head -n 30
    echo "run_bundle: searched LD_LIBRARY_PATH=$LD_LIBRARY_PATH and the system's directories. CUDA 13's" \
      "libraries come with the toolkit or PyTorch cu130's nvidia-* wheels (BRISK_PYTHON names the python that has them)."
    missing_libraries="$(echo "$missing" | awk '{ print $1 }' | sort -u | paste -sd, -)"
    return 1
  fi
  check_libstdcxx "$bundle/$probe" || return 1
  echo "run_bundle: all $n binaries and libraries find their shared libraries"
}

# Runs a binary the way `bazel test` does: from its workspace's runfiles directory (where
# relative fixture paths such as tests/fixtures/ops.json resolve), with the test variables and
# the target's own environment set; killed after $3 seconds (and 10 more if it ignores SIGTERM),
# with every process it started. A caller's local array run_wrapper (a tool and its options,
# such as compute-sanitizer's or ncu's) goes in front of the binary.
run_binary() {  # run_binary <binary relative to the bundle> <log> <timeout> [arguments...]
  local binary="$1" log="$2" limit="$3" tmp rc
  local -a test_env=()
  shift 3
  tmp="$(mktemp -d)"
  # The target's `env` attribute, as bazel test sets it (test_env.txt, from build_bundle.sh).
  if [ -f "$bundle/test_env.txt" ]; then
    read -r -a test_env < <(awk -v b="$binary" '$1 == b { $1 = ""; print }' "$bundle/test_env.txt")
  fi
  (cd "$bundle/runfiles/brisk" &&
   env "${test_env[@]}" TEST_SRCDIR="$bundle/runfiles" TEST_WORKSPACE=brisk TEST_TMPDIR="$tmp" \
     timeout -k 10 "$limit" ${run_wrapper[@]+"${run_wrapper[@]}"} "$bundle/$binary" "$@" </dev/null) >"$log" 2>&1
  rc=$?
  rm -rf "$tmp"
  return $rc
}

# run_binary, then "<exit code> <seconds>" to <log>.rc, which the run's report reads.
run_timed() {  # run_timed <binary> <log> <timeout> [arguments...]
  local start=$SECONDS
  run_binary "$@"
  echo "$? $((SECONDS - start))" >"$2.rc"
}

# CUDA's tool a phase runs: on PATH, else the newest in the usual install places. Sets tool;
# with none, or no GPU, prints why <phase> skips and fails.
find_cuda_tool() {  # find_cuda_tool <phase> <tool> <where it was looked for>
  tool="$(command -v "$2" 2>/dev/null ||
    ls -d /usr/local/cuda*/bin/"$2" /opt/nvidia/nsight-compute/*/"$2" 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$gpu_name" ]; then echo "$1: skipped (no GPU here)"; return 1; fi
  if [ -z "$tool" ]; then echo "$1: skipped ($2 not found on PATH$3)"; return 1; fi
}

# ---- tests ----
passed=0; failed=0; skipped=0; binaries=0; skipped_binaries=0
not_run=0  # test binaries left out for want of time

# The test binaries in the order they run: by directory, the most basic and cheapest first, so
# that a run cut short by its budget has checked the foundations (the CUDA runtime and kernels,
# then autograd, nn, models, optimizers, the PyTorch reference replay, data, the examples), then
# anything else, then the multi-process suites (distributed/) and the training program
# (tools/train/), which start several processes each; by name within a directory.
ordered_tests() {  # ordered_tests < list
  awk '{
    n = split("cuda autograd nn models optim reference data examples * distributed tools/train", order, " ")
    rank = 8  # "*": any other directory
    for (i = 1; i <= n; ++i) if (index($0, "bin/tests/" order[i] "/") == 1) rank = i - 1
    print rank "\t" $0
  }' | sort -t $'\t' -k1,1n -k2,2 | cut -f2
}

# Prints one finished binary's result line (and the end of its log if it failed) and counts it.
report_test() {  # report_test <kind> <binary> <log>
  local kind="$1" binary="$2" log="$3" rc took why
  read -r rc took <"$log.rc"
  binaries=$((binaries + 1))
  collect "$log" "$binary (exit code $rc, $took s)" "$logs/tests.log"
  parse_catch2 "$log" || { cases_passed=0; cases_failed=1; }
  if [ "$rc" -ne 0 ] && [ "$cases_failed" -eq 0 ]; then cases_failed=1; fi
  why="exit code $rc"
  timed_out "$rc" && why="timed out"
  if [ "$rc" -eq 0 ]; then
    printf '%-7s %s (%d test cases, %s s)\n' PASSED "$binary" "$cases_passed" "$took"
    passed=$((passed + cases_passed))
  elif [ "$kind" = gpu ] && [ -z "$gpu_name" ] && ! timed_out "$rc" && grep -qE '^(All tests passed|test cases:)' "$log"; then
    # It loaded and ran, and failed for want of a GPU.
    printf '%-7s %s (tagged gpu; no GPU here: %d of its test cases failed; %s s)\n' SKIPPED "$binary" "$cases_failed" \
      "$took"
    skipped=$((skipped + cases_passed + cases_failed)); skipped_binaries=$((skipped_binaries + 1))
  else
    printf '%-7s %s (%d passed, %d failed; %s, %s s)\n' FAILED "$binary" "$cases_passed" "$cases_failed" "$why" "$took"
    tail -n 40 "$log" | sed 's/^/    | /'
    passed=$((passed + cases_passed)); failed=$((failed + cases_failed))
  fi
}

# Runs the selected test binaries of one kind: "cpu" in parallel, then reported; "gpu" (the
# gpu-tagged ones, which share the one GPU and some of which measure its free memory) one at a
# time, each reported as it ends. Binaries that cannot start before the deadline are counted in
# not_run.
run_tests() {  # run_tests <cpu|gpu> <work directory>
  local kind="$1" work="$2" binary is i jobs=1
  local -a list=()
  while read -r binary; do
    if grep -qxF "$binary" "$bundle/gpu_tests.txt"; then is=gpu; else is=cpu; fi
    [ "$is" = "$kind" ] && selected "$binary" && list+=("$binary")
  done < <(ordered_tests <"$bundle/tests.txt")
  [ "$kind" = cpu ] && jobs="${BRISK_JOBS:-$(( $(nproc) / 2 > 8 ? 8 : ($(nproc) / 2 > 0 ? $(nproc) / 2 : 1) ))}"
  echo "run_bundle: ${#list[@]} $kind test binaries, $jobs at a time, timeout ${test_timeout}s each"
  for i in "${!list[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    budget_for "$test_timeout" "${list[$i]}" || { not_run=$((not_run + 1)); continue; }
    if [ "$kind" = gpu ]; then
      run_timed "${list[$i]}" "$work/$i.log" "$limit"
      report_test gpu "${list[$i]}" "$work/$i.log"
    else
      run_timed "${list[$i]}" "$work/$i.log" "$limit" &
    fi
  done
  wait
  [ "$kind" = gpu ] && return 0
  for i in "${!list[@]}"; do
    if [ -f "$work/$i.log.rc" ]; then report_test cpu "${list[$i]}" "$work/$i.log"; fi
  done
}

# ---- compute-sanitizer and ncu ----
# shellcheck source=tools/gpu/sanitizer_pass.sh
source "$root/tools/gpu/sanitizer_pass.sh"
# shellcheck source=tools/gpu/kernel_profile.sh
source "$root/tools/gpu/kernel_profile.sh"

# ---- benchmarks ----
bench_ran=0; bench_failed=0; bench_skipped=0
# A log already printed in full (train_bench's) is not repeated: give "shown".
bench_result() {  # bench_result <name> <exit code> <log> [shown]
  if [ "$2" -eq 0 ]; then
    bench_ran=$((bench_ran + 1))
  elif [ -z "$gpu_name" ]; then
    echo "SKIPPED $1: no GPU here (exit code $2; $(grep -v '^\s*$' "$3" | tail -n 1 | cut -c1-160))"
    bench_skipped=$((bench_skipped + 1))
  elif [ "${4:-}" = shown ]; then
    echo "FAILED  $1 (exit code $2; its lines above say which runs)"
    bench_failed=$((bench_failed + 1))
  else
    echo "FAILED  $1 (exit code $2; full output in bench.log):"
    tail -n 20 "$3" | sed 's/^/    | /'
    bench_failed=$((bench_failed + 1))
  fi
}

# Runs `$@` with $torch_python as the `python3` on PATH (the benchmark scripts call python3),
# cut to the time budget; 124 when the budget ran out.
with_torch_python() {  # with_torch_python <timeout> <command...>
  budget_for "$1" || return 124
  shift
  (cd "$root" && PATH="$python_shim:$PATH" timeout -k 10 "$limit" "$@")
}

# gpu_bench and gpu_bench_torch.py, each twice in the order ours, PyTorch, PyTorch, ours, so
# that drift hits both alike; one table of the means, with each one's run-to-run spread.
gpu_bench() {
  local work="$1" run rc=0 r
  for run in brisk1 torch1 torch2 brisk2; do
    if [[ $run == torch* ]]; then
      with_torch_python "$bench_timeout" python3 tools/bench/gpu_bench_torch.py >"$work/$run.tsv" 2>&1; r=$?
    elif budget_for "$bench_timeout"; then
      run_binary bin/tools/bench/gpu_bench "$work/$run.tsv" "$limit"; r=$?
    else
      echo "time budget ran out" >"$work/$run.tsv"; r=124
    fi
    collect "$work/$run.tsv" "gpu_bench run $run (exit code $r)" "$logs/bench.log"
    [ $r -ne 0 ] && { rc=$r; echo "gpu_bench: run $run failed (exit code $r)" >>"$work/failures"; cp "$work/$run.tsv" "$work/last_failure"; }
  done
  [ -f "$work/failures" ] && cat "$work/failures"
  "${torch_python:-python3}" "$root/tools/gpu/gpu_bench_table.py" "$work"
  bench_result "gpu_bench (ours and PyTorch's)" "$rc" "${work}/last_failure"
}

# Training steps of the reference models (LeNet-5, ResNet-20, the airbench-style net) on the
# GPU, ours next to PyTorch's, at each model's batch sizes, in float32 and bf16 (interleaved
# rounds; tools/bench/run_train_bench.sh does the comparing and prints each run as it ends).
# Its rounds get what is left of the phase's budget, less 10 s for the table; each run
# BRISK_BENCH_TIMEOUT.
train_bench() {
  local work="$1" rc
  if ! budget_for $((phase_deadline - SECONDS)); then
    echo "train_bench: the time budget ran out before it started" | tee "$work/train_bench.log"
    bench_result "train_bench --device cuda (ours and PyTorch's)" 124 "$work/train_bench.log"
    return
  fi
  DEVICE=cuda THREADS="${BRISK_TRAIN_BENCH_THREADS:-1}" ROUNDS="${BRISK_TRAIN_BENCH_ROUNDS:-3}" \
    TIME_BUDGET="$((limit - 10))" RUN_TIMEOUT="$bench_timeout" PYTHON="$python_shim/python3" \
    BRISK_TRAIN_BENCH="$bundle/bin/tools/bench/train_bench" \
    with_torch_python "$limit" tools/bench/run_train_bench.sh 2>&1 | tee "$work/train_bench.log"
  rc=${PIPESTATUS[0]}
  collect "$work/train_bench.log" "train_bench (run_train_bench.sh, DEVICE=cuda; exit code $rc)" "$logs/bench.log"
  bench_result "train_bench --device cuda (ours and PyTorch's)" "$rc" "$work/train_bench.log" shown
}

bench_phase() {  # bench_phase <work directory>
  if [ -z "$torch_python" ] || [ ! -s "$bundle/benchmarks.txt" ]; then
    echo "run_bundle: $([ -n "$torch_python" ] && echo "no benchmarks in this bundle" || echo "no python with PyTorch here"): benchmarks skipped"
    bench_skipped=$((bench_skipped + 2))
  else
    gpu_bench "$1"
    echo
    train_bench "$1"
  fi
  echo
  echo "Not run here (each a skip):"
  echo "  cpu_ops_bench, conv_bench: CPU kernels; tools/bench/run_cpu_bench.sh runs them where Bazel is"
  echo "  data_loader_bench: CPU data loading from Fashion-MNIST; no GPU in it"
  echo "  allreduce_bench, ddp_bench: Gloo over CPU between ranks started by tools/launch; nothing for one GPU to measure"
  bench_skipped=$((bench_skipped + 5))
}

# The unpacked bundle goes, unless BRISK_BUNDLE_DIR asked to keep it there.
remove_bundle() {
  [ -z "${BRISK_BUNDLE_DIR:-}" ] && rm -rf "$bundle"
  return 0
}

# The summary line; the exit status says whether everything asked for passed.
summarize() {
  local summary="GPU bundle: tests not run"
  if wants cpu-tests || wants gpu-tests; then
    summary="GPU bundle: ${passed} passed, ${failed} failed, ${skipped} skipped (Catch2 test cases in ${binaries} test binaries"
    [ "$skipped_binaries" -gt 0 ] && summary+="; ${skipped_binaries} gpu-tagged binaries skipped: no GPU"
    summary+=")"
  fi
  if wants bench; then
    summary+="; benchmarks: ${bench_ran} ran, ${bench_failed} failed, ${bench_skipped} skipped"
  else
    summary+="; benchmarks not run"
  fi
  wants sanitize && summary+="; $(sanitize_summary)"
  wants profile && summary+="; $(profile_summary)"
  [ "$not_run" -gt 0 ] &&
    summary+="; ${not_run} not run: the ${BRISK_TIME_BUDGET:-570} s time budget ran out (NOT RUN above; run them in another call)"
  finish "$summary"
  [ "$failed" -eq 0 ] && [ "$bench_failed" -eq 0 ] && [ "$not_run" -eq 0 ] && [ "$sanitizer_errors" -eq 0 ] &&
    [ "$profile_failed" -eq 0 ]
}

main() {
  # Only the logs of the phases asked for: the device tool brings back at most 8 files.
  if wants cpu-tests || wants gpu-tests; then : >"$logs/tests.log"; fi
  if wants bench; then : >"$logs/bench.log"; fi
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
  unpack || { finish "GPU bundle: 0 passed, 1 failed (no bundle to run); benchmarks: 0 ran"; return 1; }
  find_torch_python
  echo "python with PyTorch: ${torch_python:-none}"
  library_path
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  missing_libraries=""
  if ! check_libraries; then
    remove_bundle
    finish "GPU bundle: 0 passed, 1 failed (shared libraries missing${missing_libraries:+: $missing_libraries}); benchmarks: 0 ran"
    return 1
  fi
  if [ ${#phase[@]} -eq 1 ] && wants check; then
    remove_bundle
    finish "GPU bundle: checked (unpacked, every library found); tests and benchmarks not run"
    return 0
  fi
  local work kind
  work="$(mktemp -d /tmp/brisk-run.XXXXXX)"
  mkdir -p "$work"/{cpu-tests,gpu-tests,bench,sanitize,profile}
  # The benchmark scripts call python3: a wrapper that execs $torch_python. Not a symlink: a
  # virtual environment's python reached through a link in another folder does not find the
  # environment's packages ("No module named torch", seen on the first GPU run).
  python_shim="$work/python"
  mkdir -p "$python_shim"
  if [ -n "$torch_python" ]; then
    printf '#!/bin/sh\nexec %q "$@"\n' "$torch_python" >"$python_shim/python3"
    chmod +x "$python_shim/python3"
  fi

  for kind in cpu gpu; do
    wants "$kind-tests" || continue
    begin_phase "$kind tests" "${BRISK_TESTS_BUDGET:-}"
    run_tests "$kind" "$work/$kind-tests"
  done
  if wants bench; then
    begin_phase benchmarks "${BRISK_BENCH_BUDGET:-}"
    bench_phase "$work/bench"
  fi
  if wants sanitize; then
    begin_phase compute-sanitizer "${BRISK_SANITIZE_BUDGET:-}"
    sanitize_phase "$work/sanitize"
  fi
  if wants profile; then
    begin_phase "kernel profile (ncu)" "${BRISK_PROFILE_BUDGET:-}"
    profile_phase "$work/profile"
  fi

  remove_bundle
  rm -rf "$work"
  echo
  echo "logs: $logs ($(cd "$logs" && find . -maxdepth 1 -type f ! -name summary.txt -printf '%f\n' | sort | tr '\n' ' ')summary.txt); $SECONDS s"
  summarize
}

main 2>&1 | tee "$logs/console.log"
exit "${PIPESTATUS[0]}"
