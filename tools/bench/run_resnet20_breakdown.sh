#!/usr/bin/env bash
# Where a ResNet-20 training step spends its time, Brisk (resnet20_breakdown) next to PyTorch
# (resnet20_breakdown_torch.py), at one batch size and thread count: per layer kind, the
# count in the network and the milliseconds of all of them per step, forward and backward;
# the remainder of the measured step (shortcuts, head, loss, optimizer, engine); then
# torch.profiler's key_averages of one PyTorch step (its ops by self CPU time).
#
#   tools/bench/run_resnet20_breakdown.sh                 # batch 64, 2 threads
#   BATCH=128 THREADS=1 PYTHON=/work/venv-torch/bin/python tools/bench/run_resnet20_breakdown.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

args=(--threads "${THREADS:-2}" --batch "${BATCH:-64}" --repeats "${REPEATS:-20}")
python="${PYTHON:-python3}"
bazel build -c opt //tools/bench:resnet20_breakdown >&2
brisk_out="$(mktemp)" torch_out="$(mktemp)"
trap 'rm -f "$brisk_out" "$torch_out"' EXIT
"$(bazel info -c opt bazel-bin 2>/dev/null)/tools/bench/resnet20_breakdown" "${args[@]}" >"$brisk_out"
"$python" tools/bench/resnet20_breakdown_torch.py "${args[@]}" >"$torch_out"

"$python" - "$brisk_out" "$torch_out" <<'PY'
import sys


def read(path):
    layers, step, profile, threads = {}, 0.0, [], 0
    for line in open(path):
        f = line.split()
        if f[0] == "layer":
            layers[f[1]] = (int(f[2]), float(f[3]), float(f[4]))
        elif f[0] == "step":
            step = float(f[1])
        elif f[0] == "profile":
            profile.append(f[1:])
        elif f[0] == "threads":
            threads = int(f[1])
    return layers, step, profile, threads


ours, our_step, _, threads = read(sys.argv[1])
theirs, their_step, profile, _ = read(sys.argv[2])
print(f"ResNet-20 training step by layer, {threads} threads, ms per step (count x one layer)")
print(f"{'layer':<22} {'count':>5} {'brisk fwd':>10} {'torch fwd':>10} {'brisk bwd':>10} {'torch bwd':>10} "
      f"{'torch/brisk':>11}")
totals = [0.0] * 4
for name, (count, fwd, bwd) in ours.items():
    _, tfwd, tbwd = theirs[name]
    row = [count * fwd, count * tfwd, count * bwd, count * tbwd]
    totals = [a + b for a, b in zip(totals, row)]
    print(f"{name:<22} {count:>5} {row[0]:>10.2f} {row[1]:>10.2f} {row[2]:>10.2f} {row[3]:>10.2f} "
          f"{(row[1] + row[3]) / (row[0] + row[2]):>11.2f}")
print(f"{'layers':<22} {'':>5} {totals[0]:>10.2f} {totals[1]:>10.2f} {totals[2]:>10.2f} {totals[3]:>10.2f} "
      f"{(totals[1] + totals[3]) / (totals[0] + totals[2]):>11.2f}")
rest, their_rest = our_step - totals[0] - totals[2], their_step - totals[1] - totals[3]
print(f"{'rest of the step':<22} {'':>5} {rest:>21.2f} {their_rest:>21.2f}")
print(f"{'whole step':<22} {'':>5} {our_step:>21.2f} {their_step:>21.2f} {their_step / our_step:>22.2f}")
print()
print("torch.profiler key_averages of one PyTorch step (self CPU ms, CPU total ms, calls)")
for op, calls, self_ms, total_ms in profile:
    print(f"  {op:<44} {float(self_ms):>9.2f} {float(total_ms):>9.2f} {calls:>6}")
PY
