#!/usr/bin/env python3
"""One table from two runs each of gpu_bench and gpu_bench_torch.py (tools/gpu/run_bundle.sh).

Usage: gpu_bench_table.py DIR, where DIR holds brisk1.tsv, brisk2.tsv, torch1.tsv, torch2.tsv:
each program's output, one tab-separated line per metric (key, value, unit, description) and
'#' comment lines. Prints, per metric, the mean of each side's two runs with half their spread,
the ratio ours / PyTorch, and for add, mul and sum the share of the copy bandwidth measured in
the same run (the higher of the two copy_d2d means: the best copy the device showed).
"""
import os
import statistics
import sys

KEYS = ["copy_d2d", "add", "mul", "sum", "matmul_fp32", "matmul_tf32", "matmul_bf16", "small_add", "small_add_kernels",
        "small_add_busy"]


def read(path):
    """Returns ({key: (value, unit)}, [comment lines]) of one run's output (empty if missing)."""
    values, comments = {}, []
    if not os.path.exists(path):
        return values, comments
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        fields = line.split("\t")
        if line.startswith("#"):
            comments.append(line)
        elif len(fields) >= 4:
            try:
                values[fields[0]] = (float(fields[1]), fields[2])
            except ValueError:
                pass
    return values, comments


def main(work):
    runs = {name: read(os.path.join(work, name + ".tsv")) for name in ("brisk1", "brisk2", "torch1", "torch2")}
    if not any(values for values, _ in runs.values()):
        print("GPU benchmark: no results from either program")
        return
    for comment in dict.fromkeys(runs["brisk1"][1] + runs["torch1"][1]):
        print(comment)

    def mean_and_spread(impl, key):
        values = [runs[impl + n][0][key][0] for n in "12" if key in runs[impl + n][0]]
        if not values:
            return None, None
        mean = statistics.mean(values)
        spread = (max(values) - min(values)) / mean * 100 if len(values) > 1 and mean else None
        return mean, spread

    units = {key: unit for values, _ in runs.values() for key, (_, unit) in values.items()}
    copies = [v for v in (mean_and_spread("brisk", "copy_d2d")[0], mean_and_spread("torch", "copy_d2d")[0]) if v]
    ceiling = max(copies) if copies else None

    def cell(value, spread):
        text = "-" if value is None else f"{value:.2f}" + (f" ±{spread / 2:.1f}%" if spread is not None else "")
        return f"{text:>17}"

    def share(value):
        return f"{value / ceiling * 100:.0f}%" if value is not None and ceiling else "-"

    print("GPU benchmark: mean of 2 runs each (ours, PyTorch, PyTorch, ours) ± half their spread")
    if ceiling:
        print(f"%copy: share of the device copy bandwidth measured in this run, {ceiling:.0f} GB/s "
              "(the higher copy_d2d)")
    print(f"{'metric':<17} {'unit':<12} {'brisk':>17} {'pytorch':>17} {'brisk/pytorch':>13} "
          f"{'brisk %copy':>11} {'pytorch %copy':>13}")
    for key in KEYS:
        ours, ours_spread = mean_and_spread("brisk", key)
        theirs, theirs_spread = mean_and_spread("torch", key)
        if ours is None and theirs is None:
            continue
        ratio = f"{ours / theirs:.2f}" if ours is not None and theirs else "-"
        unit = units.get(key, "")
        shares = (share(ours), share(theirs)) if unit == "GB/s" and key != "copy_d2d" else ("", "")
        print(f"{key:<17} {unit:<12} {cell(ours, ours_spread)} {cell(theirs, theirs_spread)} {ratio:>13} "
              f"{shares[0]:>11} {shares[1]:>13}")
    print("small_add: host time per call, lower is better (PyTorch's from Python); small_add_kernels and\n"
          "small_add_busy: kernels per call and the GPU-busy share of the same calls (CUPTI's records)")


if __name__ == "__main__":
    main(sys.argv[1])
