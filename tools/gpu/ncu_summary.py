#!/usr/bin/env python3
"""Per-kernel summary of an Nsight Compute CSV of one training step (tools/gpu/kernel_profile.sh).

Usage: ncu_summary.py TITLE FILE... where the files hold, anywhere among other lines, the CSV
that `ncu --csv --metrics gpu__time_duration.sum` prints: a header row naming
"Kernel Name", "Metric Name", "Metric Unit" and "Metric Value", then one row per kernel launch
and metric. Prints the step's kernel count and total GPU time, then each kernel (by name, its
parameter list dropped) with its launches, total and mean time and share of the step, largest
first, at most 25 rows and a line for the rest. Exits 1 if the files hold no such rows.
"""
import collections
import csv
import sys

# Seconds per unit, for the units ncu prints time in (it scales them to the values: nsecond,
# usecond, msecond; abbreviated in some versions).
UNITS = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3, "second": 1.0, "s": 1.0}
METRIC = "gpu__time_duration.sum"
ROWS = 25


def short_name(name):
    """The kernel's name without its parameter list (the last balanced (...) at the end)."""
    name = name.strip()
    if name.startswith("void "):
        name = name[5:]
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i]
                break
    return name if len(name) <= 100 else name[:97] + "..."


def launches(paths):
    """[(kernel name, seconds)] of every launch's METRIC row in the files."""
    rows = []
    for path in paths:
        try:
            lines = [line for line in open(path, errors="replace") if line.startswith('"')]
        except OSError:
            continue
        # The first quoted line is ncu's header row; a repeated one is skipped as a row.
        for row in csv.DictReader(lines):
            unit = UNITS.get(row.get("Metric Unit"))
            if row.get("Metric Name") != METRIC or unit is None or row.get("Kernel Name") is None:
                continue
            try:
                rows.append((short_name(row["Kernel Name"]), float(row["Metric Value"].replace(",", "")) * unit))
            except (ValueError, AttributeError):
                continue
    return rows


def main(title, paths):
    rows = launches(paths)
    if not rows:
        print(f"{title}: no {METRIC} rows in {', '.join(paths)}")
        return 1
    total = sum(seconds for _, seconds in rows)
    by_kernel = collections.defaultdict(list)
    for name, seconds in rows:
        by_kernel[name].append(seconds)
    print(f"{title}: {len(rows)} kernels, {total * 1e6:.1f} us of GPU time")
    print(f"{'launches':>8} {'total us':>10} {'mean us':>9} {'share':>6}  kernel")
    ranked = sorted(by_kernel.items(), key=lambda item: -sum(item[1]))
    for name, times in ranked[:ROWS]:
        print(f"{len(times):>8} {sum(times) * 1e6:>10.1f} {sum(times) / len(times) * 1e6:>9.2f} "
              f"{sum(times) / total * 100:>5.1f}%  {name}")
    rest = ranked[ROWS:]
    if rest:
        seconds = sum(sum(times) for _, times in rest)
        print(f"{sum(len(times) for _, times in rest):>8} {seconds * 1e6:>10.1f} {'':>9} {seconds / total * 100:>5.1f}%  "
              f"({len(rest)} other kernels)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
