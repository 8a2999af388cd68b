# shellcheck shell=bash disable=SC2154  # variables of run_bundle.sh, which sources this
# The `profile` phase of tools/gpu/run_bundle.sh (sourced by it; uses its run_binary,
# budget_for, find_cuda_tool, selected, bundle, root and torch_python): Nsight Compute's GPU
# time of every kernel of one training step of each benchmark model, as a per-kernel summary
# (tools/gpu/ncu_summary.py); docs/gpu.md says which steps, in which order.
#
# train_bench (and train_bench_torch.py) run 3 warm-up steps (the first searches cuDNN's
# algorithms), then one step inside a profiler capture range (--profile-steps 1), which
# `ncu --profile-from-start off` alone profiles; one metric, one replay pass per kernel, and
# `--clock-control none` (the card's clocks are left as they are).

profile_ran=0; profile_failed=0; profile_not_run=0

# Profiles one step of <model> in <amp> with <impl> (brisk or pytorch); prints its summary.
profile_one() {  # profile_one <impl> <model> <amp> <batch> <work directory>
  local impl="$1" model="$2" amp="$3" batch="$4" work="$5" rc start=$SECONDS
  local name="${impl}_${model}_b${batch}_${amp}" csv="$work/${impl}_${model}_${amp}.csv"
  local -a args=(--model "$model" --amp "$amp" --batches "$batch" --device cuda --threads 1 --warmup 3 --repeats 1
    --steps 1 --profile-steps 1 --activity-steps 0)  # ncu holds the GPU's profiling: no CUPTI records of our own
  # Only options seen in use or long-standing: ncu_summary.py reads whatever time unit it prints.
  local -a ncu_args=(--clock-control none --profile-from-start off --metrics gpu__time_duration.sum --csv
    --log-file "$csv")
  if ! budget_for "${BRISK_PROFILE_TIMEOUT:-45}" "$name"; then
    profile_not_run=$((profile_not_run + 1))
    return
  fi
  if [ "$impl" = brisk ]; then
    # shellcheck disable=SC2034  # read by run_binary
    local -a run_wrapper=("$ncu" "${ncu_args[@]}")
    run_binary bin/tools/bench/train_bench "$work/$name.out" "$limit" "${args[@]}"
  else
    (cd "$root" && timeout -k 10 "$limit" "$ncu" "${ncu_args[@]}" "$torch_python" tools/bench/train_bench_torch.py \
      "${args[@]}" >"$work/$name.out" 2>&1 </dev/null)
  fi
  rc=$?
  { echo "# $name (exit code $rc)"; cat "$csv" 2>/dev/null; } >>"$logs/ncu.csv"
  # ncu's CSV goes to its --log-file; its .out is read too, in case this ncu prints it there.
  if [ "$rc" -eq 0 ] && "${torch_python:-python3}" "$root/tools/gpu/ncu_summary.py" \
       "$name: one training step, $((SECONDS - start)) s under ncu" "$csv" "$work/$name.out" >"$work/$name.txt" 2>&1; then
    profile_ran=$((profile_ran + 1))
    tee -a "$logs/ncu.txt" <"$work/$name.txt"
  else
    { echo "FAILED  $name (exit code $rc, $((SECONDS - start)) s):"
      tail -n 15 "$work/$name.out" "$work/$name.txt" 2>/dev/null | sed 's/^/    | /'; } | tee -a "$logs/ncu.txt"
    profile_failed=$((profile_failed + 1))
  fi
  echo | tee -a "$logs/ncu.txt"
}

# ResNet-20 (batch 128), airbench net (128) and LeNet-5 (256) in float32, then in bf16, each
# Brisk's step and then PyTorch's, so that a phase cut short still leaves pairs to compare.
# The filters select steps by name too (`profile pytorch_` profiles only PyTorch's).
profile_phase() {  # profile_phase <work directory>
  local work="$1" impl amp model batch
  find_cuda_tool "kernel profile" ncu ", in /usr/local/cuda*/bin or /opt/nvidia/nsight-compute" ||
    { profile_not_run=-1; return 0; }
  ncu="$tool"
  : >"$logs/ncu.txt"
  : >"$logs/ncu.csv"
  echo "kernel profile: $ncu ($("$ncu" --version 2>/dev/null | tail -n 1))"
  [ -z "$torch_python" ] && echo "kernel profile: no python with PyTorch here: PyTorch's steps not profiled"
  for amp in off bf16; do
    for model in resnet20 airbench lenet; do
      for impl in brisk pytorch; do
        [ "$impl" = pytorch ] && [ -z "$torch_python" ] && continue
        batch="$([ "$model" = lenet ] && echo 256 || echo 128)"
        selected "${impl}_${model}_b${batch}_${amp}" || continue
        profile_one "$impl" "$model" "$amp" "$batch" "$work"
      done
    done
  done
}

# For the summary line.
profile_summary() {
  if [ "$profile_not_run" -lt 0 ]; then echo "kernel profile skipped"; return; fi
  echo "kernel profile: ${profile_ran} steps profiled, ${profile_failed} failed, ${profile_not_run} not run"
}
